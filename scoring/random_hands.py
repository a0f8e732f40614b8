"""Seeded random legal winning hands, for differential tests and benchmarks of every rule system.

``random_winning_hand(rng, sets=4)`` draws a hand from a 136-tile set (never a fifth copy): chows, pungs
and kongs, exposed or concealed; a winning tile taken from the concealed part; self-draw or discard; seat
and round winds; bonus tiles; and win flags only where the tiles allow them (a kong replacement needs a
kong, robbing a kong needs the tile not to be held, the last of a kind needs no copy in hand). With
``sets=4`` a share of the hands take the special shapes: seven pairs, thirteen orphans, honours and
knitted tiles, and a knitted straight with a set and a pair. Taiwan hands use ``sets=5``.

The hands are biased towards the patterns scorers get wrong (one suit, terminals, shifted sets, winds and
dragons), so a few thousand of them reach most scoring items. The same seed always gives the same hands.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .decompose import KNITTED_RUNS, KNITTED_SUIT_ORDERS
from .hand import Context, Hand, Meld
from .tiles import BONUS_CODES, PLAYING_CODES, TERMINALS_AND_HONORS, WIND_LETTERS

SPECIAL_SHARE = 0.14  # share of special shapes among 4-set hands


class _Pool:
    """The tiles still available: four copies of each of the 34."""

    def __init__(self) -> None:
        self.left = [4] * 34

    def take(self, tiles: list[int]) -> bool:
        need: dict[int, int] = {}
        for t in tiles:
            need[t] = need.get(t, 0) + 1
        if any(self.left[t] < n for t, n in need.items()):
            return False
        for t, n in need.items():
            self.left[t] -= n
        return True


def _theme(rng: random.Random) -> list[int]:
    """The tiles a hand is drawn from: everything, or a narrower set that makes patterns likely."""
    r = rng.random()
    suit = rng.randrange(3)
    honors = list(range(27, 34))
    if r < 0.45:
        return list(range(34))
    if r < 0.60:
        return [9 * suit + k for k in range(9)]
    if r < 0.72:
        return [9 * suit + k for k in range(9)] + rng.sample(honors, rng.randint(1, 7))
    if r < 0.78:
        return list(TERMINALS_AND_HONORS)
    if r < 0.84:
        return [9 * s + k for s in range(3) for k in range(1, 8)]  # simples
    if r < 0.90:
        lo = rng.choice((0, 3, 5))
        return [9 * s + k for s in range(3) for k in range(lo, min(lo + 4, 9))]
    if r < 0.93:
        return [i for i in range(34) if PLAYING_CODES[i] in {"2s", "3s", "4s", "6s", "8s", "6z"}] + [
            9 * suit + k for k in range(9)]
    if r < 0.95:
        return [9 * s + k for s in range(3) for k in (1, 3, 5, 7)]  # even tiles
    if r < 0.97:  # winds and dragons heavy
        return honors * 3 + [9 * suit + k for k in range(9)]
    if r < 0.98:  # terminal chows and fives
        return [9 * s + k for s in range(3) for k in (0, 1, 2, 4, 6, 7, 8)]
    return [9 * s + k for s in rng.sample(range(3), 2) for k in range(9)] + honors


def _random_set(rng: random.Random, allowed: list[int], pool: _Pool) -> tuple[str, int] | None:
    r = rng.random()
    kind = "chow" if r < 0.5 else "pung" if r < 0.88 else "kong"
    for _ in range(20):
        t = rng.choice(allowed)
        if kind == "chow":
            if t >= 27 or t % 9 > 6 or t + 2 not in allowed:
                continue
            if pool.take([t, t + 1, t + 2]):
                return kind, t
        elif pool.take([t] * (3 if kind == "pung" else 4)):
            return kind, t
    return None


def _standard(rng: random.Random, sets: int, pool: _Pool) -> tuple[list[int], list[Meld]] | None:
    if sets == 4 and rng.random() < 0.04:
        pattern = _pattern(rng, pool)
        if pattern is None:
            return None
        pair = next(t for kind, t in pattern if kind == "pair")
        return _lay_out(rng, [g for g in pattern if g[0] != "pair"], pair)
    allowed = _theme(rng)
    if rng.random() < 0.15:  # repeated or shifted sets: start from one set and lean on its neighbours
        base = rng.choice([t for t in allowed if t < 27] or allowed)
        allowed = allowed + [t for t in range(max(0, base - 2), min(34, base + 4)) if (t < 27) == (base < 27)] * 6
    groups: list[tuple[str, int]] = []
    for _ in range(sets):
        g = _random_set(rng, allowed, pool)
        if g is None:
            return None
        groups.append(g)
    pair_choices = [t for t in set(allowed) if pool.left[t] >= 2]
    if not pair_choices:
        return None
    pair = rng.choice(pair_choices)
    pool.take([pair, pair])
    return _lay_out(rng, groups, pair)


def _lay_out(rng: random.Random, groups: list[tuple[str, int]], pair: int) -> tuple[list[int], list[Meld]]:
    """Decide which sets are declared (exposed or concealed kongs) and which stay in the hand."""
    open_share = rng.choice((0.0, 0.0, 0.2, 0.4, 0.7, 1.0))
    concealed: list[int] = [pair, pair]
    melds: list[Meld] = []
    for kind, t in groups:
        tiles = _tiles(kind, t)
        codes = tuple(PLAYING_CODES[i] for i in tiles)
        if kind == "kong":
            melds.append(Meld("kong", codes, concealed=rng.random() < 0.4))
        elif rng.random() < open_share:
            melds.append(Meld(kind, codes))
        else:
            concealed.extend(tiles)
    return concealed, melds


#: Rare hands spelled out: (kind, tile) sets plus a pair, tile = 9 * suit + rank - 1 with suit letters a, b, c
#: standing for three different suits (chosen per hand), or an honour index (27..33).
_PATTERNS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("pung", "27"), ("pung", "28"), ("pung", "29"), ("pung", "30"), ("pair", "a4")),  # big four winds
    (("pung", "27"), ("pung", "28"), ("pung", "29"), ("chow", "a1"), ("pair", "30")),  # little four winds
    (("pung", "31"), ("pung", "32"), ("pung", "33"), ("chow", "a2"), ("pair", "a8")),  # big three dragons
    (("pung", "31"), ("pung", "32"), ("chow", "a5"), ("chow", "b1"), ("pair", "33")),  # little three dragons
    (("chow", "a0"), ("chow", "a0"), ("chow", "a6"), ("chow", "a6"), ("pair", "a4")),  # pure terminal chows
    (("chow", "a0"), ("chow", "a6"), ("chow", "b0"), ("chow", "b6"), ("pair", "c4")),  # three-suited
    (("pung", "a0"), ("pung", "a8"), ("pung", "b0"), ("pung", "c8"), ("pair", "b8")),  # all terminals
    (("pung", "27"), ("pung", "31"), ("pung", "33"), ("pung", "29"), ("pair", "30")),  # all honours
    (("pung", "a0"), ("pung", "b0"), ("pung", "c0"), ("chow", "a5"), ("pair", "32")),  # triple pung
    (("chow", "a0"), ("chow", "a3"), ("chow", "a6"), ("pung", "b4"), ("pair", "28")),  # pure straight
    (("chow", "a0"), ("chow", "b3"), ("chow", "c6"), ("chow", "a3"), ("pair", "b1")),  # mixed straight
    (("pung", "a1"), ("pung", "b3"), ("pung", "c5"), ("pung", "a7"), ("pair", "b7")),  # all even pungs
)


def _pattern(rng: random.Random, pool: _Pool) -> list[tuple[str, int]] | None:
    suits = rng.sample(range(3), 3)
    groups = []
    kong_share = 1.0 if rng.random() < 0.1 else 0.2
    for kind, where in rng.choice(_PATTERNS):
        t = int(where) if where.isdigit() else 9 * suits["abc".index(where[0])] + int(where[1])
        if kind == "pung" and rng.random() < kong_share:
            kind = "kong"
        groups.append((kind, t))
    tiles = [u for kind, t in groups for u in _tiles(kind, t)]
    return groups if pool.take(tiles) else None


def _tiles(kind: str, t: int) -> list[int]:
    return {"chow": [t, t + 1, t + 2], "pung": [t] * 3, "kong": [t] * 4, "pair": [t, t]}[kind]


def _knitted_tiles(rng: random.Random) -> list[int]:
    order = rng.choice(KNITTED_SUIT_ORDERS)
    return [t for run, suit in enumerate(order) for t in KNITTED_RUNS[(suit, run)]]


def _special(rng: random.Random, pool: _Pool) -> tuple[list[int], list[Meld]] | None:
    r = rng.random()
    if r < 0.04:  # nine gates: 1112345678999 of a suit and one more of that suit
        base = 9 * rng.randrange(3)
        tiles = [base] * 3 + list(range(base + 1, base + 8)) + [base + 8] * 3 + [base + rng.randrange(9)]
        return (tiles, []) if pool.take(tiles) else None
    if r < 0.35:  # seven pairs (a four of a kind now and then counts as two pairs)
        allowed = _theme(rng)
        if rng.random() < 0.15:
            start = 9 * rng.randrange(3) + rng.randrange(3)
            kinds = list(range(start, start + 7))
        else:
            kinds = rng.sample(sorted(set(allowed)) if len(set(allowed)) >= 7 else list(range(34)), 7)
            if rng.random() < 0.1:
                kinds[-1] = kinds[0]
        tiles = [t for k in kinds for t in (k, k)]
        return (tiles, []) if pool.take(tiles) else None
    if r < 0.50:  # thirteen orphans
        tiles = list(TERMINALS_AND_HONORS) + [rng.choice(TERMINALS_AND_HONORS)]
        return (tiles, []) if pool.take(tiles) else None
    if r < 0.72:  # honours and knitted tiles: 14 of the 9 knitted tiles and the 7 honours
        knitted = _knitted_tiles(rng)
        honors = list(range(27, 34))
        if rng.random() < 0.3:
            tiles = rng.sample(knitted, 7) + honors
        else:
            tiles = rng.sample(knitted + honors, 14)
        return (tiles, []) if pool.take(tiles) else None
    # knitted straight with a set and a pair; the set may be a declared meld
    knitted = _knitted_tiles(rng)
    if not pool.take(knitted):
        return None
    g = _random_set(rng, list(range(34)), pool)
    pair_choices = [t for t in range(34) if pool.left[t] >= 2]
    if g is None or not pair_choices:
        return None
    pair = rng.choice(pair_choices)
    pool.take([pair, pair])
    kind, t = g
    tiles = [t, t + 1, t + 2] if kind == "chow" else [t] * (3 if kind == "pung" else 4)
    concealed = knitted + [pair, pair]
    melds: list[Meld] = []
    if kind == "kong" or rng.random() < 0.3:
        codes = tuple(PLAYING_CODES[i] for i in tiles)
        melds.append(Meld(kind, codes, concealed=kind == "kong" and rng.random() < 0.4))
    else:
        concealed.extend(tiles)
    return concealed, melds


def _context(rng: random.Random, concealed: list[int], melds: list[Meld], win: int) -> Context:
    self_drawn = rng.random() < 0.4
    in_hand = concealed.count(win) - 1  # copies held besides the winning tile
    in_melds = sum(m.tiles.count(PLAYING_CODES[win]) for m in melds)
    has_kong = any(m.kind == "kong" for m in melds)
    kong_replacement = self_drawn and has_kong and rng.random() < 0.12
    robbing_kong = not self_drawn and in_hand == 0 and in_melds == 0 and rng.random() < 0.05
    last_tile = not robbing_kong and rng.random() < 0.06
    last_of_kind = not robbing_kong and in_hand == 0 and rng.random() < 0.1
    if in_melds == 3:
        last_of_kind = True  # three copies on the table: the winning tile is the last one
    return Context(
        self_drawn=self_drawn, seat_wind=rng.choice(WIND_LETTERS), round_wind=rng.choice(WIND_LETTERS),
        dealer=rng.random() < 0.25, last_tile=last_tile, kong_replacement=kong_replacement,
        robbing_kong=robbing_kong, last_of_kind=last_of_kind,
    )


def random_winning_hand(rng: random.Random, sets: int = 4, special: float | None = None,
                        flowers: bool = True) -> Hand:
    """One random legal winning hand with ``sets`` sets and a pair (or a special shape when sets is 4).

    ``special`` is the share of special shapes (default ``SPECIAL_SHARE`` for 4 sets, none otherwise);
    ``flowers`` allows bonus tiles.
    """
    share = (SPECIAL_SHARE if sets == 4 else 0.0) if special is None else special
    while True:
        pool = _Pool()
        drawn = _special(rng, pool) if rng.random() < share else _standard(rng, sets, pool)
        if drawn is not None:
            break
    concealed, melds = drawn
    win = rng.choice(concealed)
    rest = list(concealed)
    rest.remove(win)
    rng.shuffle(rest)
    bonus: tuple[str, ...] = ()
    if flowers and rng.random() < 0.3:
        bonus = tuple(sorted(rng.sample(BONUS_CODES, rng.randint(1, 4))))
    return Hand(
        concealed=tuple(PLAYING_CODES[t] for t in rest), melds=tuple(melds), winning_tile=PLAYING_CODES[win],
        flowers=bonus, context=_context(rng, concealed, melds, win),
    )


def random_hands(seed: int, n: int, sets: int = 4, **kwargs) -> Iterator[Hand]:
    """``n`` hands from one seed (the same seed, the same hands)."""
    rng = random.Random(seed)
    for _ in range(n):
        yield random_winning_hand(rng, sets, **kwargs)
