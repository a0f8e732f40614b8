"""What a riichi win pays, from `mahjong`'s payment figures: who pays how much (honba counted in), the riichi
sticks the winner takes from the table, and the settlement across the four seats."""

from __future__ import annotations

from typing import Any

from mjlens.scoring.tiles import WIND_LETTERS


def previous_seat(seat: str) -> str:
    """The player who plays just before ``seat`` (E, S, W, N order), the usual discarder."""
    return WIND_LETTERS[(WIND_LETTERS.index(seat) - 1) % 4]


def points(cost: dict[str, Any], self_drawn: bool, dealer: bool) -> dict[str, Any]:
    """The payments: on a discard what the discarder pays; self-drawn, what the dealer and each other player pay
    (each of the three alike when the winner is dealer). Honba are in each payment (``honba_bonus`` says how
    much); ``riichi_sticks_bonus`` comes from the table; ``total`` is all the winner takes."""
    if not self_drawn:
        payments = {"discarder": cost["main"] + cost["main_bonus"]}
        honba = cost["main_bonus"]
    elif dealer:
        payments = {"each": cost["main"] + cost["main_bonus"]}
        honba = 3 * cost["main_bonus"]
    else:
        payments = {"dealer": cost["main"] + cost["main_bonus"], "each_other": cost["additional"] +
                    cost["additional_bonus"]}
        honba = cost["main_bonus"] + 2 * cost["additional_bonus"]
    return {"win": "tsumo" if self_drawn else "ron", "payments": payments, "honba_bonus": honba,
            "riichi_sticks_bonus": cost["kyoutaku_bonus"], "total": cost["total"]}


def settlement(paid: dict[str, Any], winner: str, discarder: str | None) -> dict[str, int]:
    """Each seat's gain (+) or loss (-). The winner's gain includes the riichi sticks, which come from the table,
    not from a seat: the four add up to the sticks' points. The dealer sits East (or is the winner)."""
    out = dict.fromkeys(WIND_LETTERS, 0)
    payments = paid["payments"]
    others = [s for s in WIND_LETTERS if s != winner]
    if "discarder" in payments:
        assert discarder is not None
        out[discarder] = -payments["discarder"]
    elif "each" in payments:
        for seat in others:
            out[seat] = -payments["each"]
    else:
        dealer_seat = "E" if "E" in others else others[0]
        for seat in others:
            out[seat] = -(payments["dealer"] if seat == dealer_seat else payments["each_other"])
    out[winner] = paid["total"]
    return out
