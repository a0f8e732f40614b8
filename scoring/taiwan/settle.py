"""Settlement: who pays the winner how much (底 + 台 × 台值), payer by payer.

作莊 and 連N拉N count only on payments that involve the dealer, so two payers of the same hand may owe
different 台; every payment is computed on its own and the four amounts sum to zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mjlens.scoring.tiles import WIND_LETTERS


@dataclass(frozen=True)
class Payment:
    payer: str
    tai: int
    dealer_tai: int
    amount: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.payer, "tai": self.tai, "dealer_tai": self.dealer_tai, "pays": self.amount}


def previous_seat(seat: str) -> str:
    """The seat that plays just before ``seat`` (E -> S -> W -> N -> E)."""
    return WIND_LETTERS[(WIND_LETTERS.index(seat) - 1) % 4]


def payments(winner: str, dealer: str, payers: list[str], hand_tai: int, dealer_tai: int,
             base: int, per_tai: int) -> list[Payment]:
    """One payment per payer: the hand's 台, plus the dealer's 台 when the winner or that payer is dealer."""
    out = []
    for payer in payers:
        extra = dealer_tai if dealer in (winner, payer) else 0
        tai = hand_tai + extra
        out.append(Payment(payer, tai, extra, base + tai * per_tai))
    return out


def settlement(winner: str, pays: list[Payment]) -> dict[str, int]:
    """Net result per seat (E, S, W, N), summing to zero."""
    out = dict.fromkeys(WIND_LETTERS, 0)
    for p in pays:
        out[p.payer] -= p.amount
        out[winner] += p.amount
    return out
