"""Blank faces in a row's gaps: a gap whole tiles wide, the colour of the row's faces, read as 5z is kept
(vision.reading.blank_faces)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.reading.blank_faces import blank_faces, gap_places

CLOTH, FACE, INK = (60, 120, 40), (225, 235, 240), (20, 20, 20)


def _tile(x: float, code: str = "4z", width: float = 60.0, height: float = 80.0) -> Detection:
    return Detection(code, (x, 100.0 + 80.0 - height, x + width, 180.0), 0.99)


def _photo(faces: list[tuple[float, bool]]) -> np.ndarray:
    """Green cloth with a face at each (x, inked) place, 60 x 80 px."""
    bgr = np.full((300, 700, 3), CLOTH, np.uint8)
    for x, inked in faces:
        cv2.rectangle(bgr, (int(x) + 2, 102), (int(x) + 57, 177), FACE, -1)
        if inked:
            cv2.rectangle(bgr, (int(x) + 24, 115), (int(x) + 36, 165), INK, -1)
    return bgr


class _ReadsBlank:
    def __init__(self, chance: float = 0.9):
        self.chance = chance

    def turned_probabilities(self, bgr, boxes, turns):
        out = np.zeros((len(turns), len(boxes), len(DETECTOR_CLASSES)), np.float32)
        out[:, :, DETECTOR_CLASSES.index("5z")] = self.chance
        return out


def test_a_gap_of_whole_tiles_gives_a_place_per_tile_and_a_looser_gap_none():
    row = [_tile(0), _tile(60), _tile(240), _tile(300), _tile(420)]
    places = gap_places(row)
    assert [tuple(round(v) for v in box) for box, _, _ in places] == [(120, 100, 180, 180), (180, 100, 240, 180),
                                                                      (360, 100, 420, 180)]
    assert gap_places([_tile(0), _tile(60), _tile(150)]) == []  # a gap of a tile and a half
    assert gap_places([_tile(0), Detection("1m", (120.0, 300.0, 180.0, 380.0), 0.9)]) == []  # another line


def test_a_sideways_neighbour_bounds_the_gap_but_the_upright_one_sizes_it():
    row = [_tile(0), Detection("9m", (120.0, 120.0, 200.0, 180.0), 0.99)]
    assert [tuple(round(v) for v in box) for box, _, _ in gap_places(row)] == [(60, 100, 120, 180)]


def test_white_faces_in_the_gap_are_kept_as_5z_and_the_cloth_between_melds_is_not():
    row = [_tile(0), _tile(60), _tile(240), _tile(300), _tile(420)]
    bgr = _photo([(0, True), (60, True), (120, False), (180, False), (240, True), (300, True), (420, True)])
    found = blank_faces(_ReadsBlank(), bgr, row)
    assert [(t.code, round(t.box[0])) for t in found] == [("5z", 120), ("5z", 180)]  # 360-420 shows the cloth
    assert blank_faces(_ReadsBlank(0.5), bgr, row) == []  # a face read unsurely is left out


def test_riichi_blank_dragons_in_a_hand_row_are_read(shared_dir):
    from mjlens.vision.recognize import Recognizer

    photo = shared_dir / "datasets" / "real-sets" / "lietxia" / "images" / "70008812c48104906006daca34704f4a.jpg"
    if not photo.is_file():
        pytest.skip("real-sets/lietxia is not in this copy of the shared data")
    tiles = Recognizer().recognize_path(photo)["tiles"]
    row = [t["code"] for t in tiles if 330 < (t["box"][1] + t["box"][3]) / 2 < 420 and 700 < t["box"][0] < 960]
    assert row == ["5z", "5z", "5z"]
