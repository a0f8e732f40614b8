"""Flower and season pictures drawn from shapes: blossoms, branches, bamboo, trees, suns, snowflakes, leaves.

The flowers and seasons of the sets players own draw pictures no trained set draws (trees, birds in a basket, a
person), and a reader that has seen the pictures of a dozen sets takes a picture it has never seen for another tile.
The pictures made here tell nothing of which flower or season a face is: its numeral and its word do
(``vision.synth.drawn``), as on most real sets.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Colours (BGR) of blossoms, leaves, wood.
BLOSSOMS = ((60, 60, 220), (150, 120, 240), (40, 180, 240), (160, 60, 150), (30, 120, 240), (200, 120, 60),
            (90, 40, 180), (200, 200, 250))
LEAVES = ((50, 140, 40), (60, 110, 30), (90, 160, 80), (40, 90, 60), (120, 150, 40))
WOOD = ((30, 60, 110), (40, 40, 70), (60, 90, 130))
KINDS = ("blossom", "branch", "bamboo", "tree", "sun", "snowflake", "leaf", "basket")


def _point(rng: np.random.Generator, box, x: tuple[float, float], y: tuple[float, float]) -> np.ndarray:
    x1, y1, x2, y2 = box
    return np.array([x1 + rng.uniform(*x) * (x2 - x1), y1 + rng.uniform(*y) * (y2 - y1)])


def _pick(rng: np.random.Generator, pool):
    return pool[int(rng.integers(len(pool)))]


def _leaf(canvas, rng, at: np.ndarray, length: float, angle: float, colour) -> None:
    axes = (max(2, int(length / 2)), max(1, int(length * rng.uniform(0.12, 0.3))))
    cv2.ellipse(canvas, tuple(at.astype(int)), axes, angle, 0, 360, colour, -1, cv2.LINE_AA)


def _flower_head(canvas, rng, at: np.ndarray, radius: float, colour) -> None:
    petals = int(rng.integers(4, 9))
    turn = rng.uniform(0, 360)
    for k in range(petals):
        angle = np.radians(turn + 360 * k / petals)
        centre = at + 0.55 * radius * np.array([np.cos(angle), np.sin(angle)])
        axes = (max(2, int(0.5 * radius)), max(1, int(0.3 * radius)))
        cv2.ellipse(canvas, tuple(centre.astype(int)), axes, np.degrees(angle), 0, 360, colour, -1, cv2.LINE_AA)
    cv2.circle(canvas, tuple(at.astype(int)), max(2, int(0.25 * radius)), (40, 200, 230), -1, cv2.LINE_AA)


def _stem(canvas, rng, start: np.ndarray, end: np.ndarray, colour, width: int) -> np.ndarray:
    """A curved stem from ``start`` to ``end``; its points."""
    bend = (end - start)[::-1] * np.array([1, -1]) * rng.uniform(-0.25, 0.25)
    t = np.linspace(0, 1, 12)[:, None]
    points = (1 - t) ** 2 * start + 2 * (1 - t) * t * ((start + end) / 2 + bend) + t ** 2 * end
    cv2.polylines(canvas, [points.astype(np.int32)], False, colour, width, cv2.LINE_AA)
    return points


def _blossom(canvas, rng, box, colour, leaf) -> None:
    x1, y1, x2, y2 = box
    size = x2 - x1
    for _ in range(int(rng.integers(1, 4))):
        head = _point(rng, box, (0.2, 0.8), (0.1, 0.45))
        points = _stem(canvas, rng, _point(rng, box, (0.4, 0.6), (0.95, 1.0)), head, leaf, max(2, int(size / 40)))
        for _ in range(int(rng.integers(1, 4))):
            at = points[int(rng.integers(3, 10))]
            _leaf(canvas, rng, at, size * rng.uniform(0.15, 0.3), rng.uniform(0, 180), leaf)
        _flower_head(canvas, rng, head, size * rng.uniform(0.12, 0.22), colour)


def _branch(canvas, rng, box, colour, leaf) -> None:
    size = box[2] - box[0]
    wood = _pick(rng, WOOD)
    start = _point(rng, box, (0.0, 0.3), (0.7, 1.0))
    for _ in range(int(rng.integers(2, 4))):
        end = _point(rng, box, (0.4, 1.0), (0.0, 0.6))
        points = _stem(canvas, rng, start, end, wood, max(3, int(size / 25)))
        for at in points[int(rng.integers(3, 6))::3]:
            _flower_head(canvas, rng, at + rng.normal(0, size * 0.04, 2), size * rng.uniform(0.06, 0.11), colour)
        start = points[int(rng.integers(3, 9))]


def _bamboo(canvas, rng, box, colour, leaf) -> None:
    x1, y1, x2, y2 = box
    size = x2 - x1
    for _ in range(int(rng.integers(1, 4))):
        x = rng.uniform(x1 + 0.15 * size, x2 - 0.15 * size)
        top = rng.uniform(y1, y1 + 0.3 * (y2 - y1))
        width = max(3, int(size * rng.uniform(0.05, 0.1)))
        cv2.line(canvas, (int(x), int(top)), (int(x), int(y2)), leaf, width, cv2.LINE_AA)
        for y in np.linspace(top, y2, int(rng.integers(3, 6)))[1:-1]:
            cv2.line(canvas, (int(x - width), int(y)), (int(x + width), int(y)), (242, 242, 242), 2, cv2.LINE_AA)
            if rng.random() < 0.6:
                _leaf(canvas, rng, np.array([x + rng.choice((-1, 1)) * size * 0.15, y]), size * 0.3,
                      rng.uniform(-40, 40), leaf)


def _tree(canvas, rng, box, colour, leaf) -> None:
    x1, y1, x2, y2 = box
    size = x2 - x1
    trunk = _pick(rng, WOOD)
    base = np.array([(x1 + x2) / 2 + rng.uniform(-0.1, 0.1) * size, y2])
    crown = np.array([base[0], y1 + rng.uniform(0.3, 0.5) * (y2 - y1)])
    cv2.line(canvas, tuple(base.astype(int)), tuple(crown.astype(int)), trunk, max(4, int(size / 12)), cv2.LINE_AA)
    canopy = _pick(rng, (leaf, colour, (40, 110, 200), None))  # None: bare, as a winter tree
    for _ in range(int(rng.integers(4, 9))):
        at = crown + rng.normal(0, size * 0.16, 2)
        if canopy is None:
            cv2.line(canvas, tuple(crown.astype(int)), tuple(at.astype(int)), trunk, max(2, int(size / 40)),
                     cv2.LINE_AA)
        else:
            cv2.circle(canvas, tuple(at.astype(int)), int(size * rng.uniform(0.1, 0.2)), canopy, -1, cv2.LINE_AA)


def _sun(canvas, rng, box, colour, leaf) -> None:
    centre = _point(rng, box, (0.4, 0.6), (0.35, 0.6))
    radius = (box[2] - box[0]) * rng.uniform(0.16, 0.26)
    ink = _pick(rng, ((30, 160, 240), (40, 60, 220), (30, 200, 240)))
    cv2.circle(canvas, tuple(centre.astype(int)), int(radius), ink, -1, cv2.LINE_AA)
    rays = int(rng.integers(8, 17))
    for k in range(rays):
        angle = 2 * np.pi * k / rays
        way = np.array([np.cos(angle), np.sin(angle)])
        a, b = centre + way * radius * 1.25, centre + way * radius * rng.uniform(1.6, 2.0)
        cv2.line(canvas, tuple(a.astype(int)), tuple(b.astype(int)), ink, max(2, int(radius / 8)), cv2.LINE_AA)


def _snowflake(canvas, rng, box, colour, leaf) -> None:
    centre = _point(rng, box, (0.4, 0.6), (0.35, 0.6))
    radius = (box[2] - box[0]) * rng.uniform(0.3, 0.45)
    ink = _pick(rng, ((200, 120, 40), (220, 180, 90), (120, 60, 20), (40, 40, 40)))
    width = max(2, int(radius / 14))
    for k in range(6):
        angle = np.pi * k / 3
        way = np.array([np.cos(angle), np.sin(angle)])
        end = centre + way * radius
        cv2.line(canvas, tuple(centre.astype(int)), tuple(end.astype(int)), ink, width, cv2.LINE_AA)
        for t in (0.45, 0.7):
            at = centre + way * radius * t
            for side in (-1, 1):
                twig = np.array([np.cos(angle + side * 0.7), np.sin(angle + side * 0.7)]) * radius * 0.25
                cv2.line(canvas, tuple(at.astype(int)), tuple((at + twig).astype(int)), ink, width, cv2.LINE_AA)


def _maple(canvas, rng, box, colour, leaf) -> None:
    centre = _point(rng, box, (0.4, 0.6), (0.35, 0.6))
    radius = (box[2] - box[0]) * rng.uniform(0.3, 0.42)
    ink = _pick(rng, ((30, 80, 220), (30, 130, 230), (40, 40, 170), leaf))
    lobes = int(rng.integers(5, 8))
    angles = np.linspace(0, 2 * np.pi, lobes * 2, endpoint=False) + rng.uniform(0, np.pi)
    lengths = np.where(np.arange(lobes * 2) % 2 == 0, radius, radius * 0.45)
    points = centre + np.stack([np.cos(angles), np.sin(angles)], 1) * lengths[:, None]
    cv2.fillPoly(canvas, [points.astype(np.int32)], ink, cv2.LINE_AA)
    cv2.line(canvas, tuple(centre.astype(int)), tuple((centre + [0, radius * 1.3]).astype(int)), _pick(rng, WOOD),
             max(2, int(radius / 12)), cv2.LINE_AA)


def _basket(canvas, rng, box, colour, leaf) -> None:
    x1, y1, x2, y2 = box
    size = x2 - x1
    top = y1 + 0.7 * (y2 - y1)
    pot = np.array([[x1 + 0.2 * size, top], [x2 - 0.2 * size, top], [x2 - 0.3 * size, y2], [x1 + 0.3 * size, y2]])
    cv2.fillPoly(canvas, [pot.astype(np.int32)], _pick(rng, WOOD + ((40, 40, 40),)), cv2.LINE_AA)
    _blossom(canvas, rng, (x1, y1, x2, top), colour, leaf)


DRAW = {"blossom": _blossom, "branch": _branch, "bamboo": _bamboo, "tree": _tree, "sun": _sun,
        "snowflake": _snowflake, "leaf": _maple, "basket": _basket}


def draw_picture(canvas: np.ndarray, box: tuple[int, int, int, int], kind: str, rng: np.random.Generator) -> None:
    """A picture of ``kind`` (``KINDS``) drawn into ``box`` (left, top, right, bottom) of ``canvas`` (BGR uint8),
    cut at the box's edges (the corners beside it hold the face's numeral and word)."""
    x1, y1, x2, y2 = (int(v) for v in box)
    region = np.ascontiguousarray(canvas[y1:y2, x1:x2])
    DRAW[kind](region, rng, (0, 0, x2 - x1, y2 - y1), _pick(rng, BLOSSOMS), _pick(rng, LEAVES))
    canvas[y1:y2, x1:x2] = region
