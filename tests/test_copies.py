"""One photo holds one tile set: a fifth copy, or a second flower, gives way to its runner-up reading."""

from mjlens.vision.detection import Detection
from mjlens.vision.reading.copies import copy_warnings, limit_copies, over_limit, overruled
from mjlens.vision.recognize import Recognizer


def tile(code: str, confidence: float, *alternatives: tuple[str, float], x: float = 0.0) -> Detection:
    return Detection(code, (x, 0.0, x + 10.0, 14.0), confidence, tuple(alternatives))


def test_the_copy_that_loses_least_takes_its_runner_up():
    reading = [tile("3m", 0.99, ("2m", 0.01)) for _ in range(3)]
    reading += [tile("3m", 0.60, ("5m", 0.05)), tile("3m", 0.70, ("2m", 0.30))]  # 0.40 lost by the last, 0.55 first
    fixed = limit_copies(reading)
    assert [t.code for t in fixed] == ["3m", "3m", "3m", "3m", "2m"]
    assert fixed[4].confidence == 0.30 and fixed[4].alternatives == (("3m", 0.70),)
    assert overruled(fixed[4]) and not any(overruled(t) for t in fixed[:4])
    assert not over_limit(fixed)


def test_a_runner_up_without_room_gives_way_to_the_next():
    full = [tile("2m", 0.99) for _ in range(4)]
    fixed = limit_copies(full + [tile("3m", 0.9) for _ in range(4)] + [tile("3m", 0.5, ("2m", 0.3), ("1m", 0.2))])
    assert fixed[-1].code == "1m" and fixed[-1].alternatives == (("3m", 0.5), ("2m", 0.3))


def test_a_second_flower_is_read_again_and_backs_have_no_limit():
    fixed = limit_copies([tile("3f", 0.9, ("1f", 0.05)), tile("3f", 0.55, ("1f", 0.40))] + [tile("back", 0.9)] * 6)
    assert [t.code for t in fixed[:2]] == ["3f", "1f"] and [t.code for t in fixed[2:]] == ["back"] * 6


def test_an_unlikely_runner_up_leaves_the_extra_copy_reported():
    reading = [tile("7z", 0.95, ("6z", 0.03)) for _ in range(5)]
    assert limit_copies(reading) == reading
    assert over_limit(reading) == {"7z": 5}
    assert copy_warnings(reading) == ["7z is read 5 times, but one set holds only 4: check those tiles"]


def test_the_recognizer_says_which_tiles_the_rule_moved():
    reading = limit_copies([tile("5p", 0.9, x=20.0 * i) for i in range(4)] + [tile("5p", 0.6, ("6p", 0.3), x=80)])
    recognizer = Recognizer.__new__(Recognizer)
    recognizer._assemble = None  # the tiles list and its warnings alone
    result = recognizer.assemble(reading, 200, 20, "row.jpg")
    assert result["tiles"][4]["code"] == "6p"
    assert any(w.startswith("tile 4 looks most like 5p (0.60)") for w in result["warnings"])
