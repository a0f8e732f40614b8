"""Procedural table surfaces: felt, wood, cloth, paper, stone. Drawn at a few pixels per tile unit and scaled up,
so the grain keeps its real size whatever the zoom; fine noise is added at full resolution.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Surface kinds and how often each is drawn (automatic-table felt is the most common in real photos).
SURFACE_WEIGHTS = {"felt": 0.38, "wood": 0.22, "cloth": 0.14, "paper": 0.12, "stone": 0.14}

FELT_COLOURS = [(60, 140, 40), (70, 120, 30), (120, 90, 30), (90, 90, 90), (40, 40, 140), (50, 110, 60), (40, 60, 40)]
WOOD_COLOURS = [(40, 80, 140), (30, 60, 110), (60, 110, 170), (50, 90, 120), (80, 130, 180)]
CLOTH_COLOURS = [(200, 200, 200), (60, 60, 180), (150, 100, 60), (90, 160, 200), (120, 120, 120), (40, 40, 40)]
PAPER_COLOURS = [(225, 232, 236), (210, 225, 232), (235, 235, 235), (200, 210, 220)]
STONE_COLOURS = [(200, 200, 200), (150, 150, 150), (90, 90, 90), (200, 205, 215)]


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: float) -> np.ndarray:
    """Low-frequency noise in about [-1, 1]: random values on a coarse grid, resized with cubic interpolation."""
    gh, gw = max(2, int(h / cells) + 2), max(2, int(w / cells) + 2)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _jitter(rng: np.random.Generator, colour, spread: float = 18.0) -> np.ndarray:
    return np.clip(np.array(colour, np.float32) + rng.normal(0, spread, 3), 0, 255)


def surface(rng: np.random.Generator, width: int, height: int, ppu: float) -> np.ndarray:
    """A BGR uint8 table surface of ``width`` x ``height`` pixels at ``ppu`` pixels per tile unit."""
    kinds = list(SURFACE_WEIGHTS)
    kind = kinds[int(rng.choice(len(kinds), p=list(SURFACE_WEIGHTS.values())))]
    scale = 6.0  # pixels per tile unit of the base drawing
    bw = max(8, int(width / ppu * scale))
    bh = max(8, int(height / ppu * scale))
    base = _DRAW[kind](rng, bh, bw, scale)
    out = cv2.resize(base.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
    # fine grain: a small noise patch repeated (drawing a fresh normal sample per pixel of a large canvas is the
    # slowest step of a picture, and a 128 px repeat cannot be seen under the table's own texture)
    patch = rng.normal(0, float(rng.uniform(2, 9)), (128, 128)).astype(np.float32)
    reps = (height // 128 + 2, width // 128 + 2)
    oy, ox = int(rng.integers(128)), int(rng.integers(128))
    grain = np.tile(patch, reps)[oy : oy + height, ox : ox + width]
    out += grain[..., None]
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


def _felt(rng, h, w, scale):
    colour = _jitter(rng, FELT_COLOURS[int(rng.integers(len(FELT_COLOURS)))])
    mottle = _smooth_noise(rng, h, w, scale * 3)[..., None] * 6
    return colour[None, None, :] + mottle + rng.normal(0, 5, (h, w, 1)).astype(np.float32)


def _wood(rng, h, w, scale):
    colour = _jitter(rng, WOOD_COLOURS[int(rng.integers(len(WOOD_COLOURS)))], 12)
    angle = rng.uniform(0, np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = -xx * np.sin(angle) + yy * np.cos(angle)  # grain lines and plank edges run along the angle
    warp = _smooth_noise(rng, h, w, scale * 4) * rng.uniform(0.5, 2.5)
    rings = np.sin((across + warp) / rng.uniform(0.8, 2.5)) * 0.5 + 0.5
    rings = rings**2 * 0.6 + 0.4 * (_smooth_noise(rng, h, w, 1.2) * 0.5 + 0.5)
    plank = np.floor(across / (scale * rng.uniform(3, 8)))
    plank_tone = (np.sin(plank * 12.9898) * 43758.5453) % 1.0
    shade = 0.8 + 0.22 * rings + 0.12 * (plank_tone - 0.5)
    return colour[None, None, :] * shade[..., None]


def _cloth(rng, h, w, scale):
    a = _jitter(rng, CLOTH_COLOURS[int(rng.integers(len(CLOTH_COLOURS)))])
    b = _jitter(rng, CLOTH_COLOURS[int(rng.integers(len(CLOTH_COLOURS)))])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = scale * rng.uniform(0.6, 3.0)
    if rng.random() < 0.5:  # gingham
        m = ((np.floor(xx / period) + np.floor(yy / period)) % 2)[..., None]
        mix = 0.5 * m + 0.25
    else:  # stripes
        mix = (np.sin(xx / period * np.pi) > 0)[..., None].astype(np.float32)
    weave = (np.sin(xx * 2.0) * np.sin(yy * 2.0))[..., None] * 6
    return a * mix + b * (1 - mix) + weave


def _paper(rng, h, w, scale):
    colour = _jitter(rng, PAPER_COLOURS[int(rng.integers(len(PAPER_COLOURS)))], 8)
    fibres = _smooth_noise(rng, h, w, 1.5)[..., None] * 3
    return colour[None, None, :] + fibres + _smooth_noise(rng, h, w, scale * 4)[..., None] * 5


def _stone(rng, h, w, scale):
    colour = _jitter(rng, STONE_COLOURS[int(rng.integers(len(STONE_COLOURS)))], 10)
    n = _smooth_noise(rng, h, w, scale * 2) + 0.5 * _smooth_noise(rng, h, w, scale * 0.7)
    veins = np.abs(np.sin(n * 3.0))[..., None]
    return colour[None, None, :] * (0.82 + 0.18 * veins)


_DRAW = {"felt": _felt, "wood": _wood, "cloth": _cloth, "paper": _paper, "stone": _stone}
