"""A crop read unsurely is read again cut closer, and the two readings averaged (vision.reading.closer_view)."""

from __future__ import annotations

import numpy as np
import pytest

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.reading.closer_view import CLOSER_SCALE, UNSURE_UNDER, closer_box, with_closer_view

CLOSE_UP = "7s"  # what the fake classifier reads in every closer crop, surely


class SizeReader:
    """Reads every crop it is given as ``CLOSE_UP`` at ``sure`` and keeps the boxes it was given."""

    def __init__(self, sure: float = 0.9):
        self.sure = sure
        self.boxes: list[tuple[float, ...]] = []

    def probabilities(self, bgr, boxes) -> np.ndarray:
        self.boxes += [tuple(box) for box in boxes]
        return np.tile(_reading(CLOSE_UP, self.sure), (len(boxes), 1))


def _reading(code: str, sure: float) -> np.ndarray:
    row = np.full(len(DETECTOR_CLASSES), (1 - sure) / (len(DETECTOR_CLASSES) - 1), np.float32)
    row[DETECTOR_CLASSES.index(code)] = sure
    return row


def test_a_closer_box_keeps_its_centre_and_shrinks_each_side():
    x1, y1, x2, y2 = closer_box((100.0, 200.0, 160.0, 280.0))
    assert ((x1 + x2) / 2, (y1 + y2) / 2) == pytest.approx((130.0, 240.0))
    assert (x2 - x1, y2 - y1) == pytest.approx((60 * CLOSER_SCALE, 80 * CLOSER_SCALE))


def test_only_the_crops_read_unsurely_are_read_closer_and_each_reading_is_the_mean_of_both():
    boxes = [(0.0, 0.0, 60.0, 80.0), (100.0, 0.0, 160.0, 80.0), (200.0, 0.0, 260.0, 80.0)]
    first = np.stack([_reading("6s", 0.4), _reading("1m", 0.95), _reading("2m", UNSURE_UNDER)])
    reader = SizeReader()
    probs = with_closer_view(reader, np.zeros((100, 300, 3), np.uint8), boxes, first.copy())
    assert reader.boxes == [pytest.approx(closer_box(boxes[0]))]  # the sure and the just-sure are read once
    assert probs[0] == pytest.approx((first[0] + reader.probabilities(None, [boxes[0]])[0]) / 2)
    assert DETECTOR_CLASSES[int(probs[0].argmax())] == CLOSE_UP
    assert probs[1:] == pytest.approx(first[1:])


def test_no_box_needs_no_closer_reading():
    reader = SizeReader()
    probs = with_closer_view(reader, np.zeros((10, 10, 3), np.uint8), [], np.zeros((0, len(DETECTOR_CLASSES))))
    assert probs.shape == (0, len(DETECTOR_CLASSES)) and reader.boxes == []


def test_a_reading_of_the_crop_turned_is_not_averaged_with_a_view_of_it_as_it_lies():
    boxes = [(0.0, 0.0, 60.0, 80.0), (100.0, 0.0, 160.0, 80.0)]
    first = np.stack([_reading("6s", 0.4), _reading("7s", 0.45)])
    reader = SizeReader()
    probs = with_closer_view(reader, np.zeros((100, 200, 3), np.uint8), boxes, first.copy(), np.array([True, False]))
    assert reader.boxes == [pytest.approx(closer_box(boxes[0]))]
    assert probs[1] == pytest.approx(first[1])


def test_a_closer_view_that_leaves_the_reading_less_sure_is_not_taken():
    box = (0.0, 0.0, 60.0, 80.0)
    first = np.stack([_reading("6s", 0.45)])
    probs = with_closer_view(SizeReader(sure=0.5), np.zeros((100, 100, 3), np.uint8), [box], first.copy())
    assert probs == pytest.approx(first)  # the mean, 7s at about 0.26, is less sure than 6s at 0.45
