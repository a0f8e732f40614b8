"""Random winning hands, with the way each part is shown on the table.

The generator only needs hands that are legal in shape (four or five sets and a pair, no tile more than four
times, each bonus tile once): the layout step and the detector do not care whether a hand is worth much, so a
small generator of its own keeps the synthetic data independent of the scoring code it will later test.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mjlens.scoring.tiles import BONUS_CODES, PLAYING_CODES, sort_key

#: How often each kind of set is drawn (chows are the most common set in real hands).
SET_KIND_WEIGHTS = {"chow": 0.5, "pung": 0.38, "kong": 0.12}
#: Exposed sets per hand: 0, 1, 2, 3, 4 (most photographed hands have one or two melds laid open).
EXPOSED_COUNT_WEIGHTS = (0.22, 0.3, 0.26, 0.14, 0.08)
#: Bonus tiles per hand: 0..4; a few hands show more.
FLOWER_COUNT_WEIGHTS = (0.2, 0.22, 0.22, 0.16, 0.1, 0.05, 0.05)
#: Share of pungs, kongs and pairs made of honour tiles.
P_HONOUR_SET = 0.4


@dataclass
class MeldShown:
    """A set laid apart from the concealed row: an exposed meld or a concealed kong shown with backs."""

    kind: str
    tiles: list[str]
    concealed: bool = False
    sideways: int | None = None  # index of the tile turned sideways (the claimed tile), exposed melds only
    backs: list[int] = field(default_factory=list)  # indices shown face down (concealed kongs)
    stacked: bool = False  # an exposed kong laid as three with the fourth on the middle one

    def to_json(self) -> dict:
        out: dict = {"kind": self.kind, "tiles": list(self.tiles), "concealed": self.concealed}
        if self.sideways is not None:
            out["claimed"] = self.tiles[self.sideways]
            # the turned tile points at the seat it came from: first = left, last = right, else across
            last = len(self.tiles) - 1
            out["from"] = "left" if self.sideways == 0 else ("right" if self.sideways == last else "across")
        return out


@dataclass
class HandShown:
    """A winning hand and how it lies: row order, melds, flowers, whether the winning tile is set apart."""

    row: list[str]  # the concealed row as laid, left to right (winning tile excluded when set apart)
    melds: list[MeldShown]
    winning: str
    winning_apart: bool
    winning_side: str  # "right" or "left": the end of the row the winning tile is set at
    flowers: list[str]

    def hand_json(self) -> dict:
        """The Hand JSON (CONVENTIONS §2) that the layout step should read from this table."""
        concealed = sorted(self.row, key=sort_key)
        return {
            "concealed": concealed,
            "melds": [m.to_json() for m in self.melds],
            "winning_tile": self.winning if self.winning_apart else None,
            "flowers": sorted(self.flowers, key=sort_key),
        }


class TilePool:
    """The 136 playing tiles (4 of each) still unused, so a hand and its clutter never show a 5th copy."""

    def __init__(self) -> None:
        self.left = {c: 4 for c in PLAYING_CODES}
        self.bonus = set(BONUS_CODES)

    def take(self, code: str, n: int = 1) -> bool:
        if self.left[code] < n:
            return False
        self.left[code] -= n
        return True

    def random(self, rng: np.random.Generator) -> str | None:
        codes = [c for c, n in self.left.items() if n > 0]
        if not codes:
            return None
        code = codes[int(rng.integers(len(codes)))]
        self.left[code] -= 1
        return code


def _draw_set(rng: np.random.Generator, pool: TilePool) -> tuple[str, list[str]] | None:
    kinds = list(SET_KIND_WEIGHTS)
    kind = kinds[int(rng.choice(len(kinds), p=list(SET_KIND_WEIGHTS.values())))]
    if kind == "chow":
        suit = "mps"[int(rng.integers(3))]
        start = int(rng.integers(1, 8))
        tiles = [f"{start + k}{suit}" for k in range(3)]
        if all(pool.left[t] >= 1 for t in tiles):
            for t in tiles:
                pool.take(t)
            return kind, tiles
        return None
    # honours are drawn more often than their share of codes (7 of 34): chows never hold them, and the detector
    # needs to see them as often as the suit tiles
    if rng.random() < P_HONOUR_SET:
        code = f"{int(rng.integers(1, 8))}z"
    else:
        code = PLAYING_CODES[int(rng.integers(27))]
    n = 3 if kind == "pung" else 4
    return (kind, [code] * n) if pool.take(code, n) else None


def random_hand(rng: np.random.Generator, pool: TilePool, taiwan: bool = False) -> HandShown:
    """A random winning hand of 14 tiles (17 with ``taiwan``), drawn from ``pool``."""
    n_sets = 5 if taiwan else 4
    sets: list[tuple[str, list[str]]] = []
    while len(sets) < n_sets:
        drawn = _draw_set(rng, pool)
        if drawn:
            sets.append(drawn)
    while True:
        pair = f"{int(rng.integers(1, 8))}z" if rng.random() < P_HONOUR_SET else PLAYING_CODES[int(rng.integers(27))]
        if pool.take(pair, 2):
            break
    n_exposed = int(rng.choice(len(EXPOSED_COUNT_WEIGHTS), p=EXPOSED_COUNT_WEIGHTS))
    n_exposed = min(n_exposed, n_sets)
    order = rng.permutation(n_sets)
    exposed_ids = set(int(i) for i in order[:n_exposed])
    melds: list[MeldShown] = []
    concealed_tiles: list[str] = [pair, pair]
    for i, (kind, tiles) in enumerate(sets):
        if kind == "kong":
            if i in exposed_ids:
                melds.append(_exposed(rng, kind, tiles))
            else:  # a concealed kong is always laid apart, two or four of its tiles face down
                pattern = rng.random()
                backs = [0, 1, 2, 3] if pattern < 0.2 else ([0, 3] if pattern < 0.65 else [1, 2])
                melds.append(MeldShown(kind, tiles, concealed=True, backs=backs))
        elif i in exposed_ids:
            melds.append(_exposed(rng, kind, tiles))
        else:
            concealed_tiles.extend(tiles)
    rng.shuffle(melds)
    winning = concealed_tiles[int(rng.integers(len(concealed_tiles)))]
    winning_apart = bool(rng.random() < 0.65)
    row = list(concealed_tiles)
    if winning_apart:
        row.remove(winning)
    if rng.random() < 0.85:
        row.sort(key=sort_key)
    else:
        rng.shuffle(row)
    n_flowers = int(rng.choice(len(FLOWER_COUNT_WEIGHTS), p=FLOWER_COUNT_WEIGHTS))
    flowers = [str(f) for f in rng.choice(sorted(pool.bonus), size=n_flowers, replace=False)]
    for f in flowers:
        pool.bonus.discard(f)
    flowers.sort(key=sort_key)
    side = "right" if rng.random() < 0.8 else "left"
    return HandShown(row, melds, winning, winning_apart, side, flowers)


def _exposed(rng: np.random.Generator, kind: str, tiles: list[str]) -> MeldShown:
    tiles = list(tiles)
    if kind == "chow":
        # the claimed tile is any of the three; a player puts it first or lays the run in order
        tiles.sort(key=sort_key)
    sideways = int(rng.integers(len(tiles))) if rng.random() < 0.5 else None
    return MeldShown(kind, tiles, sideways=sideways)
