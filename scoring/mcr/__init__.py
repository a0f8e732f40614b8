"""The Chinese Official rule system (國標麻將, MCR): 81 fan, 8-fan minimum, flowers 1 fan each.

The fan table is data (``fans.py``); the detectors are small functions by family (``detectors/``); the
exclusion principles live in ``exclusions.py``; ``scorer.py`` reads the hand in every arrangement and keeps
the best. Conventions follow the Mahjong International League (as pymahjonggb does); ``options.py`` lists
the switches. See docs/rules/mcr.md.
"""

from __future__ import annotations

from .fans import FANS
from .scorer import score_hand

NAME = "mcr"
UNIT = "fan"

__all__ = ["NAME", "UNIT", "catalog", "score_hand"]


def catalog() -> list[dict]:
    """Every fan with its names, value and what it excludes, in the order of the official list."""
    return [{"key": f.key, "name_zh": f.name_zh, "name_en": f.name_en, "value": f.value,
             "excludes": list(f.excludes)} for f in FANS]
