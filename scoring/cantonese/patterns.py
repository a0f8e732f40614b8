"""Which rows of the 雞平和 table a hand has, for one reading (arrangement) of it.

Detection only: every predicate answers "does the hand have this pattern", and the table (values, what a
composite excludes, within or beyond the cap) decides what it is worth. Flush and terminal patterns look at
the tiles; pung/chow patterns look at the arrangement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mjlens.scoring.decompose import SEVEN_PAIRS, STANDARD, THIRTEEN_ORPHANS, Arrangement
from mjlens.scoring.hand import Hand
from mjlens.scoring.tiles import IS_DRAGON, IS_HONOR, IS_TERMINAL, IS_WIND, SUIT_OF, index, wind_index


@dataclass(frozen=True)
class Facts:
    """What the patterns look at: the hand's tiles (melds included) and one reading of them."""

    tiles: tuple[int, ...]  # every playing tile, as indices; kongs count four
    arrangement: Arrangement
    has_melds: bool

    @property
    def suits(self) -> set[int]:
        return {SUIT_OF[t] for t in self.tiles if not IS_HONOR[t]}

    @property
    def has_honours(self) -> bool:
        return any(IS_HONOR[t] for t in self.tiles)

    @property
    def standard(self) -> bool:
        return self.arrangement.shape == STANDARD

    def triplets(self, predicate: Callable[[int], bool]) -> int:
        """How many pungs/kongs of tiles that satisfy ``predicate`` the reading has."""
        return sum(1 for g in self.arrangement.sets if g.is_triplet and predicate(g.first))

    def pair_is(self, predicate: Callable[[int], bool]) -> bool:
        pair = self.arrangement.pair
        return self.standard and pair is not None and predicate(pair)


def facts_of(hand: Hand, arrangement: Arrangement) -> Facts:
    return Facts(tuple(index(t) for t in hand.all_tiles()), arrangement, bool(hand.melds))


def _one_suit(f: Facts) -> bool:
    return len(f.suits) == 1


def _nine_gates(f: Facts) -> bool:
    """1112345678999 of one suit plus any tile of it, all concealed (九蓮寶燈)."""
    if f.has_melds or f.has_honours or not _one_suit(f):
        return False
    suit = next(iter(f.suits))
    counts = [sum(1 for t in f.tiles if t == 9 * suit + r) for r in range(9)]
    need = [3, 1, 1, 1, 1, 1, 1, 1, 3]
    return all(c >= n for c, n in zip(counts, need, strict=True))


def _all_pungs(f: Facts) -> bool:
    return f.standard and all(g.is_triplet for g in f.arrangement.sets)


def _half_flush(f: Facts) -> bool:
    return _one_suit(f) and f.has_honours


def _full_flush(f: Facts) -> bool:
    return _one_suit(f) and not f.has_honours


def _terminals_and_honours(f: Facts) -> bool:
    return all(IS_TERMINAL[t] or IS_HONOR[t] for t in f.tiles)


#: Pattern key -> predicate. Order is the table's order of precedence among equal values.
PATTERNS: dict[str, Callable[[Facts], bool]] = {
    "thirteen_orphans": lambda f: f.arrangement.shape == THIRTEEN_ORPHANS,
    "nine_gates": _nine_gates,
    "big_winds": lambda f: f.triplets(lambda t: IS_WIND[t]) == 4,
    "big_dragons": lambda f: f.triplets(lambda t: IS_DRAGON[t]) == 3,
    "all_honours": lambda f: all(IS_HONOR[t] for t in f.tiles),
    "pure_terminals": lambda f: all(IS_TERMINAL[t] for t in f.tiles),
    "little_winds": lambda f: f.triplets(lambda t: IS_WIND[t]) == 3 and f.pair_is(lambda t: IS_WIND[t]),
    "little_dragons": lambda f: f.triplets(lambda t: IS_DRAGON[t]) == 2 and f.pair_is(lambda t: IS_DRAGON[t]),
    "mixed_terminals": lambda f: _terminals_and_honours(f) and f.has_honours and bool(f.suits),
    "full_flush_pungs": lambda f: _full_flush(f) and _all_pungs(f),
    "half_flush_pungs": lambda f: _half_flush(f) and _all_pungs(f),
    "full_flush": _full_flush,
    "seven_pairs": lambda f: f.arrangement.shape == SEVEN_PAIRS,
    "half_flush": _half_flush,
    "all_pungs": _all_pungs,
    "all_chows": lambda f: f.standard and all(g.kind == "chow" for g in f.arrangement.sets),
}


def patterns(facts: Facts) -> list[str]:
    """Every pattern the reading has, before exclusions."""
    return [key for key, test in PATTERNS.items() if test(facts)]


def additions(facts: Facts, seat: str, round_: str, self_drawn: bool) -> dict[str, int]:
    """The within-cap additions and how many times each applies (自摸, 門風, 圈風, each dragon pung)."""
    found = {
        "self_drawn": int(self_drawn),
        "seat_wind": facts.triplets(lambda t: t == wind_index(seat)),
        "round_wind": facts.triplets(lambda t: t == wind_index(round_)),
        "dragon_pung": facts.triplets(lambda t: IS_DRAGON[t]),
    }
    return {k: n for k, n in found.items() if n}
