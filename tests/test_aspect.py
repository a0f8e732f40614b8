"""Photos squeezed out of their aspect ratio: when to look for a squash, and squashing back and forth."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import Reading
from mjlens.vision.reading.second.squeezed import (
    BOXES_ALONG_SQUEEZE,
    MIN_TILES,
    SQUEEZED_DETAIL_ALONE,
    Squash,
    SqueezedPhoto,
    candidate_squashes,
    detail_ratio,
    looks_stretched,
    reading_score,
    rescaled,
    squash_for_boxes,
    squeezed_by_detail,
)


def tiles(boxes: list[tuple[float, float, float, float]], confidence: float = 0.9) -> list[Detection]:
    return [Detection("1m", box, confidence) for box in boxes]


def row(count: int, width: float, height: float) -> list[tuple[float, float, float, float]]:
    return [(i * width, 0.0, (i + 1) * width, height) for i in range(count)]


def test_a_row_of_upright_or_sideways_tiles_is_taken_as_it_is():
    assert not looks_stretched(tiles(row(14, 30, 40)), 640, 480)
    assert not looks_stretched(tiles(row(14, 40, 30)), 640, 480)
    assert not looks_stretched(tiles(row(14, 30, 63)), 640, 480)  # upright, their thickness showing: 2.1


def test_boxes_spanning_two_squeezed_tiles_still_look_stretched():
    assert looks_stretched(tiles(row(8, 90, 216)), 640, 640)  # 2.4: a row squeezed 3-4 times, read in pairs


def test_tall_or_wide_slivers_few_tiles_or_a_narrow_photo_call_for_a_look():
    assert looks_stretched(tiles(row(17, 30, 400)), 640, 640)  # a row stretched ten times in height
    assert looks_stretched(tiles([(0, i * 40.0, 640, (i + 1) * 40.0) for i in range(12)]), 640, 640)  # a column
    assert looks_stretched(tiles(row(MIN_TILES - 1, 30, 40)), 640, 480)
    assert looks_stretched(tiles(row(14, 30, 40)), 160, 640)  # no camera takes a 1:4 photo


def test_a_squash_keeps_the_long_side_and_maps_boxes_back():
    photo = np.zeros((640, 640, 3), np.uint8)
    squashed = Squash(y=8).apply(photo)
    assert squashed.shape[:2] == (80, 640)
    scale_x, scale_y = Squash(y=8).scales(photo, squashed)
    assert (scale_x, scale_y) == (1.0, 8.0)
    (back,) = rescaled(tiles([(10, 5, 40, 45)]), scale_x, scale_y)
    assert back.box == pytest.approx((10, 40, 40, 360))

    narrow = np.zeros((640, 160, 3), np.uint8)  # squeezed 4x in width: squashing its height enlarges its width
    assert Squash(y=4).apply(narrow).shape[:2] == (640, 640)


def test_every_factor_is_tried_along_both_axes():
    squashes = list(candidate_squashes())
    assert {s.x for s in squashes if s.y == 1} >= {2, 8, 16} and {s.y for s in squashes if s.x == 1} >= {2, 8, 16}
    assert all((s.x == 1) != (s.y == 1) for s in squashes)


def textured(height: int, width: int) -> np.ndarray:
    """A photo with as much detail across as down: noise, blurred a little."""
    noise = np.random.default_rng(3).integers(0, 256, (height, width, 3), dtype=np.uint8)
    return cv2.GaussianBlur(noise, (5, 5), 1.0)


def test_a_photo_stretched_along_one_axis_is_squashed_back_along_that_one_only():
    photo = textured(64, 640)
    assert 0.8 < detail_ratio(photo) < 1.25
    assert len(list(candidate_squashes(photo))) == len(list(candidate_squashes()))  # no axis stands out: both
    along_y = cv2.resize(photo, (640, 640))  # a strip stretched 10 times along y
    along_x = cv2.resize(textured(640, 64), (640, 640))
    assert detail_ratio(along_y) > 2 and detail_ratio(along_x) < 0.5
    assert {s.x for s in candidate_squashes(along_y)} == {1} and len(list(candidate_squashes(along_y))) > 1
    assert {s.y for s in candidate_squashes(along_x)} == {1} and len(list(candidate_squashes(along_x))) > 1
    flat = np.full((40, 40, 3), 90, np.uint8)  # no detail at all says nothing: both axes
    assert detail_ratio(flat) == 1.0 and len(list(candidate_squashes(flat))) == len(list(candidate_squashes()))
    stripes = np.zeros((40, 40), np.uint8)
    stripes[::2] = 200  # detail only from one row to the next
    assert detail_ratio(stripes) == 0.0 and detail_ratio(stripes.T.copy()) == float("inf")


def test_a_photo_squeezed_by_its_detail_with_long_boxes_along_that_axis_is_squashed_back_however_many_were_found():
    along_y = cv2.resize(textured(64, 640), (640, 640))  # detail lost along y
    along_x = cv2.resize(textured(640, 64), (640, 640))
    assert detail_ratio(along_y) > SQUEEZED_DETAIL_ALONE > 1 / SQUEEZED_DETAIL_ALONE > detail_ratio(along_x)
    tall = tiles(row(7, 100, 100 * BOXES_ALONG_SQUEEZE + 10))  # two stretched tiles a box, no longer than 2.2
    wide = tiles([(0, i * 100.0, 100 * BOXES_ALONG_SQUEEZE + 10, (i + 1) * 100.0) for i in range(7)])
    upright = tiles(row(7, 100, 130))
    assert not looks_stretched(tall, 640, 640) and not looks_stretched(wide, 640, 640)
    assert squeezed_by_detail(along_y, tall) and squeezed_by_detail(along_x, wide)
    assert not squeezed_by_detail(along_y, upright) and not squeezed_by_detail(along_x, upright)
    assert not squeezed_by_detail(along_y, wide) and not squeezed_by_detail(textured(480, 640), tall)
    assert not squeezed_by_detail(along_y, [])
    assert SqueezedPhoto().applies(SimpleNamespace(bgr=along_y, first=Reading(tall)))
    assert not SqueezedPhoto().applies(SimpleNamespace(bgr=textured(480, 640), first=Reading(tall)))


def test_labelled_boxes_give_the_squash_back_to_upright_tiles():
    assert squash_for_boxes(row(14, 30, 40)) is None
    assert squash_for_boxes([]) is None
    tall = squash_for_boxes(row(17, 30, 400))
    assert tall.x == 1 and tall.y == pytest.approx(10)
    wide = squash_for_boxes([(0, i * 48.0, 640, (i + 1) * 48.0) for i in range(12)])
    assert wide.y == 1 and 640 / wide.x == pytest.approx(36)


def test_a_reading_scores_its_tiles_and_their_confidence():
    assert reading_score([]) == 0
    assert reading_score(tiles(row(4, 30, 40), 0.5)) > reading_score(tiles(row(3, 30, 40), 0.6))
