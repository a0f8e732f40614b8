"""The layout step reads a short row of face-up tiles set apart above the hand as the dora indicators (role
``dora``), never as part of the hand; flowers stay flowers, and a row the hand needs stays the hand's."""

from __future__ import annotations

import pytest
from test_layout import H, Table, W, roles, split

from mjlens.vision.hand.layout import assemble


def above(gap: float) -> float:
    """The centre line of a row set apart above the hand's row by ``gap`` tile lengths, edge to edge."""
    return -(1 + gap) * H


def whole_hand(t: Table) -> tuple[list[int], list[int]]:
    row, win = t.row(0, 0, split("123m456p789s1122z"), ["2z"])
    return row, win


@pytest.mark.parametrize("angle", [0.0, 12.0, -20.0])
@pytest.mark.parametrize("gap", [0.5, 1.6])
def test_a_row_above_the_hand_is_the_dora_indicators_left_to_right(angle, gap):
    t = Table(angle)
    whole_hand(t)
    (dora,) = t.row(3 * (W + 1), above(gap), ["7p", "3m", "1z"], gap=0.0)
    layout = assemble(t.detections(), 2000, 1600)
    assert roles(layout)["dora"] == [dora]  # as laid, left to right
    assert [layout.groups[layout.tile_group[i]]["role"] for i in dora] == ["dora"] * 3
    assert layout.hand.winning_tile == "2z" and len(layout.hand.concealed) == 13
    assert not set(dora) & set(layout.in_hand())
    assert not any("left out" in w or "read as part" in w for w in layout.warnings)


def test_one_indicator_within_a_hand_s_reach_is_no_tile_of_the_hand():
    t = Table()
    whole_hand(t)
    (dora,) = t.row(5 * (W + 1), above(0.3), ["5s"])
    layout = assemble(t.detections(), 1600, 900)
    assert roles(layout)["dora"] == [dora]
    assert layout.hand.winning_tile == "2z" and "5s" not in layout.hand.concealed


def test_indicators_set_apart_from_one_another_are_one_row():
    t = Table()
    whole_hand(t)
    dora = [i for group in t.row(2 * (W + 1), above(0.8), ["3m"], ["6p"], gap=0.8) for i in group]
    layout = assemble(t.detections(), 1600, 900)
    assert roles(layout)["dora"] == [dora]


def test_a_row_of_flowers_above_the_hand_stays_flowers():
    t = Table()
    whole_hand(t)
    (flowers,) = t.row(2 * (W + 1), above(0.8), ["1f", "6f", "7f"], gap=0.0)
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)
    assert roles(layout)["flowers"] == [flowers] and layout.hand.flowers == ("1f", "6f", "7f")


def test_a_mixed_row_keeps_its_bonus_tiles_as_flowers_and_says_so():
    t = Table()
    whole_hand(t)
    (mixed,) = t.row(2 * (W + 1), above(0.8), ["3m", "2f", "7p"], gap=0.0)
    layout = assemble(t.detections(), 1600, 900)
    assert roles(layout)["dora"] == [[mixed[0], mixed[2]]]
    assert roles(layout)["flowers"] == [[mixed[1]]] and layout.hand.flowers == ("2f",)
    assert any("2f" in w and "dora" in w for w in layout.warnings)


def test_a_meld_laid_above_the_row_stays_the_hand_s_meld():
    t = Table()
    (row, win) = t.row(0, 0, split("123m456p78s22z"), ["9s"])
    (pung,) = t.row(2 * (W + 1), above(0.6), ["5z"] * 3, gap=0.0)
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)
    assert [(m.kind, m.tiles) for m in layout.hand.melds] == [("pung", ("5z",) * 3)]


def test_a_tile_above_that_the_hand_needs_stays_the_hand_s():
    t = Table()
    t.row(0, 0, split("123m456p789s112z"), ["2z"])  # a tile short: the one above completes it
    t.row(5 * (W + 1), above(0.3), ["2z"])
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)
    assert layout.hand is not None and len(layout.hand.concealed) == 13


def test_more_tiles_than_indicators_far_above_stay_tiles_of_the_table():
    t = Table()
    whole_hand(t)
    (far,) = t.row(0, above(1.2), split("135m246p"), gap=0.0)  # six: no riichi table shows so many indicators
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)
    assert sorted(i for g in roles(layout)["other"] for i in g) == sorted(far)


def test_a_row_below_the_hand_is_no_dora_row():
    t = Table()
    whole_hand(t)
    (below,) = t.row(2 * (W + 1), (1 + 1.2) * H, ["3m", "7p"], gap=0.0)
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)
    assert sorted(i for g in roles(layout)["other"] for i in g) == sorted(below)


def test_a_recognition_lists_the_dora_group_and_its_hand_leaves_it_out():
    from mjlens.vision.recognize import recognition_json

    t = Table()
    whole_hand(t)
    (dora,) = t.row(3 * (W + 1), above(0.8), ["3s", "7m"], gap=0.0)
    recognition = recognition_json(assemble, t.detections(), 1600, 900, "t.jpg")
    (group,) = [g for g in recognition["groups"] if g["role"] == "dora"]
    assert [recognition["tiles"][i]["code"] for i in group["tiles"]] == ["3s", "7m"]
    assert "3s" not in recognition["hand"]["concealed"] and recognition["hand"]["winning_tile"] == "2z"


def test_a_row_beyond_another_row_above_the_hand_is_no_dora_row():
    t = Table()
    whole_hand(t)
    t.row(0, above(0.05), split("135m246p"), gap=0.0)  # a row right above the hand, as in a grid of tiles
    t.row(2 * (W + 1), above(0.05) - 1.05 * H, ["3m", "7p"], gap=0.0)
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)


def test_a_tile_of_a_heap_above_the_hand_is_no_dora_row():
    t = Table()
    whole_hand(t)
    t.row(5 * (W + 1), above(1.6), ["4s"])
    t.row(5 * (W + 1) - 1.2 * W, above(1.6) - 0.7 * H, ["8m"])  # the heap's tiles lie close around it
    t.row(5 * (W + 1) + 1.2 * W, above(1.6) - 0.75 * H, ["2z"])
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)


def test_a_row_above_a_hand_that_is_not_whole_is_no_dora_row():
    t = Table()
    t.row(0, 0, split("123m456p789s112z"), ["2z"])  # a tile short
    t.row(3 * (W + 1), above(1.6), ["3m"])
    layout = assemble(t.detections(), 1600, 900)
    assert "dora" not in roles(layout)
