"""Wait analysis: which tiles complete a hand, and what kind of wait the winning tile filled."""

from __future__ import annotations

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
