"""Tiles in a row's gaps: an unsure box beside kept tiles of its height, in line, is kept (vision.reading.row_gaps)."""

from __future__ import annotations

from mjlens.vision.detection import Detection
from mjlens.vision.reading.row_gaps import row_gaps


def _tile(x: float, y: float = 100.0, width: float = 60.0, height: float = 80.0, code: str = "1m") -> Detection:
    return Detection(code, (x, y, x + width, y + height), 0.9)


def test_a_box_between_or_beside_kept_tiles_is_kept_and_so_is_one_beside_it():
    kept = [_tile(0), _tile(60), _tile(180)]
    between, after, next_after = _tile(121, code="2m"), _tile(242, code="3m"), _tile(303, code="4m")
    assert row_gaps([next_after, between, after], kept) == [between, after, next_after]


def test_a_box_out_of_line_of_another_height_or_far_off_is_not():
    kept = [_tile(0), _tile(60)]
    below = _tile(120, y=160)
    short = _tile(120, height=40)
    far = _tile(200)
    across = _tile(30)  # over the kept tiles, not beside them
    assert row_gaps([below, short, far, across], kept) == []


def test_nothing_kept_keeps_nothing():
    assert row_gaps([_tile(0), _tile(60)], []) == []
