"""Settlement under the Chinese Official rules: a base of 8 from every loser, plus the hand's fan.

Self-drawn: each of the three others pays 8 + total. On a discard: the discarder pays 8 + total and the
two others 8 each. Amounts are keyed by seat wind and sum to zero.
"""

from __future__ import annotations

from mjlens.scoring.tiles import WIND_LETTERS

BASE = 8


def previous_seat(seat: str) -> str:
    """The player who plays just before ``seat`` (E, S, W, N order), the usual discarder."""
    return WIND_LETTERS[(WIND_LETTERS.index(seat) - 1) % 4]


def settle(total: int, winner: str, self_drawn: bool, discarder: str | None) -> dict[str, int]:
    out = {}
    for seat in WIND_LETTERS:
        if seat == winner:
            continue
        out[seat] = -(BASE + total) if self_drawn or seat == discarder else -BASE
    out[winner] = -sum(out.values())
    return {seat: out[seat] for seat in WIND_LETTERS}
