"""Boxes the detector is sure of are kept whatever their reading, unless the photo's edge cuts them or they lie over
a kept tile (vision.reading.sure_boxes)."""

from __future__ import annotations

from mjlens.vision.detection import Detection
from mjlens.vision.reading.sure_boxes import SURE_BOX, sure_boxes

WIDTH, HEIGHT = 1000.0, 800.0


def _box(x: float, y: float = 100.0, chance: float = SURE_BOX, width: float = 60.0, height: float = 80.0
         ) -> Detection:
    return Detection("tile", (x, y, x + width, y + height), chance)


def test_a_sure_box_alone_on_the_table_is_kept_and_an_unsure_one_is_not():
    sure, unsure = _box(400), _box(600, chance=SURE_BOX - 0.01)
    assert sure_boxes([unsure, sure], [], WIDTH, HEIGHT) == [sure]


def test_a_box_cut_by_the_photos_edge_is_not_kept():
    cut = [_box(0), _box(WIDTH - 60), _box(300, y=0), _box(300, y=HEIGHT - 80)]
    assert sure_boxes(cut, [], WIDTH, HEIGHT) == []


def test_a_box_over_a_kept_tile_or_over_a_surer_box_is_not_kept():
    kept = [_box(100)]
    over_kept = _box(130)  # half of it over the kept tile
    beside_kept = _box(158)  # two pixels over: beside it
    surer, over_surer = _box(400, chance=0.9), _box(420, chance=0.8)
    assert sure_boxes([over_kept, beside_kept, over_surer, surer], kept, WIDTH, HEIGHT) == [surer, beside_kept]
