"""Tiles in piles, as a table shows them away from the hand (``mjlens synth --piles``).

Real photos of a player's own set show more than rows: a heap of tiles pushed together after a hand, turned any
way, some lying on others, some face down; and tiles lying on their long side, where an edge shows and no face
(not a tile to read: never labelled). A heap's tiles are labelled where enough of their face shows; a tile mostly
under another is not (``covered_shares``). Piles draw from a generator of their own, so the hand and every other
draw stay those of the same scene without them.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from mjlens.vision.synth.hands import TilePool
from mjlens.vision.synth.scene import TILE_H, Placed, Scene


@dataclass(frozen=True)
class Piles:
    """How many heaps and loose tiles on their side a scene shows, and what a heap holds."""

    heaps: tuple[int, int] = (1, 2)  # heaps a scene shows, at least and at most
    heap_tiles: tuple[int, int] = (5, 14)
    heap_spread: tuple[float, float] = (1.6, 3.2)  # a heap's radius, tile widths
    p_on_top: float = 0.3  # share of a heap's tiles lying on another
    p_face_down: float = 0.3
    p_on_side: float = 0.12  # share of a heap's tiles lying on their side
    loose_on_side: tuple[int, int] = (0, 3)  # tiles on their side lying alone near the hand


#: A heap's edge keeps this far (tile widths) from the hand's bounds: near enough to be in most pictures.
HEAP_MARGIN = 1.5
#: Pixels a tile unit is drawn at when the share of a tile under others is measured.
_COVER_PPU = 24


def add_piles(rng: np.random.Generator, scene: Scene, pool: TilePool, piles: Piles) -> None:
    """Heaps beside the hand (HEAP_MARGIN from it, clear of other tiles) and tiles on their side near it."""
    x0, y0, x1, y1 = scene.hand_bounds()
    for _ in range(int(rng.integers(piles.heaps[0], piles.heaps[1] + 1))):
        radius = float(rng.uniform(*piles.heap_spread))
        centre = _clear_spot(rng, scene, (x0, y0, x1, y1), radius + HEAP_MARGIN, radius)
        if centre is None:
            continue
        g = len(scene.groups)
        scene.groups.append({"role": "other", "pile": "heap", "tiles": []})
        laid: list[Placed] = []
        for _ in range(int(rng.integers(piles.heap_tiles[0], piles.heap_tiles[1] + 1))):
            code = pool.random(rng)
            if code is None:
                return
            r, a = radius * float(np.sqrt(rng.random())), float(rng.uniform(0, 2 * np.pi))
            x, y = centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)
            under = [t for t in laid if t.level == 0 and not t.side and np.hypot(t.x - x, t.y - y) < 1.0]
            on_top = bool(under) and rng.random() < piles.p_on_top
            if not on_top and any(t.level == 0 and np.hypot(t.x - x, t.y - y) < 0.9 for t in laid):
                continue  # two tiles on the table do not pass through each other
            side = not on_top and rng.random() < piles.p_on_side
            shown = "back" if rng.random() < piles.p_face_down else code
            tile = Placed(shown, code, float(x), float(y), float(rng.uniform(0, 360)), g, level=int(on_top),
                          side=side)
            laid.append(tile)
            scene.tiles.append(tile)
            scene.groups[g]["tiles"].append(len(scene.tiles) - 1)
    count = int(rng.integers(piles.loose_on_side[0], piles.loose_on_side[1] + 1))
    if count:
        g = len(scene.groups)
        scene.groups.append({"role": "other", "pile": "on_side", "tiles": []})
        for _ in range(count):
            spot = _clear_spot(rng, scene, (x0, y0, x1, y1), 1.5, 1.0)
            code = pool.random(rng)
            if spot is None or code is None:
                break
            scene.tiles.append(Placed(code, code, spot[0], spot[1], float(rng.uniform(0, 360)), g, side=True))
            scene.groups[g]["tiles"].append(len(scene.tiles) - 1)


def covered_shares(scene: Scene) -> dict[int, float]:
    """For each tile of a heap lying on the table under another, the share of its footprint that tiles above it
    cover (a stacked kong's tile under the fourth is the hand's, labelled as the layout reads it: not counted)."""
    above = [t for t in scene.tiles if t.level > 0]
    shares: dict[int, float] = {}
    if not above:
        return shares
    for i, tile in enumerate(scene.tiles):
        if tile.level or tile.side or tile.group is None or not scene.groups[tile.group].get("pile"):
            continue
        over = [t for t in above if np.hypot(t.x - tile.x, t.y - tile.y) < TILE_H * 1.2]
        if not over:
            continue
        side = int(np.ceil(TILE_H * 2 * _COVER_PPU))
        origin = np.array([tile.x, tile.y]) - side / (2 * _COVER_PPU)
        own, cover = np.zeros((side, side), np.uint8), np.zeros((side, side), np.uint8)
        cv2.fillPoly(own, [_pixels(tile, origin)], 1)
        for t in over:
            cv2.fillPoly(cover, [_pixels(t, origin)], 1)
        shares[i] = float((own & cover).sum()) / max(float(own.sum()), 1.0)
    return shares


def _pixels(tile: Placed, origin: np.ndarray) -> np.ndarray:
    a = np.radians(tile.angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corners = np.array([[-0.5, -TILE_H / 2], [0.5, -TILE_H / 2], [0.5, TILE_H / 2], [-0.5, TILE_H / 2]])
    xy = corners @ rot.T + np.array([tile.x, tile.y])
    return np.round((xy - origin) * _COVER_PPU).astype(np.int32)


def _clear_spot(rng: np.random.Generator, scene: Scene, hand: tuple[float, float, float, float], away: float,
                radius: float) -> tuple[float, float] | None:
    """A point ``away`` beyond the hand's bounds (at most 3 tiles more) with no tile within ``radius`` + 1."""
    x0, y0, x1, y1 = hand
    placed = np.array([(t.x, t.y) for t in scene.tiles])
    for _ in range(30):
        x = float(rng.uniform(x0 - away - 3, x1 + away + 3))
        y = float(rng.uniform(y0 - away - 3, y1 + away + 3))
        outside = x < x0 - away or x > x1 + away or y < y0 - away or y > y1 + away
        if outside and np.hypot(*(placed - [x, y]).T).min() > radius + 1.0:
            return x, y
    return None
