"""Detectors: one small function per scoring item, each reading the facts of one reading of the hand.

A detector returns how many times its item occurs (0 = absent). Detectors do not know about each other:
which item replaces which is data (``items.toml``), applied afterwards by the scorer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from mjlens.scoring.decompose import SEVEN_PAIRS_PUNG, STANDARD, Arrangement
from mjlens.scoring.hand import Context
from mjlens.scoring.tiles import FLOWER_CODES, IS_DRAGON, IS_WIND, SEASON_CODES, bonus_seat


@dataclass(frozen=True)
class View:
    """What the detectors need to know about one reading (arrangement + winning-tile placement)."""

    arrangement: Arrangement | None  # None for a flower win whose tiles form no hand
    counts: tuple[int, ...]  # every playing tile of the hand, kongs counted four
    concealed_pungs: int  # 暗坎: pungs formed from dealt or drawn tiles, concealed kongs included
    open_melds: int  # chows, pungs and exposed kongs on the table
    all_melds_open: bool  # five open melds and nothing concealed but the pair
    single_wait: bool  # 獨聽: exactly one tile could complete the hand
    self_drawn: bool
    context: Context
    seat: int  # tile index of the seat wind
    round: int  # tile index of the round wind
    flowers: frozenset[str]
    seat_letter: str
    bonus_win: str | None
    ready: str | None

    # Facts several detectors read: computed once per reading (the dataclass is frozen, but cached_property
    # writes to the instance dict directly, so the cache works).
    @cached_property
    def triplets(self) -> tuple[int, ...]:
        a = self.arrangement
        return tuple(g.first for g in a.groups if g.kind in ("pung", "kong")) if a else ()

    @cached_property
    def wind_pungs(self) -> int:
        return sum(1 for t in self.triplets if IS_WIND[t])

    @cached_property
    def dragon_pungs(self) -> int:
        return sum(1 for t in self.triplets if IS_DRAGON[t])

    @cached_property
    def suits(self) -> frozenset[int]:
        """The suits (0 m, 1 p, 2 s) the hand's tiles use."""
        c = self.counts
        return frozenset(s for s in range(3) if any(c[9 * s:9 * s + 9]))

    @cached_property
    def has_honours(self) -> bool:
        return any(self.counts[27:34])

    @property
    def pair(self) -> int | None:
        return self.arrangement.pair if self.arrangement else None

    @property
    def shape(self) -> str | None:
        return self.arrangement.shape if self.arrangement else None


def seat_wind(v: View) -> int:
    return int(v.seat in v.triplets)


def round_wind(v: View) -> int:
    return int(v.round in v.triplets)


def dragon_pung(v: View) -> int:
    return v.dragon_pungs


def concealed(v: View) -> int:
    return int(v.arrangement is not None and v.open_melds == 0)


def concealed_self_drawn(v: View) -> int:
    return int(concealed(v) and v.self_drawn)


def all_melded(v: View) -> int:
    return int(v.arrangement is not None and v.all_melds_open and not v.self_drawn)


def half_melded(v: View) -> int:
    return int(v.arrangement is not None and v.all_melds_open and v.self_drawn)


def all_chows(v: View) -> int:
    """平胡: 有將、無花、無字、無坎、非獨聽、非自摸."""
    a = v.arrangement
    return int(
        a is not None and a.shape == STANDARD and all(g.kind == "chow" for g in a.sets)
        and not v.flowers and not v.has_honours and not v.single_wait and not v.self_drawn
    )


def all_pungs(v: View) -> int:
    a = v.arrangement
    return int(a is not None and a.shape == STANDARD and all(g.is_triplet for g in a.sets))


def single_wait(v: View) -> int:
    return int(v.arrangement is not None and v.single_wait)


def robbing_kong(v: View) -> int:
    return int(v.arrangement is not None and v.context.robbing_kong)


def all_honours(v: View) -> int:
    return int(v.arrangement is not None and not v.suits)


def all_honours_overlap(v: View) -> int:
    """字一色 with 大/小四喜 or 大/小三元: add them and subtract 4 (they always come together)."""
    wind_or_dragon = (big_four_winds(v) or little_four_winds(v) or big_three_dragons(v)
                      or little_three_dragons(v))
    return int(bool(all_honours(v) and wind_or_dragon))


def full_flush(v: View) -> int:
    return int(v.arrangement is not None and len(v.suits) == 1 and not v.has_honours)


def half_flush(v: View) -> int:
    return int(v.arrangement is not None and len(v.suits) == 1 and v.has_honours)


def three_concealed_pungs(v: View) -> int:
    return int(v.concealed_pungs >= 3)


def four_concealed_pungs(v: View) -> int:
    return int(v.concealed_pungs >= 4)


def five_concealed_pungs(v: View) -> int:
    return int(v.concealed_pungs >= 5)


def big_four_winds(v: View) -> int:
    return int(v.wind_pungs == 4)


def little_four_winds(v: View) -> int:
    return int(v.wind_pungs == 3 and v.pair is not None and IS_WIND[v.pair])


def big_three_dragons(v: View) -> int:
    return int(dragon_pung(v) == 3)


def little_three_dragons(v: View) -> int:
    return int(dragon_pung(v) == 2 and v.pair is not None and IS_DRAGON[v.pair])


def self_drawn(v: View) -> int:
    return int(v.arrangement is not None and v.self_drawn)


def kong_replacement(v: View) -> int:
    return int(v.arrangement is not None and v.context.kong_replacement)


def last_tile(v: View) -> int:
    """海底撈月: the last tile of the wall, drawn (a win on the last discard is not in the 36 items)."""
    return int(v.arrangement is not None and v.context.last_tile and v.self_drawn)


def _complete_sets(v: View) -> list[tuple[str, ...]]:
    return [s for s in (SEASON_CODES, FLOWER_CODES) if v.flowers.issuperset(s)]


def seat_flower(v: View) -> int:
    """The seat's own flower and season, 1 台 each, unless its set of four is complete (then 花槓)."""
    in_sets = {t for s in _complete_sets(v) for t in s}
    return sum(1 for t in v.flowers if bonus_seat(t) == v.seat_letter and t not in in_sets)


def flower_kong(v: View) -> int:
    return len(_complete_sets(v))


def all_flowers(v: View) -> int:
    return int(len(v.flowers) == 8)


def eight_immortals(v: View) -> int:
    return int(v.bonus_win == "eight_immortals")


def seven_rob_one(v: View) -> int:
    return int(v.bonus_win == "seven_rob_one")


def heavenly_ready(v: View) -> int:
    return int(v.arrangement is not None and v.ready == "heavenly")


def earthly_ready(v: View) -> int:
    return int(v.arrangement is not None and v.ready == "earthly")


def heavenly(v: View) -> int:
    return int(v.arrangement is not None and v.context.heavenly)


def earthly(v: View) -> int:
    return int(v.arrangement is not None and v.context.earthly)


def human(v: View) -> int:
    return int(v.arrangement is not None and v.context.human)


def seven_pairs_pung(v: View) -> int:
    return int(v.shape == SEVEN_PAIRS_PUNG)


#: item key -> detector. Items missing here (作莊, 連N拉N) depend on who pays, not on the hand.
DETECTORS: dict[str, Callable[[View], int]] = {
    f.__name__: f
    for f in (
        seat_wind, round_wind, dragon_pung, concealed, concealed_self_drawn, all_melded, half_melded,
        all_chows, all_pungs, single_wait, robbing_kong, all_honours, all_honours_overlap, full_flush,
        half_flush, three_concealed_pungs, four_concealed_pungs, five_concealed_pungs, big_four_winds,
        little_four_winds, big_three_dragons, little_three_dragons, self_drawn, kong_replacement, last_tile,
        seat_flower, flower_kong, all_flowers, eight_immortals, seven_rob_one, heavenly_ready, earthly_ready,
        heavenly, earthly, human, seven_pairs_pung,
    )
}
