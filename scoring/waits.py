"""Wait analysis: which tiles complete a hand, and what kind of wait the winning tile filled."""

from __future__ import annotations

from functools import lru_cache

from .decompose import Arrangement, Group, Shapes, arrangements

EDGE = "edge"  # 12 waiting on 3, or 89 waiting on 7
CLOSED = "closed"  # 13 waiting on 2
PAIR = "pair"  # a lone tile waiting for its pair
OPEN = "open"  # 23 waiting on 1 or 4
PUNG = "pung"  # two pairs, waiting on either (shanpon)
SPECIAL = "special"  # a special shape (seven pairs, thirteen orphans, knitted)


def waiting_tiles(concealed: tuple[int, ...], meld_groups: tuple[Group, ...], shapes: Shapes,
                  held: tuple[int, ...] | None = None) -> list[int]:
    """Tiles that would complete the hand. ``held`` counts every tile the player holds (melds included):
    a tile of which all four copies are already held cannot be waited on."""
    held = held or concealed
    out = []
    c = list(concealed)
    for t in range(34):
        if held[t] >= 4:
            continue
        c[t] += 1
        if arrangements(tuple(c), meld_groups, shapes):
            out.append(t)
        c[t] -= 1
    return out


#: For each tile, the tiles that could complete a group with it: itself, and up to two away in its suit.
NEAR: tuple[tuple[int, ...], ...] = tuple(
    (t,) if t >= 27 else tuple(range(max(t - t % 9, t - 2), min(t - t % 9 + 8, t + 2) + 1)) for t in range(34)
)


def candidate_tiles(standing: tuple[int, ...] | list[int]) -> set[int]:
    """Tiles that could complete these tiles in sets and a pair (or pairs and a pung): a held honour, or a
    suited tile within two of a held one. Any other tile would be left alone, so it cannot be waited on."""
    out: set[int] = set()
    for t, n in enumerate(standing):
        if n:
            out.update(NEAR[t])
    return out


@lru_cache(maxsize=1 << 16)
def _suit_sets(c: tuple[int, ...]) -> bool:
    """Can one suit's counts (9 slots) be split into chows and pungs?"""
    i = next((k for k, n in enumerate(c) if n), -1)
    if i < 0:
        return True
    if c[i] >= 3 and _suit_sets(c[:i] + (c[i] - 3,) + c[i + 1:]):
        return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        return _suit_sets(c[:i] + (c[i] - 1, c[i + 1] - 1, c[i + 2] - 1) + c[i + 3:])
    return False


@lru_cache(maxsize=1 << 16)
def _suit_sets_pair(c: tuple[int, ...]) -> bool:
    """Can one suit's counts be split into chows and pungs plus one pair?"""
    return any(n >= 2 and _suit_sets(c[:i] + (n - 2,) + c[i + 1:]) for i, n in enumerate(c))


def is_standard_complete(counts: tuple[int, ...] | list[int]) -> bool:
    """Do these counts (3k + 2 tiles) form sets and a pair? Suit by suit, each suit's answer cached:
    the same suit patterns recur from hand to hand, whole-hand patterns rarely do."""
    pair_found = False
    for base in (0, 9, 18):
        c = tuple(counts[base:base + 9])
        r = sum(c) % 3
        if r == 1:
            return False
        if r == 2:
            if pair_found or not _suit_sets_pair(c):
                return False
            pair_found = True
        elif not _suit_sets(c):
            return False
    for t in range(27, 34):
        n = counts[t]
        if n == 2:
            if pair_found:
                return False
            pair_found = True
        elif n not in (0, 3):
            return False
    return pair_found


def is_seven_pairs_pung(counts: tuple[int, ...] | list[int]) -> bool:
    """Seven pairs and a pung in 17 concealed tiles (Taiwan 嚦咕嚦咕; four of a kind counts two pairs)."""
    if sum(counts) != 17:
        return False
    odd = [n for n in counts if n % 2]
    return odd == [3]


def only_one_wait(standing: tuple[int, ...] | list[int], win: int, held: tuple[int, ...] | list[int],
                  seven_pairs_pung: bool = False) -> bool:
    """True when no tile but ``win`` completes ``standing`` (the concealed tiles before the win) as sets and a
    pair, or as seven pairs and a pung when that shape is allowed (only with no declared melds: pass False
    otherwise). A tile of which ``held`` (every tile the player holds, melds included) counts four cannot be
    waited on. The same answer as ``len(waiting_tiles(...)) == 1`` for a winning hand of these shapes, in a
    fraction of the time: only tiles near a held one are tried, and completeness is checked suit by suit."""
    c = list(standing)
    for t in candidate_tiles(standing):
        if t == win or held[t] >= 4:
            continue
        c[t] += 1
        complete = is_standard_complete(c) or (seven_pairs_pung and is_seven_pairs_pung(c))
        c[t] -= 1
        if complete:
            return False
    return True


def wait_kind(group: Group, winning: int) -> str:
    """The wait that ``winning`` filled inside ``group`` of an arrangement."""
    if group.kind == "pair":
        return PAIR
    if group.kind in ("pung", "kong"):
        return PUNG
    if group.kind == "chow":
        pos = winning - group.first
        if pos == 1:
            return CLOSED
        rank = group.first % 9 + 1
        if (pos == 2 and rank == 1) or (pos == 0 and rank == 7):
            return EDGE
        return OPEN
    return SPECIAL


def placements(arrangement: Arrangement, winning: int) -> list[int]:
    """Indices of the concealed groups the winning tile could sit in (one per distinct group)."""
    seen = set()
    out = []
    for i, g in enumerate(arrangement.groups):
        if g.meld or winning not in g.tiles:
            continue
        key = (g.kind, g.first)
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out
