"""Hard negatives: photos of a table with things on it that are not tiles, and hand photos with such things beside
the hand.

Each distractor is drawn flat in its own frame at ``ppu`` pixels per tile unit (a tile face is 1 unit wide, about
2.6 cm), with an alpha mask, then laid on the picture with a shadow: for an empty photo on the table canvas before
the camera's perspective warp (so it shows the same perspective, light and degradation as the tile photos); beside
a hand, on the finished picture with a mild keystone of its own, away from every labelled tile. The kinds are
those that a real check read as tiles or that lie on mahjong tables: white and cream rectangles (paper, cards,
blocks of tile-like and other proportions, book spines with a few dark lines), phones, dice, scoring sticks, round
chips, keyboards, the table's edge, hands and sleeves.

Every photo draws from its own generator seeded with (seed, index, NEGATIVE_STREAM); the hand of a hand photo is
``generate_one(seed, index)``'s, so the synth output of existing seeds is untouched.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from mjlens.vision.synth import photo
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.camera import Camera
from mjlens.vision.synth.generate import generate_one, write_data_yaml, write_hand_record, yolo_lines
from mjlens.vision.synth.render import ASPECTS, MAX_CANVAS, RIM_COLOURS
from mjlens.vision.synth.textures import surface

NEGATIVE_STREAM = 2  # the distractors' generator: seeded with (seed, index, NEGATIVE_STREAM)
WHITES = [(236, 240, 242), (222, 232, 238), (205, 225, 235), (245, 245, 245), (200, 215, 225)]  # BGR paper, ivory
SKIN = photo.SKIN
SLEEVES = [(40, 40, 40), (120, 60, 30), (60, 60, 150), (200, 200, 200), (90, 110, 60), (30, 30, 90)]
CHIP_COLOURS = [(235, 238, 240), (40, 40, 200), (200, 80, 30), (40, 160, 40), (30, 30, 30), (30, 200, 230)]
PIP_COLOURS = [(30, 30, 30), (40, 40, 190)]
DISTRACTORS_PER_PHOTO = (1, 4)  # an empty photo shows this many (inclusive); a hand photo 1 to 3
HAND_PHOTO_DISTRACTORS = (1, 3)
MARGIN_TILES = 0.3  # a distractor beside a hand keeps this far (of a tile's width) from every labelled tile


@dataclass
class Patch:
    """A distractor drawn in its own frame: BGR float colours, alpha in [0, 1], height above the table (units)."""

    colour: np.ndarray
    alpha: np.ndarray
    height: float


def _rgb(rng: np.random.Generator, table: list, spread: float = 8.0) -> np.ndarray:
    return np.clip(np.array(table[int(rng.integers(len(table)))], np.float32) + rng.normal(0, spread, 3), 0, 255)


def _canvas(w_units: float, h_units: float, ppu: float) -> tuple[np.ndarray, np.ndarray]:
    w, h = max(4, int(round(w_units * ppu))), max(4, int(round(h_units * ppu)))
    return np.zeros((h, w, 3), np.float32), np.zeros((h, w), np.float32)


def _rect(img, alpha, colour, x0, y0, x1, y1, radius: float = 0.0) -> None:
    """A filled rectangle with rounded corners (pixels of the patch)."""
    mask = np.zeros(alpha.shape, np.uint8)
    r = int(max(0, min(radius, (x1 - x0) / 2, (y1 - y0) / 2)))
    x0, y0, x1, y1 = int(x0), int(y0), int(x1) - 1, int(y1) - 1
    cv2.rectangle(mask, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(mask, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    a = mask.astype(np.float32)[..., None] / 255.0
    img[:] = img * (1 - a) + np.asarray(colour, np.float32) * a
    alpha[:] = np.maximum(alpha, a[..., 0])


def _shade(rng: np.random.Generator, img: np.ndarray) -> None:
    """Soft uneven light across a patch, so flat colours look like things under a lamp."""
    h, w = img.shape[:2]
    ramp = np.linspace(1 - rng.uniform(0, 0.12), 1 + rng.uniform(0, 0.06), w if rng.random() < 0.5 else h)
    img *= (ramp[None, :, None] if len(ramp) == w else ramp[:, None, None])


def paper(rng: np.random.Generator, ppu: float) -> Patch:
    """A sheet, note or card: white or cream, any proportion, sometimes lines of print."""
    w, h = rng.uniform(2.0, 9.0), rng.uniform(2.0, 12.0)
    img, alpha = _canvas(w, h, ppu)
    _rect(img, alpha, _rgb(rng, WHITES), 0, 0, img.shape[1], img.shape[0], 0.05 * ppu)
    if rng.random() < 0.6:
        ink = float(rng.uniform(40, 120))
        step = max(3, int(ppu * rng.uniform(0.25, 0.5)))
        for y in range(int(ppu * 0.8), img.shape[0] - int(ppu * 0.6), step):
            x1 = int(img.shape[1] * rng.uniform(0.5, 0.9))
            cv2.line(img, (int(ppu * 0.6), y), (x1, y), (ink, ink, ink), max(1, step // 4))
    _shade(rng, img)
    return Patch(img, alpha, 0.02)


def block(rng: np.random.Generator, ppu: float) -> Patch:
    """A plain white or cream block of tile-like or other proportions (an eraser, a card box, a sugar cube)."""
    w = rng.uniform(0.7, 2.2)
    h = w * (rng.uniform(1.2, 1.45) if rng.random() < 0.5 else rng.uniform(0.5, 2.5))
    img, alpha = _canvas(w, h, ppu)
    colour = _rgb(rng, WHITES)
    _rect(img, alpha, colour, 0, 0, img.shape[1], img.shape[0], 0.1 * ppu)
    side = int(img.shape[0] * rng.uniform(0.1, 0.25))  # the side facing the camera, a little darker
    img[-side:] *= np.float32(rng.uniform(0.7, 0.9))
    _shade(rng, img)
    return Patch(img, alpha, 0.6)


def phone(rng: np.random.Generator, ppu: float) -> Patch:
    """A phone: face down (a white, light or dark back with a camera) or face up (a dark or lit screen)."""
    w, h = rng.uniform(2.6, 3.1), rng.uniform(5.4, 6.2)
    img, alpha = _canvas(w, h, ppu)
    r = 0.35 * ppu
    if rng.random() < 0.6:
        back = _rgb(rng, WHITES + [(60, 60, 60), (180, 190, 200)])
        _rect(img, alpha, back, 0, 0, img.shape[1], img.shape[0], r)
        cam = (int(ppu * 0.35), int(ppu * 0.35), int(ppu * 1.2), int(ppu * 1.2))
        _rect(img, alpha, back * 0.85, *cam, 0.2 * ppu)
        for cy in (0.6, 0.95):
            cv2.circle(img, (int(ppu * 0.65), int(ppu * cy)), max(1, int(ppu * 0.15)), (20, 20, 20), -1, cv2.LINE_AA)
    else:
        frame = _rgb(rng, [(20, 20, 20), (230, 232, 235)])
        _rect(img, alpha, frame, 0, 0, img.shape[1], img.shape[0], r)
        lit = rng.random() < 0.5
        screen = _rgb(rng, [(240, 235, 230), (200, 160, 120)]) if lit else np.float32([15, 15, 15])
        m = int(ppu * 0.12)
        _rect(img, alpha, screen, m, m, img.shape[1] - m, img.shape[0] - m, r * 0.8)
        if lit:
            for k in range(4):
                y = int(ppu * (1 + k * 1.1))
                _rect(img, alpha, screen * 0.8, ppu * 0.3, y, img.shape[1] - ppu * 0.3, y + ppu * 0.8, ppu * 0.15)
    _shade(rng, img)
    return Patch(img, alpha, 0.3)


def book_spines(rng: np.random.Generator, ppu: float) -> Patch:
    """Books lying side by side, spines up: long white or cream bars with a few dark lines and bands across."""
    n = int(rng.integers(1, 5))
    widths = rng.uniform(0.8, 2.0, n)
    length = rng.uniform(6.0, 10.0)
    img, alpha = _canvas(float(widths.sum()) + 0.05 * n, length, ppu)
    x = 0.0
    for w in widths:
        x0, x1 = x * ppu, (x + w) * ppu
        colour = _rgb(rng, WHITES) if rng.random() < 0.75 else _rgb(rng, CHIP_COLOURS, 20)
        _rect(img, alpha, colour, x0, 0, x1, img.shape[0], 0.05 * ppu)
        ink = (float(rng.uniform(20, 90)),) * 3
        for _ in range(int(rng.integers(2, 6))):  # title lines and printed bands across the spine
            y = int(rng.uniform(0.05, 0.95) * img.shape[0])
            thick = max(1, int(ppu * rng.uniform(0.04, 0.3)))
            cv2.line(img, (int(x0 + ppu * 0.15), y), (int(x1 - ppu * 0.15), y), ink, thick)
        if rng.random() < 0.5:  # a title written along the spine
            y0 = int(rng.uniform(0.2, 0.4) * img.shape[0])
            cv2.line(img, (int((x0 + x1) / 2), y0), (int((x0 + x1) / 2), int(y0 + length * ppu * 0.3)), ink,
                     max(1, int(w * ppu * 0.2)))
        x += w + 0.05
    _shade(rng, img)
    return Patch(img, alpha, 1.0)


def dice(rng: np.random.Generator, ppu: float) -> Patch:
    """Two or three dice: small white cubes (0.6 of a tile's width), pips, the side facing the camera shaded."""
    n = int(rng.integers(2, 4))
    side = rng.uniform(0.5, 0.7)
    img, alpha = _canvas(side * 2.2 * n, side * 2.2, ppu)
    s = side * ppu
    for k in range(n):
        x0, y0 = k * s * 2.1 + rng.uniform(0, 0.4) * s, rng.uniform(0, 0.9) * s
        colour = _rgb(rng, WHITES[:3])
        _rect(img, alpha, colour * 0.75, x0, y0 + s * 0.8, x0 + s, y0 + s * 1.15, 0.1 * s)
        _rect(img, alpha, colour, x0, y0, x0 + s, y0 + s, 0.15 * s)
        pips = int(rng.integers(1, 7))
        spots = {1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
                 4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
                 5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
                 6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)]}[pips]
        ink = PIP_COLOURS[1] if pips in (1, 4) else PIP_COLOURS[0]
        radius = max(1, int(s * (0.14 if pips == 1 else 0.09)))
        for px, py in spots:
            cv2.circle(img, (int(x0 + px * s), int(y0 + py * s)), radius, ink, -1, cv2.LINE_AA)
    return Patch(img, alpha, 0.6)


def scoring_sticks(rng: np.random.Generator, ppu: float) -> Patch:
    """Scoring sticks: long thin white bars with coloured dots, a few lying side by side or fanned."""
    n = int(rng.integers(1, 6))
    length, width = rng.uniform(3.0, 4.5), rng.uniform(0.22, 0.35)
    img, alpha = _canvas(length * 1.1, n * width * 1.6 + 0.5, ppu)
    for k in range(n):
        y0 = (0.2 + k * width * 1.6) * ppu
        x0 = rng.uniform(0, length * 0.08) * ppu
        colour = _rgb(rng, WHITES[:3])
        _rect(img, alpha, colour, x0, y0, x0 + length * ppu, y0 + width * ppu, width * ppu / 2)
        dots = int(rng.choice([1, 2, 5, 8]))
        ink = [(40, 40, 190), (30, 30, 30), (160, 60, 30)][int(rng.integers(3))]
        for d in range(dots):
            cx = x0 + length * ppu * ((d + 1) / (dots + 1) if dots > 2 else 0.5 + 0.1 * (d - (dots - 1) / 2))
            cv2.circle(img, (int(cx), int(y0 + width * ppu / 2)), max(1, int(width * ppu * 0.22)), ink, -1,
                       cv2.LINE_AA)
    return Patch(img, alpha, 0.15)


def chips(rng: np.random.Generator, ppu: float) -> Patch:
    """Round chips (counters), a few scattered or stacked, with a ring inside."""
    n = int(rng.integers(1, 6))
    d = rng.uniform(1.1, 1.8)
    img, alpha = _canvas(d * 3.2, d * 2.2, ppu)
    r = int(d * ppu / 2)
    for _ in range(n):
        c = (int(rng.uniform(r, img.shape[1] - r)), int(rng.uniform(r, img.shape[0] - r)))
        colour = _rgb(rng, CHIP_COLOURS, 12)
        mask = np.zeros(alpha.shape, np.uint8)
        cv2.circle(mask, c, r, 255, -1, cv2.LINE_AA)
        a = mask.astype(np.float32)[..., None] / 255.0
        img[:] = img * (1 - a) + colour * a
        alpha[:] = np.maximum(alpha, a[..., 0])
        cv2.circle(img, c, int(r * 0.7), tuple(float(v) for v in colour * 0.75), max(1, r // 8), cv2.LINE_AA)
    return Patch(img, alpha, 0.2)


def keyboard(rng: np.random.Generator, ppu: float) -> Patch:
    """A keyboard: a frame holding rows of light square keys (about 0.7 of a tile's width), marks on them."""
    rows, cols, key = int(rng.integers(4, 6)), int(rng.integers(10, 15)), rng.uniform(0.6, 0.8)
    gap = key * 0.15
    img, alpha = _canvas(cols * (key + gap) + 0.6, rows * (key + gap) + 0.6, ppu)
    light = rng.random() < 0.6
    frame = _rgb(rng, [(40, 40, 40), (190, 195, 200)] if light else [(25, 25, 25)])
    keys = _rgb(rng, WHITES[:3] if light else [(50, 50, 50)])
    _rect(img, alpha, frame, 0, 0, img.shape[1], img.shape[0], 0.2 * ppu)
    ink = (40.0, 40.0, 40.0) if light else (220.0, 220.0, 220.0)
    for i in range(rows):
        for j in range(cols):
            x0 = (0.3 + j * (key + gap) + (0.3 * key if i % 2 else 0)) * ppu
            y0 = (0.3 + i * (key + gap)) * ppu
            if x0 + key * ppu > img.shape[1]:
                continue
            _rect(img, alpha, keys, x0, y0, x0 + key * ppu, y0 + key * ppu, 0.1 * key * ppu)
            cv2.line(img, (int(x0 + key * ppu * 0.3), int(y0 + key * ppu * 0.35)),
                     (int(x0 + key * ppu * 0.55), int(y0 + key * ppu * 0.35)), ink, max(1, int(ppu * 0.05)))
    _shade(rng, img)
    return Patch(img, alpha, 0.4)


def table_edge(rng: np.random.Generator, ppu: float) -> Patch:
    """The table's edge: a rim of wood or plastic, then the floor or another surface beyond it."""
    length, depth = rng.uniform(15, 30), rng.uniform(4, 10)
    img, alpha = _canvas(length, depth, ppu)
    h, w = alpha.shape
    rim = int(ppu * rng.uniform(0.5, 2.0))
    img[:] = surface(rng, w, h, ppu * float(rng.uniform(0.3, 1.0))).astype(np.float32) * float(rng.uniform(0.4, 0.9))
    rim_colour = _rgb(rng, RIM_COLOURS, 10)
    shade = 0.85 + 0.15 * np.linspace(1, 0, min(rim, h))[:, None, None]  # a rounded rim catches the light
    img[: min(rim, h)] = rim_colour * shade
    alpha[:] = 1.0
    return Patch(img, alpha, 0.0)


def hand(rng: np.random.Generator, ppu: float) -> Patch:
    """A player's hand: a palm and fingers of skin, often with the sleeve it comes out of."""
    img, alpha = _canvas(6.0, 9.0, ppu)
    skin = _rgb(rng, SKIN, 10)
    mask = np.zeros(alpha.shape, np.uint8)
    u = ppu
    cv2.ellipse(mask, (int(3 * u), int(4.5 * u)), (int(1.6 * u), int(2.0 * u)), 0, 0, 360, 255, -1, cv2.LINE_AA)
    for dx in (-1.2, -0.4, 0.4, 1.2):
        tip = (int((3 + dx * 1.05) * u), int((1.0 + abs(dx) * 0.5 + rng.uniform(-0.3, 0.3)) * u))
        cv2.line(mask, (int((3 + dx) * u), int(3.8 * u)), tip, 255, max(1, int(0.55 * u)), cv2.LINE_AA)
        cv2.circle(mask, tip, max(1, int(0.27 * u)), 255, -1, cv2.LINE_AA)
    cv2.line(mask, (int(1.6 * u), int(5.0 * u)), (int(0.4 * u), int(3.6 * u)), 255, max(1, int(0.6 * u)), cv2.LINE_AA)
    a = cv2.GaussianBlur(mask, (0, 0), 0.8).astype(np.float32)[..., None] / 255.0
    img[:] = img * (1 - a) + skin * a
    alpha[:] = a[..., 0]
    if rng.random() < 0.7:
        _rect(img, alpha, _rgb(rng, SLEEVES, 15), 0.9 * u, 6.2 * u, 5.1 * u, 9.0 * u, 0.3 * u)
    _shade(rng, img)
    return Patch(img, alpha, 0.8)


def sleeve(rng: np.random.Generator, ppu: float) -> Patch:
    """A forearm in a sleeve lying across the table, its folds a little darker."""
    img, alpha = _canvas(rng.uniform(3.0, 4.5), rng.uniform(9, 16), ppu)
    colour = _rgb(rng, SLEEVES, 15)
    _rect(img, alpha, colour, 0, 0, img.shape[1], img.shape[0], 0.8 * ppu)
    for _ in range(int(rng.integers(2, 6))):
        y = int(rng.uniform(0.1, 0.9) * img.shape[0])
        cv2.line(img, (0, y), (img.shape[1], y + int(rng.uniform(-1, 1) * ppu)), tuple(float(c) for c in colour * 0.8),
                 max(1, int(ppu * 0.2)), cv2.LINE_AA)
    img[:] = cv2.GaussianBlur(img, (0, 0), max(0.5, ppu * 0.05))
    return Patch(img, alpha, 1.2)


#: Every kind of distractor and how it is drawn; empty photos take their first kind in this order, in turn.
KINDS: dict[str, Callable[[np.random.Generator, float], Patch]] = {
    "paper": paper, "block": block, "phone": phone, "book_spines": book_spines, "dice": dice,
    "scoring_sticks": scoring_sticks, "chips": chips, "keyboard": keyboard, "table_edge": table_edge,
    "hand": hand, "sleeve": sleeve,
}


@dataclass
class NegativeSample:
    jpeg: bytes
    width: int
    height: int
    distractors: list[dict]  # kind and box (x1, y1, x2, y2 in pixels, clipped to the picture)
    labels: list[tuple[str, float, float, float, float]]  # the tiles (none in an empty photo)
    record: dict | None  # the hand photo's ground truth (generate.Sample.record), None for an empty photo


def _lay(dst: np.ndarray, patch: Patch, to_dst: np.ndarray, light: np.ndarray, ppu: float,
         rng: np.random.Generator) -> tuple[float, float, float, float] | None:
    """Warp ``patch`` by the 3x3 ``to_dst`` onto ``dst`` (float BGR, in place) with a soft shadow pushed along
    ``light`` (units per unit of height); returns the box it covers, None when it falls outside."""
    h, w = dst.shape[:2]
    size = (w, h)
    alpha = cv2.warpPerspective(patch.alpha, to_dst, size, flags=cv2.INTER_LINEAR)
    if alpha.max() < 0.5:
        return None
    if patch.height > 0:
        shift = np.array([[1, 0, light[0] * patch.height * ppu], [0, 1, light[1] * patch.height * ppu], [0, 0, 1]])
        shadow = cv2.warpPerspective(patch.alpha, shift @ to_dst, size, flags=cv2.INTER_LINEAR)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.5, 0.15 * ppu))
        dst *= (1 - float(rng.uniform(0.25, 0.5)) * shadow)[..., None]
    colour = cv2.warpPerspective(patch.colour, to_dst, size, flags=cv2.INTER_LINEAR)
    a = alpha[..., None]
    dst[:] = dst * (1 - a) + colour * a
    ys, xs = np.nonzero(alpha > 0.5)
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


def _placement(rng: np.random.Generator, patch: Patch, at: tuple[float, float], keystone: float = 0.0) -> np.ndarray:
    """Patch pixels -> destination pixels: turned about its centre to a random angle, centred on ``at``, with
    a little perspective of its own (``keystone``: how much one end is narrower)."""
    ph, pw = patch.alpha.shape
    src = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]]) - np.float32([pw / 2, ph / 2])
    k = float(rng.uniform(-keystone, keystone))
    src_k = src * np.float32([[1 - k, 1], [1 - k, 1], [1 + k, 1], [1 + k, 1]])
    angle = rng.uniform(0, 2 * np.pi)
    rot = np.float32([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    dst = src_k @ rot.T + np.float32(at)
    return cv2.getPerspectiveTransform(src + np.float32([pw / 2, ph / 2]), dst.astype(np.float32))


def _kinds(rng: np.random.Generator, index: int, count: tuple[int, int], first: bool) -> list[str]:
    names = list(KINDS)
    n = int(rng.integers(count[0], count[1] + 1))
    picked = [names[index % len(names)]] if first else []
    picked += [names[int(rng.integers(len(names)))] for _ in range(n - len(picked))]
    return picked


def empty_photo(seed: int, index: int, size: int = 640) -> NegativeSample:
    """A table photographed as the tile photos are (camera, surface, light, blur, JPEG) with distractors and no
    tile: photo ``index`` shows ``KINDS``' kind number ``index`` (in turn) and up to three others."""
    rng = np.random.default_rng([seed, index, NEGATIVE_STREAM])
    aw, ah = ASPECTS[int(rng.integers(len(ASPECTS)))]
    width, height = (size, int(round(size * ah / aw))) if aw >= ah else (int(round(size * aw / ah)), size)
    distance = float(rng.uniform(14, 45))
    yaw = float(rng.normal(0, 12)) if rng.random() < 0.65 else float(rng.uniform(0, 360))
    cam = Camera.looking_at(np.zeros(3), distance, float(rng.uniform(0, 50)), yaw, float(rng.normal(0, 3)))
    tile_px = float(rng.uniform(14, 70))  # a tile's width in the picture, as the hands of the tile photos give
    cam.scale = tile_px * distance
    cam.offset = (width / 2, height / 2)
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    seen = cam.ray_to_table(corners, far=80.0)
    lo, hi = seen.min(0) - 1, seen.max(0) + 1
    ppu = min(float(np.clip(tile_px * 1.4, 14, 96)), MAX_CANVAS / max(hi - lo))
    cw, ch = (np.ceil((hi - lo) * ppu)).astype(int) + 1
    canvas = surface(rng, int(cw), int(ch), ppu).astype(np.float32)
    light = rng.normal(0, 1, 2)
    light = light / (np.linalg.norm(light) + 1e-9) * float(rng.uniform(0.2, 1.2))
    plane = cam.plane_homography(lo, ppu, seen)
    kinds = _kinds(rng, index, DISTRACTORS_PER_PHOTO, first=True)
    placed = []
    for kind in sorted(kinds, key=lambda k: k != "table_edge"):  # the edge lies under everything else
        patch = KINDS[kind](rng, ppu)
        # somewhere the picture sees: a point of the inner picture, taken to the table, then to the canvas
        pixel = np.array([[rng.uniform(0.15, 0.85) * width, rng.uniform(0.15, 0.85) * height]])
        if kind == "table_edge":
            pixel = np.array([[rng.uniform(0, 1) * width, rng.uniform(0, 1) * height]])
        at = (cam.ray_to_table(pixel, far=80.0)[0] - lo) * ppu
        to_canvas = _placement(rng, patch, (float(at[0]), float(at[1])))
        if _lay(canvas, patch, to_canvas, light, ppu, rng) is not None:
            placed.append((kind, patch.alpha, plane @ to_canvas))
    image = cv2.warpPerspective(canvas, plane, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    distractors = [d for kind, alpha, h in placed if (d := _box_in_picture(kind, alpha, h, width, height))]
    img = photo.degrade(rng, photo.lighting(rng, np.clip(image, 0, 255)))
    return NegativeSample(_jpeg(rng, img), width, height, distractors, [], None)


def _box_in_picture(kind: str, patch_alpha: np.ndarray, to_picture: np.ndarray, width: int, height: int) -> dict | None:
    """The distractor's box in the picture: where its mask lands (clipped to the frame), None when out of it."""
    alpha = cv2.warpPerspective(patch_alpha, to_picture, (width, height), flags=cv2.INTER_LINEAR)
    ys, xs = np.nonzero(alpha > 0.5)
    if len(xs) < 4:
        return None
    box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
    return {"kind": kind, "box": [round(v, 1) for v in box]}


def hand_photo(seed: int, index: int, art: ArtBank, size: int = 640) -> NegativeSample:
    """``generate_one(seed, index)``'s hand photo with distractors laid beside it, none over a labelled tile; its
    labels are the tiles' alone."""
    sample = generate_one(seed, index, art, size)
    rng = np.random.default_rng([seed, index, NEGATIVE_STREAM])
    img = cv2.imdecode(np.frombuffer(sample.jpeg, np.uint8), cv2.IMREAD_COLOR).astype(np.float32)
    height, width = img.shape[:2]
    boxes = np.array([lb[1:] for lb in sample.labels], float).reshape(-1, 4)
    tile_px = float(np.median(boxes[:, 2] - boxes[:, 0])) if len(boxes) else 30.0
    ppu = max(6.0, tile_px / 1.1)  # a label box holds the face and a little of the body
    light = rng.normal(0, 1, 2)
    light = light / (np.linalg.norm(light) + 1e-9) * float(rng.uniform(0.2, 1.0))
    margin = MARGIN_TILES * tile_px
    distractors = []
    for kind in _kinds(rng, index, HAND_PHOTO_DISTRACTORS, first=True):
        patch = KINDS[kind](rng, ppu)
        for _ in range(12):  # a spot clear of every tile, else this distractor is left out
            trial = img.copy()
            to_picture = _placement(rng, patch, (rng.uniform(0, width), rng.uniform(0, height)), keystone=0.15)
            box = _lay(trial, patch, to_picture, light, ppu, rng)
            if box is None or _overlaps(box, boxes, margin):
                continue
            img = trial
            distractors.append({"kind": kind, "box": [round(v, 1) for v in box]})
            break
    img = np.clip(img, 0, 255).astype(np.uint8)
    return NegativeSample(_jpeg(rng, img), width, height, distractors, sample.labels, sample.record)


def _overlaps(box, tiles: np.ndarray, margin: float) -> bool:
    if not len(tiles):
        return False
    x1, y1, x2, y2 = box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin
    return bool(np.any((tiles[:, 0] < x2) & (tiles[:, 2] > x1) & (tiles[:, 1] < y2) & (tiles[:, 3] > y1)))


def _jpeg(rng: np.random.Generator, img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 96))])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


def write_negatives(out: Path, n: int, seed: int, art_dir: Path | None, size: int = 640, with_hand: bool = False,
                    progress=None) -> int:
    """Write ``n`` photos under ``out``: images/, labels/ (empty files for empty photos; the tiles only beside a
    hand), distractors/ (each photo's distractors: kind and box) and, beside a hand, hands/; returns the box count."""
    out = Path(out).resolve()
    subs = ("images", "labels", "distractors") + (("hands",) if with_hand else ())
    for sub in subs:
        (out / sub).mkdir(parents=True, exist_ok=True)
    art = ArtBank(art_dir) if with_hand and art_dir is not None else None
    total = 0
    for index in range(n):
        if with_hand:
            if art is None:
                raise ValueError("photos of a hand need tile art")
            sample = hand_photo(seed, index, art, size)
            stem = f"distract_{seed}_{index:06d}"
        else:
            sample = empty_photo(seed, index, size)
            stem = f"negative_{seed}_{index:06d}"
        (out / "images" / f"{stem}.jpg").write_bytes(sample.jpeg)
        text = yolo_lines(sample)  # type: ignore[arg-type]  # the same fields as generate.Sample
        (out / "labels" / f"{stem}.txt").write_text(text)
        (out / "distractors" / f"{stem}.json").write_text(json.dumps(
            {"image": f"images/{stem}.jpg", "width": sample.width, "height": sample.height,
             "distractors": sample.distractors}, separators=(",", ":")))
        if sample.record is not None:
            write_hand_record(out, stem, sample.labels, sample.record)
        total += len(sample.labels)
        if progress:
            progress()
    flag = "--negatives with-hand" if with_hand else "--negatives empty"
    write_data_yaml(out, f"mjlens synth {flag} --n {n} --seed {seed} --size {size}")
    return total
