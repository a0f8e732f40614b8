"""Tiles lying sideways among upright tiles are read turned back (vision.reading.sideways)."""

from __future__ import annotations

import numpy as np
import pytest

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.reading.sideways import lying_sideways, read_sideways


def _tile(x: float, width: float = 60.0, height: float = 80.0, y: float = 100.0, code: str = "8m") -> Detection:
    return Detection(code, (x, y + 80.0 - height, x + width, y + 80.0), 0.99)


def _row() -> list[Detection]:
    """Three upright tiles, a called tile on its side, then two upright tiles (a gap of one tile before them)."""
    return [_tile(0), _tile(60), _tile(120), _tile(180, width=80, height=60), _tile(320), _tile(380)]


def test_a_wide_box_among_upright_ones_lies_sideways_and_no_other():
    assert lying_sideways(_row()) == [3]


def test_the_tile_added_on_a_sideways_tile_lies_sideways_too():
    added = _tile(181, width=79, height=60, y=40)  # on the called tile, as the fourth tile of a kong
    beside = _tile(240, width=80, height=60, y=40)  # as wide, but on no sideways tile
    assert lying_sideways([*_row(), added]) == [3, 6]
    assert lying_sideways([*_row()[:3], _tile(180), beside]) == []


def test_a_row_all_on_its_side_or_a_tile_alone_is_left_to_the_other_readings():
    on_their_side = [_tile(x, width=80, height=60) for x in (0, 80, 160)]
    assert lying_sideways(on_their_side) == []
    assert lying_sideways([_tile(0, width=80, height=60)]) == []
    below = [_tile(0), _tile(60), _tile(0, width=80, height=60, y=300)]  # another line
    assert lying_sideways(below) == []


class _Classifier:
    """Reads 8m as the tile lies, 9m turned a quarter clockwise, ``other`` turned the other way."""

    def __init__(self, other: dict[str, float]):
        self.other = other

    def turned_probabilities(self, bgr, boxes, turns):
        out = np.zeros((len(turns), len(boxes), len(DETECTOR_CLASSES)), np.float32)
        for k, turn in enumerate(turns):
            for code, p in ({"8m": 0.99} if turn == 0 else {"9m": 0.9} if turn == 1 else self.other).items():
                out[k, :, DETECTOR_CLASSES.index(code)] = p
        return out


@pytest.mark.parametrize(("other", "read"), [({"8m": 0.95}, "9m"), ({"7m": 0.99, "9m": 0.01}, "9m")])
def test_a_sideways_tile_is_named_turned_back_the_usual_way_unless_the_other_is_much_surer(other, read):
    tiles = read_sideways(_Classifier(other), np.zeros((200, 500, 3), np.uint8), _row())
    assert [t.code for t in tiles] == ["8m", "8m", "8m", read, "8m", "8m"]
    assert tiles[3].box == _row()[3].box


def test_the_other_way_wins_where_it_reads_much_surer():
    class Other(_Classifier):
        def turned_probabilities(self, bgr, boxes, turns):
            out = super().turned_probabilities(bgr, boxes, turns)
            out[list(turns).index(1)] *= 0.5  # 9m 0.45 the usual way
            return out

    tiles = read_sideways(Other({"7m": 0.99}), np.zeros((200, 500, 3), np.uint8), _row())
    assert tiles[3].code == "7m" and tiles[3].alternatives == ()


def test_a_riichi_meld_s_called_nine_is_read_as_a_nine(shared_dir):
    from mjlens.vision.recognize import Recognizer

    photo = shared_dir / "datasets" / "real-sets" / "lietxia" / "images" / "70008812c48104906006daca34704f4a.jpg"
    if not photo.is_file():
        pytest.skip("real-sets/lietxia is not in this copy of the shared data")
    tiles = Recognizer().recognize_path(photo)["tiles"]
    called = [t for t in tiles if 950 < t["box"][0] < 975 and 340 < t["box"][1] < 365]  # the kan's sideways 9m
    assert [t["code"] for t in called] == ["9m"]
