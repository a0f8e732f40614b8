"""Photos whose rows run diagonal are read again turned level (``vision.turn``)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from test_detector import anchor
from test_zoom import spied_pair

from vision.detection import Detection
from vision.turn import DIAGONAL, MIN_TILES, OUTLINE, row_turn, turned, turned_back


def diagonal_row(degrees: float, count: int = 8, width: float = 30, height: float = 40) -> list[Detection]:
    """Touching tiles along a row turned ``degrees`` in the picture (y down): each tile's upright box."""
    theta = math.radians(degrees)
    c, s = math.cos(theta), math.sin(theta)
    half_w = (abs(width * c) + abs(height * s)) / 2
    half_h = (abs(width * s) + abs(height * c)) / 2
    centres = [(500 + k * (width + 2) * c, 500 + k * (width + 2) * s) for k in range(count)]
    return [Detection("1m", (x - half_w, y - half_h, x + half_w, y + half_h), 0.9) for x, y in centres]


def level_after(degrees: float, tiles: list[Detection]) -> float:
    """How far the tiles' centres spread across the row once the photo is turned by ``degrees``."""
    matrix = cv2.getRotationMatrix2D((0, 0), degrees, 1.0)
    centres = np.array([[(t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2, 1.0] for t in tiles]) @ matrix.T
    return float(np.ptp(centres[:, 1]))


@pytest.mark.parametrize("degrees", [35.0, -50.0, 65.0])
def test_a_diagonal_row_is_turned_level(degrees):
    row = diagonal_row(degrees)
    turn = row_turn(row)
    assert turn is not None
    assert level_after(turn, row) < 2.0  # the centres end up on one level line


def test_rows_near_level_or_upright_too_few_tiles_and_heaps_are_not_turned():
    assert row_turn(diagonal_row(DIAGONAL - 5)) is None
    assert row_turn(diagonal_row(90 - DIAGONAL + 5)) is None
    assert row_turn(diagonal_row(40, count=MIN_TILES - 1)) is None
    rng = np.random.default_rng(1)  # tiles lying every way, none in a row with its nearest neighbour
    heap = [Detection("1m", (x, y, x + 40, y + 40), 0.9) for x, y in rng.uniform(0, 400, (12, 2))]
    assert row_turn(heap) is None


def test_a_box_found_in_the_turned_photo_is_taken_back_to_the_photo():
    photo = np.zeros((200, 300, 3), np.uint8)
    photo[120:130, 40:50] = 255  # a small white square
    image, back = turned(photo, 40.0)
    assert image.shape[0] > 200 and image.shape[1] > 300  # the whole photo is kept, corners and all
    ys, xs = np.nonzero(image[..., 0] > 128)
    found = Detection("1m", (xs.min() / 2, ys.min() / 2, (xs.max() + 1) / 2, (ys.max() + 1) / 2), 0.9)
    (again,) = turned_back([found], back, pixel_scale=2.0)  # boxes in pixels of a photo decoded at half size
    centre = ((again.box[0] + again.box[2]) / 2, (again.box[1] + again.box[3]) / 2)
    assert centre == pytest.approx((45 / 2, 125 / 2), abs=1.0)
    assert again.box[0] <= 40 / 2 and again.box[2] >= 50 / 2  # the square turned back: no smaller than it


def test_a_box_turned_back_spans_midway_between_its_corners_and_its_inscribed_ellipse():
    cos = sin = np.sqrt(0.5)
    back = np.array([[cos, -sin, 100.0], [sin, cos, 50.0]])  # turned 45 degrees
    (again,) = turned_back([Detection("1m", (0.0, 0.0, 20.0, 40.0), 0.9)], back)
    corners, ellipse = (10 + 20) * cos, np.hypot(10 * cos, 20 * sin)  # half-sides, the same both ways at 45
    assert (again.box[2] - again.box[0]) / 2 == pytest.approx(OUTLINE * corners + (1 - OUTLINE) * ellipse)
    assert (again.box[3] - again.box[1]) / 2 == pytest.approx(OUTLINE * corners + (1 - OUTLINE) * ellipse)
    assert again.center == pytest.approx((100 + (10 - 20) * cos, 50 + (10 + 20) * cos))


def diagonal_anchors() -> list[np.ndarray]:
    """Tiles 10 px wide at a 64 px input, in a row running down at 45 degrees."""
    return [anchor(1 + 9 * k, 1 + 9 * k, 11 + 9 * k, 11 + 9 * k, t9p=0.9) for k in range(6)]


def level_anchors() -> list[np.ndarray]:
    return [anchor(1 + 11 * k, 20, 11 + 11 * k, 34, t9p=0.9) for k in range(5)]


@pytest.mark.parametrize("anchors, runs", [(diagonal_anchors, 2), (level_anchors, 1)])
def test_only_a_photo_of_diagonal_rows_is_read_twice(tmp_path, photo, anchors, runs):
    pair, sizes = spied_pair(tmp_path, anchors())
    pair.zoom_input = None  # the small-tile reading out of the way
    found = pair.detect(photo)
    assert len(sizes) == runs and len(found) >= MIN_TILES
    sizes.clear()
    pair.detect_for_eval(photo)
    assert len(sizes) == runs


def test_the_turned_band_holds_the_tiles_found_and_little_else():
    photo = np.zeros((400, 400, 3), np.uint8)
    row = diagonal_row(45.0, count=6, width=20, height=28)
    row = [Detection(t.code, tuple(v - 380 for v in t.box), t.confidence) for t in row]  # within the photo
    for t in row:
        x1, y1, x2, y2 = map(int, t.box)
        photo[y1 + 8 : y2 - 8, x1 + 8 : x2 - 8] = 255
    whole, _ = turned(photo, row_turn(row))
    band, back = turned(photo, row_turn(row), [t.box for t in row], margin=10)
    assert band.shape[0] < whole.shape[0] / 3 and band.shape[1] <= whole.shape[1]
    ys, xs = np.nonzero(band[..., 0] > 128)  # every tile's white centre lies inside the band
    (again,) = turned_back([Detection("1m", (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), 0.9)], back)
    assert again.box[0] <= row[0].box[0] + 8 and again.box[2] >= row[-1].box[2] - 8
