"""Who pays whom for a 雞平和 win: self-drawn, discard, several winners on one discard, and the 包 liabilities.

Payments are in points (2^番). The rule document (003) fixes who pays in the special cases:
- 杠上開花包杠: "計自摸，點杠者包三家" — counted as self-drawn; whoever fed the kong pays for all three.
- 搶杠: "搶杠和等同杠開，當自摸被搶杠者包三家" — as a self-draw; the robbed player pays for all three.
- 包自摸 (十二張落地; the last wind of 大四喜 or the last dragon of 大三元): the feeder pays the whole self-drawn win
  ("為其餘兩家代付").
- 一炮多響 is allowed: the discarder pays each winner; settle each result, then add them (``settle_together``).
Where 003 is silent (the plain discard win), the discarder alone pays, as is usual in Guangdong play;
``[settlement]`` house rules set the multipliers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Context
from mjlens.scoring.result import ScoreResult
from mjlens.scoring.tiles import WIND_LETTERS

#: Option keys this module reads (``house_rules`` is read by ``rules``).
SETTLEMENT_OPTIONS = ("discarder", "other_winners", "liable", "kong_feeder")


@dataclass(frozen=True)
class Payers:
    """Who pays for one win, after checking the options against the context."""

    winner: str
    self_drawn: bool
    discarder: str | None = None  # discard win, or the robbed player of 搶杠
    pays_all: str | None = None  # one seat pays the whole self-drawn amount (包)
    liability: str | None = None  # why: "liable", "kong_feeder" or "robbing_kong"
    other_winners: tuple[str, ...] = ()


def _seat(value: Any, key: str) -> str:
    if value not in WIND_LETTERS:
        raise HandError("bad_option", msg("option {key} must be a seat E, S, W or N, not {value}",
                                          key=repr(key), value=repr(value)))
    return value


def previous_seat(seat: str) -> str:
    """The seat that plays just before ``seat`` (E, S, W, N order): the usual discarder."""
    return WIND_LETTERS[(WIND_LETTERS.index(seat) - 1) % 4]


def payers(ctx: Context, self_drawn: bool, options: dict[str, Any], warnings: list[str]) -> Payers:
    """Check the settlement options against the win; ``bad_option`` for anything that cannot be."""
    winner = ctx.seat_wind
    seats = {k: _seat(options[k], k) for k in ("discarder", "liable", "kong_feeder") if k in options}
    for key, seat in seats.items():
        if seat == winner:
            raise HandError("bad_option", msg("option {key} names the winner's own seat {seat}",
                                              key=repr(key), seat=seat))
    others = _other_winners(options.get("other_winners", []))
    if "liable" in seats and "kong_feeder" in seats:
        raise HandError("bad_option",
                        msg("give 'liable' (包自摸) or 'kong_feeder' (杠上開花包杠), not both: one seat pays"))
    if "kong_feeder" in seats and not ctx.kong_replacement:
        raise HandError("bad_option", msg("'kong_feeder' applies only to a win on a kong replacement tile (杠上開花)"))
    discard_like = not self_drawn or ctx.robbing_kong
    if "liable" in seats and not self_drawn:
        raise HandError("bad_option", msg("'liable' (包自摸) applies only to a self-drawn win"))
    if ctx.robbing_kong and ("liable" in seats or "kong_feeder" in seats):
        raise HandError("bad_option", msg("in 搶杠 the robbed player (option 'discarder') pays; 'liable' does "
                                          "not apply"))
    if not discard_like and "discarder" in seats:
        raise HandError("bad_option", msg("a self-drawn win has no discarder; for 包自摸 use option 'liable'"))
    if others and not discard_like:
        raise HandError("bad_option", msg("'other_winners' (一炮多響) applies only to a win on a discard"))
    if not discard_like:
        pays_all = seats.get("liable") or seats.get("kong_feeder")
        why = "liable" if "liable" in seats else "kong_feeder" if pays_all else None
        return Payers(winner, True, pays_all=pays_all, liability=why)
    discarder = seats.get("discarder")
    if discarder is None:
        discarder = previous_seat(winner)
        who = msg("the robbed player") if ctx.robbing_kong else msg("the discarder")
        warnings.append(msg("{who} was not given (option 'discarder'): assumed {discarder}, the seat before "
                            "{winner}", who=who, discarder=discarder, winner=winner))
    if winner in others or discarder in others:
        raise HandError("bad_option", msg("'other_winners' must not include the winner or the discarder"))
    if ctx.robbing_kong:
        return Payers(winner, True, discarder, pays_all=discarder, liability="robbing_kong", other_winners=others)
    return Payers(winner, False, discarder, other_winners=others)


def _other_winners(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HandError("bad_option", msg("'other_winners' must be a list of seats, e.g. [\"S\", \"W\"]"))
    seats = tuple(_seat(v, "other_winners") for v in value)
    if len(set(seats)) != len(seats) or len(seats) > 2:
        raise HandError("bad_option",
                        msg("'other_winners' lists at most two different seats (一炮三響 is three winners)"))
    return seats


def settlement(who: Payers, points: int, discard_multiplier: int, self_drawn_multiplier: int) -> dict[str, int]:
    """Keys E, S, W, N summing to zero: what each seat gains (+) or pays (-) for this one win."""
    out = dict.fromkeys(WIND_LETTERS, 0)
    others = [s for s in WIND_LETTERS if s != who.winner]
    if who.self_drawn:
        each = points * self_drawn_multiplier
        if who.pays_all:
            out[who.pays_all] -= each * len(others)
        else:
            for seat in others:
                out[seat] -= each
    else:
        assert who.discarder is not None
        out[who.discarder] -= points * discard_multiplier
    out[who.winner] = -sum(out.values())
    return out


def settle_together(results: Iterable[ScoreResult]) -> dict[str, int]:
    """Add the settlements of several wins on one discard (一炮多響), or of any hands, seat by seat."""
    total = dict.fromkeys(WIND_LETTERS, 0)
    for result in results:
        if not result.valid:
            raise HandError("bad_option", msg("only valid results can be settled together"))
        for seat, amount in result.settlement.items():
            total[seat] += amount
    return total
