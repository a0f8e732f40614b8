"""A winning hand's tiles (``vision.hand.winning``): one unsure tile read as its runner-up where that alone completes
the
hand, and the recognizer saying so."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mjlens.scoring.hand import Hand
from mjlens.scoring.notation import parse
from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import ALTERNATIVE_MIN, assemble
from mjlens.vision.hand.winning import SURE, completing_readings, is_complete, winning_reading
from mjlens.vision.recognize import Recognizer

WIDTH, HEIGHT = 640, 200


def row(codes: list[str], unsure: dict[int, tuple[float, tuple[tuple[str, float], ...]]] | None = None
        ) -> list[Detection]:
    """``codes`` as a row of touching upright tiles across the photo, each read at 0.98; ``unsure[k]``: tile k read
    at that confidence with those runner-ups."""
    tiles = []
    for k, code in enumerate(codes):
        confidence, alternatives = (unsure or {}).get(k, (0.98, ()))
        x = 20 + 40 * k
        tiles.append(Detection(code, (x, 60, x + 38, 110), confidence, alternatives))
    return tiles


def tiles(text: str) -> list[str]:
    """The tiles of a piece of notation, in its order."""
    return list(parse(text).concealed)


@pytest.mark.parametrize("notation, complete", [
    ("123m456p789s11122z", True),
    ("123m456p789s11123z", False),
    ("1122m3344p5566s77z", True),  # seven pairs
    ("19m19p19s12345677z", True),  # thirteen orphans
    ("147m258p369s12345z", True),  # honours and knitted tiles (Chinese Official)
    ("123456789m11p [555z]", True),
    ("123456789m11p [555z] [6666z]", True),  # 17 with the kong counted as three: five sets and a pair (Taiwan)
    ("123456789m123p11s456s", True),  # 17 tiles: five sets and a pair (Taiwan)
    ("123m456p789s1111z22z", False),  # 16 tiles: no hand has that many
])
def test_a_hand_is_complete_when_some_rule_system_takes_its_shape(notation, complete):
    assert is_complete(parse(notation)) is complete


def test_a_hand_with_a_fifth_copy_is_not_complete():
    five_ones = ("1m",) * 5 + tuple(tiles("234m567m999m"))  # a pung, a pair of 1m and three sets: but five 1m
    assert not is_complete(Hand(five_ones))


def test_one_unsure_tile_whose_runner_up_completes_the_hand_is_read_so():
    codes = tiles("123m456p789s11123z")  # 3z read where the photo shows a second 2z
    read = row(codes, {13: (0.55, (("2z", 0.3), ("4z", 0.1)))})
    layout = assemble(read, WIDTH, HEIGHT)
    assert completing_readings(read, layout) == [(13, "2z", 0.3)]
    tiles_read, again = winning_reading(read, layout, lambda t: assemble(t, WIDTH, HEIGHT))
    assert tiles_read[13].code == "2z" and tiles_read[13].confidence == 0.3
    assert tiles_read[13].alternatives == (("3z", 0.55), ("4z", 0.1))  # the first reading first
    assert is_complete(again.hand)
    assert any("3z read at 0.55 was taken for its runner-up 2z" in w for w in again.warnings)
    assert read[13].code == "3z"  # the reading given is left as it was


@pytest.mark.parametrize("unsure", [
    {13: (SURE, (("2z", 0.3),))},  # read surely: kept
    {13: (0.55, (("2z", ALTERNATIVE_MIN / 2),))},  # a runner-up too unlikely
    {13: (0.55, (("4z", 0.2),))},  # a runner-up that does not complete the hand
])
def test_a_sure_tile_or_an_unlikely_or_useless_runner_up_changes_nothing(unsure):
    read = row(tiles("123m456p789s11123z"), unsure)
    layout = assemble(read, WIDTH, HEIGHT)
    tiles_read, again = winning_reading(read, layout, lambda t: assemble(t, WIDTH, HEIGHT))
    assert tiles_read == read and again is layout


def test_two_ways_to_complete_the_hand_leave_it_as_read():
    read = row(tiles("235m456p789s111z22z"), {2: (0.5, (("1m", 0.3), ("4m", 0.2)))})  # 1m or 4m completes 23m
    layout = assemble(read, WIDTH, HEIGHT)
    assert len(completing_readings(read, layout)) == 2
    assert winning_reading(read, layout, lambda t: assemble(t, WIDTH, HEIGHT)) == (read, layout)


def test_a_complete_hand_or_no_hand_is_left_alone():
    read = row(tiles("123m456p789s11122z"), {0: (0.5, (("2m", 0.4),))})
    assert completing_readings(read, assemble(read, WIDTH, HEIGHT)) == []
    assert completing_readings(read, SimpleNamespace(hand=None, groups=[])) == []


def test_the_recognizer_answers_the_completed_hand_and_says_which_tile_it_read_again():
    class Reader:
        input_size = 640

        def detect(self, bgr, scale=1.0):
            return row(tiles("123m456p789s11123z"), {13: (0.55, (("2z", 0.3),))})

    recognizer = Recognizer(detector=Reader())
    result = recognizer.assemble(Reader().detect(None), WIDTH, HEIGHT, "photo")
    assert [t["code"] for t in result["tiles"]][13] == "2z"
    assert result["tiles"][13]["alternatives"][0] == {"code": "3z", "confidence": 0.55}
    assert result["hand"]["concealed"].count("2z") == 2 and "3z" not in result["hand"]["concealed"]
    assert any("runner-up 2z" in w for w in result["warnings"])
