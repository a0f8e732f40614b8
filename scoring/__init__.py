"""Scoring engine: tiles, notation, hand model, decomposition, waits and one module per rule system."""

from .engine import RULE_SYSTEMS, catalog, score
from .errors import HandError
from .hand import Context, Hand, Meld
from .notation import format_hand, parse

__all__ = ["RULE_SYSTEMS", "Context", "Hand", "HandError", "Meld", "catalog", "format_hand", "parse", "score"]
