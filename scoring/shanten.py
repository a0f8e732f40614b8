"""Shanten (向聽): how many tiles a hand is from ready, over every shape a rule system accepts.

A hand of 3k + 1 concealed tiles (13 with no melds) is ready at 0; a hand of 3k + 2 tiles that wins is -1.
Counting is by shape only, as the usual calculators (and pymahjonggb) count: a tile is never "used up", so a
hand whose only wait is a tile it holds four of is still ready (``wait_values`` reports such a hand's
waits as none left).

The standard shape is counted suit by suit: each suit's best splits into sets, partial sets and a pair are
cached by the suit's nine counts (the same suit patterns recur from hand to hand), then the suits are joined.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from .decompose import KNITTED_RUNS, KNITTED_SUIT_ORDERS, Shapes
from .tiles import SUIT_OF, TERMINALS_AND_HONORS
from .waits import candidate_tiles

#: One way to split tiles: (sets, partial sets, pair taken as the head: 0 or 1).
Split = tuple[int, int, int]

#: For each order of the 147/258/369 runs, the nine tile indices of the knitted straight.
KNITTED_TILES: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for run, suit in enumerate(order) for t in KNITTED_RUNS[(suit, run)]) for order in KNITTED_SUIT_ORDERS
)


def _pareto(splits: set[Split]) -> tuple[Split, ...]:
    """Keep the splits no other split beats. A split is worth min(m, k) + min(m + t, k) + h, so one with at
    least the sets, at least the sets + partials and the same head is worth at least as much for every k."""
    kept: list[Split] = []
    for s in sorted(splits, key=lambda s: (-s[0], -(s[0] + s[1]))):
        if not any(k[2] == s[2] and k[0] >= s[0] and k[0] + k[1] >= s[0] + s[1] for k in kept):
            kept.append(s)
    return tuple(kept)


@lru_cache(maxsize=1 << 17)
def _suit_splits(counts: tuple[int, ...]) -> tuple[Split, ...]:
    """Every useful split of one suit's nine counts into sets, partial sets and at most one head pair."""
    i = next((k for k, n in enumerate(counts) if n), -1)
    if i < 0:
        return ((0, 0, 0),)
    out: set[Split] = set()
    c = list(counts)

    def add(removed: dict[int, int], sets: int, partials: int, head: int) -> None:
        for k, n in removed.items():
            c[k] -= n
        for m, t, h in _suit_splits(tuple(c)):
            if h + head <= 1:
                out.add((m + sets, t + partials, h + head))
        for k, n in removed.items():
            c[k] += n

    add({i: 1}, 0, 0, 0)  # the tile left alone
    if c[i] >= 3:
        add({i: 3}, 1, 0, 0)
    if c[i] >= 2:
        add({i: 2}, 0, 0, 1)
        add({i: 2}, 0, 1, 0)
    if i <= 6 and c[i + 1] and c[i + 2]:
        add({i: 1, i + 1: 1, i + 2: 1}, 1, 0, 0)
    if i <= 7 and c[i + 1]:
        add({i: 1, i + 1: 1}, 0, 1, 0)
    if i <= 6 and c[i + 2]:
        add({i: 1, i + 2: 1}, 0, 1, 0)
    return _pareto(out)


@lru_cache(maxsize=16)
def _honour_splits(n: int) -> tuple[Split, ...]:
    """The splits of n copies of one honour: an honour makes no chow, so its splits are a suit's with one
    tile (a fifth copy can appear in a hand tried with one more tile)."""
    return _suit_splits((n,) + (0,) * 8)


@lru_cache(maxsize=1 << 16)
def _join(a: tuple[Split, ...], b: tuple[Split, ...]) -> tuple[Split, ...]:
    return _pareto({(x[0] + y[0], x[1] + y[1], x[2] + y[2]) for x in a for y in b if x[2] + y[2] <= 1})


def _honours_splits(counts: Sequence[int]) -> tuple[Split, ...]:
    out: tuple[Split, ...] = ((0, 0, 0),)
    for t in range(27, 34):
        if counts[t]:
            out = _join(out, _honour_splits(counts[t]))
    return out


def _group_splits(counts: Sequence[int]) -> list[tuple[Split, ...]]:
    """The splits of each suit (m, p, s), then of the honours together."""
    return [_suit_splits(tuple(counts[0:9])), _suit_splits(tuple(counts[9:18])), _suit_splits(tuple(counts[18:27])),
            _honours_splits(counts)]


def _distance(splits: tuple[Split, ...], sets: int) -> int:
    """2k - 2m - t - h for the best split, sets m counted up to k and partials t up to the sets missing."""
    return 2 * sets - max(min(m, sets) + min(m + p, sets) + h for m, p, h in splits)


def regular_shanten(counts: Sequence[int], sets: int) -> int:
    """Shanten of ``counts`` (concealed tiles) towards ``sets`` sets and a pair."""
    a, b, c, d = _group_splits(counts)
    return _distance(_join(_join(a, b), _join(c, d)), sets)


def seven_pairs_shanten(counts: Sequence[int], distinct: bool = False) -> int:
    """Seven pairs: four of a kind counts two pairs, as the scorers read it, except where the pairs must be
    ``distinct`` (riichi), where each kind held makes one pair at most and seven kinds are needed."""
    if distinct:
        return 6 - sum(1 for n in counts if n >= 2) + max(0, 7 - sum(1 for n in counts if n))
    return 6 - sum(n // 2 for n in counts)


def thirteen_orphans_shanten(counts: Sequence[int]) -> int:
    held = [counts[t] for t in TERMINALS_AND_HONORS]
    return 13 - sum(1 for n in held if n) - (1 if any(n >= 2 for n in held) else 0)


def honors_and_knitted_shanten(counts: Sequence[int]) -> int:
    """全不靠: fourteen different tiles among the honours and one knitted straight's nine."""
    honours = sum(1 for n in counts[27:34] if n)
    return 13 - honours - max(sum(1 for t in tiles if counts[t]) for tiles in KNITTED_TILES)


def knitted_straight_shanten(counts: Sequence[int], melds: int, bound: int = 99) -> int:
    """組合龍 (a knitted straight) and one set and a pair: the knitted tiles missing, plus the rest's distance.
    An order whose missing tiles alone reach ``bound`` (a distance already found) is not counted further."""
    best = bound
    for tiles in KNITTED_TILES:
        held = sum(1 for t in tiles if counts[t])
        if 8 - held >= best:  # the rest is at best -1 away: this order cannot do better
            continue
        rest = list(counts)
        for t in tiles:
            if rest[t]:
                rest[t] -= 1
        best = min(best, 9 - held + regular_shanten(rest, 1 - melds))
    return best


def seven_pairs_pung_shanten(counts: Sequence[int]) -> int:
    """嚦咕嚦咕 (Taiwan, 17 tiles): seven pairs and a pung. The tiles to add, less one, for the best tile to
    make the pung: each pair missing takes one tile where a lone tile waits for its partner, two otherwise."""
    all_pairs = sum(n // 2 for n in counts)
    all_singles = sum(n % 2 for n in counts)
    best = 99
    for n in counts:
        took = min(n, 3)
        pairs = min(all_pairs - n // 2 + (n - took) // 2, 7)
        singles = all_singles - n % 2 + (n - took) % 2
        missing = 7 - pairs
        from_singles = min(missing, singles)
        best = min(best, (3 - took) + from_singles + 2 * (missing - from_singles) - 1)
    return best


#: The special shapes' distances, by shape name, as (counts, melds) -> int.
SPECIAL_SHANTEN: dict[str, Callable[[Sequence[int], int], int]] = {
    "seven_pairs": lambda c, _: seven_pairs_shanten(c),
    "thirteen_orphans": lambda c, _: thirteen_orphans_shanten(c),
    "honors_and_knitted": lambda c, _: honors_and_knitted_shanten(c),
    "seven_pairs_pung": lambda c, _: seven_pairs_pung_shanten(c),
    "knitted_straight": knitted_straight_shanten,
}


def _special_shanten(name: str, counts: Sequence[int], melds: int, shapes: Shapes) -> int:
    if name == "seven_pairs":
        return seven_pairs_shanten(counts, shapes.distinct_pairs)
    return SPECIAL_SHANTEN[name](counts, melds)


def shanten_by_shape(counts: Sequence[int], melds: int, shapes: Shapes) -> dict[str, int]:
    """The distance of ``counts`` (concealed tiles, 3k + 1 or 3k + 2 of them) to each shape the rules accept;
    ``melds`` declared melds (kongs included) stand beside them."""
    out = {"standard": regular_shanten(counts, shapes.sets - melds)}
    if melds == 0:
        if shapes.seven_pairs:
            out["seven_pairs"] = seven_pairs_shanten(counts, shapes.distinct_pairs)
        if shapes.thirteen_orphans:
            out["thirteen_orphans"] = thirteen_orphans_shanten(counts)
        if shapes.knitted:
            out["honors_and_knitted"] = honors_and_knitted_shanten(counts)
        if shapes.seven_pairs_pung:
            out["seven_pairs_pung"] = seven_pairs_pung_shanten(counts)
    if shapes.knitted and melds <= 1:
        out["knitted_straight"] = knitted_straight_shanten(counts, melds)
    return out


def shanten(counts: Sequence[int], melds: int, shapes: Shapes) -> int:
    """The least distance to any shape the rules accept: ``min(shanten_by_shape(...).values())``, skipping the
    knitted straight's orders that cannot do better."""
    best = regular_shanten(counts, shapes.sets - melds)
    if melds == 0:
        if shapes.seven_pairs:
            best = min(best, seven_pairs_shanten(counts, shapes.distinct_pairs))
        if shapes.thirteen_orphans:
            best = min(best, thirteen_orphans_shanten(counts))
        if shapes.knitted:
            best = min(best, honors_and_knitted_shanten(counts))
        if shapes.seven_pairs_pung:
            best = min(best, seven_pairs_pung_shanten(counts))
    if shapes.knitted and melds <= 1:
        best = knitted_straight_shanten(counts, melds, best)
    return best


def useful_tiles(counts: Sequence[int], melds: int, shapes: Shapes, held: Sequence[int] | None = None) -> list[int]:
    """Tiles that, drawn, bring a hand of 3k + 1 tiles nearer to ready (受入), by shape. A tile of which ``held``
    (every tile the player holds, melds included; default ``counts``) has four cannot be drawn.

    A tile lowers the distance only through a shape already at the least distance (one tile moves a shape by
    one at most), so only those shapes are tried; the standard shape recounts only the drawn tile's suit."""
    by_shape = shanten_by_shape(counts, melds, shapes)
    current = min(by_shape.values())
    held = counts if held is None else held
    close = {name for name, n in by_shape.items() if n == current}
    special = close - {"standard"}
    c = list(counts)
    out = []
    if "standard" in close:
        sets = shapes.sets - melds
        m, p, s, z = _group_splits(counts)
        others = [_join(_join(p, s), z), _join(_join(m, s), z), _join(_join(m, p), z), _join(_join(m, p), s)]
        near = candidate_tiles(counts)
    for t in range(34):
        if held[t] >= 4:
            continue
        c[t] += 1
        if "standard" in close and t in near:
            suit = SUIT_OF[t]
            mine = _suit_splits(tuple(c[9 * suit:9 * suit + 9])) if suit < 3 else _honours_splits(c)
            if _distance(_join(others[suit], mine), sets) < current:
                out.append(t)
                c[t] -= 1
                continue
        if special and min(_special_shanten(name, c, melds, shapes) for name in special) < current:
            out.append(t)
        c[t] -= 1
    return out
