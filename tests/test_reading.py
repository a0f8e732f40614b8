"""One reading path (``vision.reading.path``): the second readings in their order, and the product and ``mjlens eval``
reading a photo alike."""

from __future__ import annotations

import numpy as np
import pytest
from test_turn import diagonal_anchors, level_anchors, upright_anchors
from test_zoom import spied_pair, tiles

from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import KeepAt, Reading, read_photo
from mjlens.vision.reading.second import SECOND_READINGS
from mjlens.vision.reading.second.small_tiles import FEW_TILES


def test_the_second_readings_are_tried_in_one_order():
    assert [second.name for second in SECOND_READINGS] == [
        "close up", "squeezed", "quarter turn", "diagonal rows", "small tiles", "upside down"]
    assert [second.name for second in SECOND_READINGS if second.turns_whole] == ["quarter turn", "upside down"]


class FirstReader:
    """A stand-in tile reader: every image's first reading is one 1m read at 0.5, a candidate beside it."""

    def first_reading(self, bgr, pixel_scale=1.0, keep_at=None, input_size=None, around=None, *,
                      candidates_at=None):
        tile = Detection("1m", (0, 0, 10, 10), 0.5)
        return Reading([tile], None if candidates_at is None else [tile, Detection("2m", (0, 0, 10, 10), 0.1)])


class Again:
    """A second reading that applies where ``applies`` says, reads one tile of ``code`` and is weighed by adding it."""

    turns_whole = squashes = False

    def __init__(self, code: str, applies: bool = True, ends: bool = False):
        self.name, self.code, self.applying, self.ends = code, code, applies, ends
        self.asked = 0

    def applies(self, photo):
        self.asked += 1
        return self.applying

    def read_again(self, photo):
        again = [Detection(self.code, (20, 0, 30, 10), 0.9)]
        return Reading(again, None if photo.candidates_at is None else again)

    def weigh(self, so_far, again):
        return Reading(so_far.tiles + again.tiles,
                       None if so_far.candidates is None else so_far.candidates + again.candidates)


def test_the_readings_that_apply_are_weighed_in_order_until_one_that_ends():
    readings = [Again("3m"), Again("4m", applies=False), Again("5m", ends=True), Again("6m")]
    photo = np.zeros((10, 40, 3), np.uint8)
    answer = read_photo(FirstReader(), photo, 1.0, KeepAt(0.2, 0.2, 0.2), readings)
    assert [t.code for t in answer.tiles] == ["1m", "3m", "5m"] and answer.candidates is None
    assert [second.asked for second in readings] == [1, 1, 1, 0]  # after one that ends, none is asked
    with_candidates = read_photo(FirstReader(), photo, 1.0, KeepAt(0.2, 0.2, 0.2), readings, candidates_at=0.001)
    assert with_candidates.tiles == answer.tiles  # the same tiles, the candidates kept along the way
    assert [t.code for t in with_candidates.candidates] == ["1m", "2m", "3m", "5m"]


class Squashing(Again):
    """Reads the image squashed back (here: as it is) and goes on there with ``within`` only."""

    squashes = True

    def __init__(self, within):
        super().__init__("squashed", ends=True)
        self.within = within

    def read_again(self, photo):
        return photo.read_squashed(photo.bgr, self.within, photo.first)

    def weigh(self, so_far, again):
        return again


class TurningWhole(Again):
    """Reads the image turned whole (here: as it is), as any photo is but never turned whole again."""

    turns_whole = True

    def read_again(self, photo):
        return photo.read_turned_whole(photo.bgr)


def test_an_image_squashed_back_is_not_squashed_again_however_it_is_turned():
    turning = TurningWhole("turned")
    squashing = Squashing([turning])
    other = Again("5m")
    read_photo(FirstReader(), np.zeros((10, 40, 3), np.uint8), 1.0, KeepAt(0.2, 0.2, 0.2), [squashing, turning, other])
    assert squashing.asked == 1  # the squashed image, turned whole, is read with the others, not squashed again
    assert turning.asked == 1 and other.asked == 1


@pytest.mark.parametrize("anchors, runs, few_tiles", [
    (level_anchors, [None, 768], 0),  # tiles small at the 64 px input: read again larger
    (diagonal_anchors, [None, 768], 0),  # a diagonal row: read again turned level (and larger)
    (upright_anchors, [None, None, 768, None, 768], 0),  # rows running up: read whole a quarter turn each way
    (lambda: tiles(8), [None] * 15, 0),  # too few tiles kept: located at every squash, the best three read
    # fewer tiles than a hand, small: the whole photo read larger first; no more tiles there, so the first reading
    # stands and goes on to the squashes
    (lambda: tiles(8), [None, 768] + [None] * 14, FEW_TILES),
])
def test_the_product_and_the_evaluation_keep_the_same_tiles(tmp_path, anchors, runs, few_tiles):
    pair, sizes = spied_pair(tmp_path, anchors())
    pair.few_tiles = few_tiles  # 0: the first reading of few tiles stands, as each second reading is tested here
    photo = np.zeros((128, 192, 3), np.uint8)
    tiles_read = pair.detect(photo)
    assert sizes == runs  # the detector's input size at each run
    sizes.clear()
    candidates, operating = pair.detect_for_eval(photo)
    assert operating == tiles_read and sizes == runs  # the same reading, the same runs of the detector
    assert len(candidates) >= len(operating)
