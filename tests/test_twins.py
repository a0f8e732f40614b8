"""A loose second box of a tile read already, or a box across two tiles of its code, is dropped; tiles side by side,
on diagonal rows, or read as other codes, stay."""

from __future__ import annotations

from mjlens.vision.detection import Detection
from mjlens.vision.reading.twins import without_boxes_across_pairs, without_loose_twins


def tile(code: str, box, confidence: float = 0.9) -> Detection:
    return Detection(code, tuple(float(v) for v in box), confidence)


def test_a_loose_box_round_a_tight_one_of_the_same_code_goes_whichever_is_surer():
    tight, loose = tile("2m", (100, 100, 140, 150), 0.8), tile("2m", (90, 95, 160, 165), 0.99)
    assert without_loose_twins([loose, tight]) == [tight]
    assert without_loose_twins([tight, loose]) == [tight]


def test_tiles_side_by_side_of_one_code_stay():
    pung = [tile("5z", (100 + 40 * i, 100, 140 + 40 * i, 150)) for i in range(3)]
    assert without_loose_twins(pung) == pung


def test_a_box_holding_another_code_stays():
    """One tile read two ways is the merge step's to settle, not a twin."""
    tiles = [tile("2m", (100, 100, 140, 150)), tile("3m", (90, 95, 160, 165))]
    assert without_loose_twins(tiles) == tiles


def test_a_box_holding_under_the_share_of_the_smaller_stays():
    """Tiles askew in a heap overlap; one holding half of another of its code is still two tiles."""
    tiles = [tile("6s", (100, 100, 140, 150)), tile("6s", (116, 80, 170, 140))]
    assert without_loose_twins(tiles) == tiles


def test_no_tiles_or_one():
    assert without_loose_twins([]) == []
    one = [tile("1z", (0, 0, 10, 10))]
    assert without_loose_twins(one) == one


def test_a_box_across_two_tiles_of_its_code_goes():
    """Two white dragons one above the other, and a third box across the pair (hk-photos valid 94f76111c5d0)."""
    pair = [tile("5z", (332, 385, 413, 438)), tile("5z", (334, 434, 417, 485))]
    across = tile("5z", (334, 399, 416, 470), 1.0)
    assert without_boxes_across_pairs([pair[0], across, pair[1]]) == pair


def test_a_box_across_two_tiles_of_other_codes_stays():
    tiles = [tile("5z", (332, 385, 413, 438)), tile("5z", (334, 399, 416, 470)), tile("6z", (334, 434, 417, 485))]
    assert without_boxes_across_pairs(tiles) == tiles


def test_a_pung_on_a_diagonal_row_stays():
    """Tiles 40 x 52 along a row at 45 degrees: each upright box overlaps its neighbours' at a corner only."""
    side = (40 + 52) / 2 ** 0.5
    step = 40 / 2 ** 0.5
    corners = [100 + step * i for i in range(3)]
    pung = [tile("5z", (c, c, c + side, c + side)) for c in corners]
    assert without_boxes_across_pairs(pung) == pung


def test_a_box_across_a_tile_boxed_twice_stays():
    """Two of its code overlapping each other are one tile boxed twice, the loose-twin rule's to settle."""
    tiles = [tile("3s", (100, 100, 140, 150)), tile("3s", (102, 100, 142, 150)), tile("3s", (110, 100, 150, 150))]
    assert without_boxes_across_pairs(tiles) == tiles
