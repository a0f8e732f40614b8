"""A face-down tile read on a box no tile is shaped like, inside the photo, is a tile's side or the space between two:
not read (vision.reading.edge_on)."""

from __future__ import annotations

from test_detector import anchor, tiny_model
from test_twostage import TurnedReader

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.reading.edge_on import edge_on
from mjlens.vision.reading.reader import TwoStageDetector
from mjlens.vision.runtime.detector import Detector


def test_a_box_longer_than_any_tile_inside_the_photo_is_edge_on():
    assert edge_on((100, 100, 130, 200), 640, 480)  # 3.3 times taller than wide
    assert edge_on((100, 100, 200, 130), 640, 480)  # and wider than tall
    assert not edge_on((100, 100, 140, 180), 640, 480)  # a tile standing, its thickness showing: 2
    assert not edge_on((100, 100, 152, 140), 640, 480)  # a tile lying on its side in a meld
    assert not edge_on((0, 100, 30, 200), 640, 480)  # the photo's edge cuts it: part of a tile
    assert not edge_on((100, 390, 130, 480), 640, 480)


def _pair(tmp_path, code: str) -> TwoStageDetector:
    # anchors at the 64 px input of the 128 px photo: boxes twice as large there
    rows = [anchor(15, 5, 22, 30, t1m=0.9),  # 3.6 times taller than wide, inside the photo
            anchor(30, 5, 40, 18, t1m=0.9),  # a tile's shape
            anchor(0.2, 5, 7, 30, t1m=0.9)]  # as long, cut by the photo's left edge
    detector = Detector(tiny_model(tmp_path / "det.onnx", rows, list(DETECTOR_CLASSES)), threads=1)
    return TwoStageDetector(detector, TurnedReader(code, 0.9, {}), zoom_input=None)


def test_a_face_down_tile_is_not_read_on_a_box_no_tile_has_but_a_face_is(tmp_path, photo):
    backs = _pair(tmp_path, "back").find(photo)
    assert sorted(round(t.box[0]) for t in backs) == [0, 60]  # the long box inside the photo is not read
    faces = _pair(tmp_path, "1m").find(photo)
    assert len(faces) == 3  # a face read there is a face (a tile cut by another, a sliver to check by eye)
