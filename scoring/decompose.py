"""Every way a winning hand splits into sets and a pair, plus the special shapes.

Works on 34-slot count arrays (see ``tiles``). Results are cached by the count tuple: a scorer asks for the
same concealed part many times (once per candidate winning tile, once per wait check).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

from .tiles import IS_HONOR, PLAYING_CODES, TERMINALS_AND_HONORS

# Shapes an arrangement can have.
STANDARD = "standard"
SEVEN_PAIRS = "seven_pairs"
THIRTEEN_ORPHANS = "thirteen_orphans"
HONORS_AND_KNITTED = "honors_and_knitted"  # 全不靠 / 七星不靠: fourteen unrelated tiles
KNITTED_STRAIGHT = "knitted_straight"  # 組合龍 + one set + a pair
SEVEN_PAIRS_PUNG = "seven_pairs_pung"  # Taiwan 嚦咕嚦咕: seven pairs and a pung, 17 tiles

#: The 147 / 258 / 369 runs of each suit, by (suit, run) -> tile indices.
KNITTED_RUNS = {(s, r): (9 * s + r, 9 * s + r + 3, 9 * s + r + 6) for s in range(3) for r in range(3)}
#: The six ways to give the three runs to the three suits: (suit of 147, suit of 258, suit of 369).
KNITTED_SUIT_ORDERS = tuple(permutations(range(3)))


@dataclass(frozen=True, slots=True)
class Group:
    """One set or pair. ``first`` is its lowest tile index; knitted groups are a 147/258/369 run."""

    kind: str  # "chow", "pung", "kong", "pair", "knitted"
    first: int
    concealed: bool = True  # formed in the hand, or a concealed kong
    meld: bool = False  # declared on the table (exposed meld or concealed kong)

    @property
    def tiles(self) -> tuple[int, ...]:
        f = self.first
        return {
            "chow": (f, f + 1, f + 2),
            "pung": (f, f, f),
            "kong": (f, f, f, f),
            "pair": (f, f),
            "knitted": (f, f + 3, f + 6),
        }[self.kind]

    def codes(self) -> list[str]:
        return [PLAYING_CODES[i] for i in self.tiles]

    @property
    def is_triplet(self) -> bool:
        return self.kind in ("pung", "kong")


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One reading of a winning hand: its shape, its groups, and any loose tiles (special shapes)."""

    shape: str
    groups: tuple[Group, ...]
    singles: tuple[int, ...] = ()

    @property
    def pair(self) -> int | None:
        pairs = [g.first for g in self.groups if g.kind == "pair"]
        return pairs[0] if len(pairs) == 1 else None

    @property
    def sets(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.kind != "pair")

    def to_json(self) -> list[list[str]]:
        out = [g.codes() for g in self.groups]
        if self.singles:
            out.append([PLAYING_CODES[i] for i in self.singles])
        return out


# ---------------------------------------------------------------------------------------------------
# standard shape


@lru_cache(maxsize=200_000)
def _sets_only(counts: tuple[int, ...]) -> tuple[tuple[Group, ...], ...]:
    """Every multiset of chows and pungs that uses exactly ``counts`` (no pair)."""
    first = next((i for i, n in enumerate(counts) if n), None)
    if first is None:
        return ((),)
    out: list[tuple[Group, ...]] = []
    c = list(counts)
    if c[first] >= 3:
        c[first] -= 3
        out.extend((Group("pung", first),) + rest for rest in _sets_only(tuple(c)))
        c[first] += 3
    if not IS_HONOR[first] and first % 9 <= 6 and c[first + 1] and c[first + 2]:
        c[first] -= 1
        c[first + 1] -= 1
        c[first + 2] -= 1
        out.extend((Group("chow", first),) + rest for rest in _sets_only(tuple(c)))
    return tuple(out)


@lru_cache(maxsize=200_000)
def standard_readings(counts: tuple[int, ...]) -> tuple[tuple[Group, ...], ...]:
    """Every (sets..., pair) reading of a concealed part whose size is 3k + 2."""
    if sum(counts) % 3 != 2:
        return ()
    out = []
    c = list(counts)
    for p in range(34):
        if c[p] >= 2:
            c[p] -= 2
            for sets in _sets_only(tuple(c)):
                out.append(sets + (Group("pair", p),))
            c[p] += 2
    return tuple(out)


# ---------------------------------------------------------------------------------------------------
# special shapes


def _seven_pairs(counts: tuple[int, ...]) -> Arrangement | None:
    if sum(counts) != 14 or any(n % 2 for n in counts):
        return None
    groups = tuple(Group("pair", i) for i, n in enumerate(counts) for _ in range(n // 2))
    return Arrangement(SEVEN_PAIRS, groups)


def _thirteen_orphans(counts: tuple[int, ...]) -> Arrangement | None:
    if sum(counts) != 14 or any(counts[i] == 0 for i in TERMINALS_AND_HONORS):
        return None
    if sum(counts[i] for i in TERMINALS_AND_HONORS) != 14:
        return None
    pair = next(i for i in TERMINALS_AND_HONORS if counts[i] == 2)
    singles = tuple(i for i in TERMINALS_AND_HONORS if i != pair)
    return Arrangement(THIRTEEN_ORPHANS, (Group("pair", pair),), singles)


def _honors_and_knitted(counts: tuple[int, ...]) -> Arrangement | None:
    if sum(counts) != 14 or any(n > 1 for n in counts):
        return None
    for order in KNITTED_SUIT_ORDERS:
        allowed = {t for run, suit in enumerate(order) for t in KNITTED_RUNS[(suit, run)]}
        if all(not n or IS_HONOR[i] or i in allowed for i, n in enumerate(counts)):
            return Arrangement(HONORS_AND_KNITTED, (), tuple(i for i, n in enumerate(counts) if n))
    return None


def _knitted_straight(counts: tuple[int, ...]) -> list[Arrangement]:
    out = []
    if sum(counts) % 3 != 2 or sum(counts) < 11:
        return out
    for order in KNITTED_SUIT_ORDERS:
        runs = [KNITTED_RUNS[(suit, run)] for run, suit in enumerate(order)]
        if all(counts[t] for run in runs for t in run):
            c = list(counts)
            for run in runs:
                for t in run:
                    c[t] -= 1
            knitted = tuple(Group("knitted", run[0]) for run in runs)
            for reading in standard_readings(tuple(c)):
                out.append(Arrangement(KNITTED_STRAIGHT, knitted + reading))
    return out


def _seven_pairs_pung(counts: tuple[int, ...]) -> Arrangement | None:
    if sum(counts) != 17:
        return None
    odd = [i for i, n in enumerate(counts) if n % 2]
    if len(odd) != 1 or counts[odd[0]] != 3:
        return None
    pairs = tuple(Group("pair", i) for i, n in enumerate(counts) if n in (2, 4) for _ in range(n // 2))
    return Arrangement(SEVEN_PAIRS_PUNG, (Group("pung", odd[0]),) + pairs)


# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shapes:
    """Which special shapes a rule system accepts, and how many sets a standard hand has."""

    sets: int = 4
    seven_pairs: bool = True
    thirteen_orphans: bool = True
    knitted: bool = False  # 全不靠, 七星不靠 and 組合龍 (Chinese Official only)
    seven_pairs_pung: bool = False  # 嚦咕嚦咕 (Taiwan only)
    distinct_pairs: bool = False  # seven pairs are seven different pairs, four of a kind never two (riichi)


def arrangements(concealed: tuple[int, ...], meld_groups: tuple[Group, ...], shapes: Shapes) -> list[Arrangement]:
    """Every reading of a complete hand: concealed counts (winning tile included) plus the declared melds."""
    out: list[Arrangement] = []
    size = sum(concealed)
    if size + 3 * len(meld_groups) != 3 * shapes.sets + 2:
        return out
    for reading in standard_readings(concealed):
        out.append(Arrangement(STANDARD, meld_groups + reading))
    if not meld_groups:
        special = []
        if shapes.seven_pairs and not (shapes.distinct_pairs and 4 in concealed):
            special.append(_seven_pairs(concealed))
        if shapes.thirteen_orphans:
            special.append(_thirteen_orphans(concealed))
        if shapes.knitted:
            special.append(_honors_and_knitted(concealed))
        if shapes.seven_pairs_pung:
            special.append(_seven_pairs_pung(concealed))
        out.extend(a for a in special if a is not None)
    if shapes.knitted and len(meld_groups) <= 1:
        for a in _knitted_straight(concealed):
            out.append(Arrangement(KNITTED_STRAIGHT, meld_groups + a.groups))
    return out


def meld_group(kind: str, first: int, concealed: bool) -> Group:
    return Group(kind, first, concealed=concealed, meld=True)
