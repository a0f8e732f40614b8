"""The cantonese rule system (being built)."""

from __future__ import annotations

from scoring.errors import HandError
from scoring.hand import Hand
from scoring.result import ScoreResult

NAME = "cantonese"
UNIT = "fan"


def score_hand(hand: Hand, options: dict) -> ScoreResult:
    raise HandError("unknown_rules", "the cantonese rule system is not available in this build")


def catalog() -> list[dict]:
    return []
