"""Red fives (``vision.reading.red_fives``): a five whose ink is red all over is read ``0m 0p 0s``, a Chinese five with
a red centre is not, and the reading names the red five in its tiles and its hand alike."""

from __future__ import annotations

import glob

import cv2
import numpy as np
import pytest

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.reading.red_fives import inner_crop, load_red_five_judge, with_red_fives

RED, BLUE, BLACK, GREEN = (40, 30, 200), (160, 60, 20), (30, 30, 30), (40, 120, 30)
CENTRES = ((0.3, 0.25), (0.7, 0.25), (0.5, 0.5), (0.3, 0.75), (0.7, 0.75))


@pytest.fixture(scope="module")
def judge():
    return load_red_five_judge()


def five_of_dots(colours) -> np.ndarray:
    """A 5p drawn on a cream face under a grey table: one colour per circle (BGR), in ``CENTRES`` order."""
    bgr = np.full((140, 110, 3), (215, 228, 236), np.uint8)
    for (x, y), colour in zip(CENTRES, colours, strict=True):
        centre = (int(x * 110), int(y * 140))
        cv2.circle(bgr, centre, 15, colour, 4)
        cv2.circle(bgr, centre, 6, colour, -1)
    return bgr


def five_of_sticks(colours) -> np.ndarray:
    """A 5s: five sticks, one colour each, in ``CENTRES`` order."""
    bgr = np.full((140, 110, 3), (215, 228, 236), np.uint8)
    for (x, y), colour in zip(CENTRES, colours, strict=True):
        cx, cy = int(x * 110), int(y * 140)
        cv2.rectangle(bgr, (cx - 6, cy - 20), (cx + 6, cy + 20), colour, -1)
    return bgr


def middle(bgr: np.ndarray) -> np.ndarray:
    return inner_crop(bgr, (0, 0, bgr.shape[1], bgr.shape[0]))


def test_a_five_red_all_over_is_red(judge):
    assert judge.is_red("5p", middle(five_of_dots([RED] * 5)))
    assert judge.is_red("5s", middle(five_of_sticks([RED] * 5)))


def test_a_five_with_a_red_centre_or_dark_ink_is_plain(judge):
    assert not judge.is_red("5p", middle(five_of_dots([BLUE, BLUE, RED, BLUE, BLUE])))
    assert not judge.is_red("5p", middle(five_of_dots([BLACK] * 5)))
    assert not judge.is_red("5s", middle(five_of_sticks([GREEN, GREEN, RED, GREEN, GREEN])))
    assert not judge.is_red("5s", middle(five_of_sticks([BLACK] * 5)))


def test_only_tiles_read_as_fives_are_judged(judge):
    bgr = np.zeros((140, 330, 3), np.uint8)
    bgr[:, :110] = bgr[:, 110:220] = bgr[:, 220:] = five_of_dots([RED] * 5)
    boxes = [(0, 0, 110, 140), (110, 0, 220, 140), (220, 0, 330, 140)]
    assert judge.red_tiles(bgr, 1.0, ["5p", "4p", "5p"], boxes) == {0, 2}
    # boxes are photo pixels: a photo decoded at half its size is read at half the box
    half = cv2.resize(bgr, (165, 70), interpolation=cv2.INTER_AREA)
    assert judge.red_tiles(half, 0.5, ["5p", "4p", "5p"], boxes) == {0, 2}


def recognition():
    tiles = [{"code": c, "box": [0, 0, 1, 1], "confidence": 0.9, "group": g}
             for c, g in (("4p", 0), ("5p", 0), ("6p", 0), ("5s", 2), ("5s", 2), ("5s", 2), ("5m", 1), ("5m", 3))]
    groups = [{"role": "concealed", "tiles": [0, 1, 2]}, {"role": "winning", "tiles": [6]},
              {"role": "meld", "kind": "pung", "concealed": False, "tiles": [3, 4, 5]}, {"role": "other", "tiles": [7]}]
    hand = {"concealed": ["4p", "5p", "6p"], "melds": [{"kind": "pung", "tiles": ["5s", "5s", "5s"],
                                                         "concealed": False}], "winning_tile": "5m", "flowers": []}
    return {"tiles": tiles, "groups": groups, "hand": hand, "warnings": []}


def test_red_fives_are_named_in_the_tiles_and_the_hand_alike():
    before = recognition()
    after = with_red_fives(before, {1, 4, 6, 7})
    assert [t["code"] for t in after["tiles"]] == ["4p", "0p", "6p", "5s", "0s", "5s", "0m", "0m"]
    assert after["hand"]["concealed"] == ["4p", "0p", "6p"]
    assert sorted(after["hand"]["melds"][0]["tiles"]) == ["0s", "5s", "5s"]
    assert after["hand"]["winning_tile"] == "0m"
    assert before["tiles"][1]["code"] == "5p" and before["hand"]["concealed"][1] == "5p"  # the input is kept
    assert with_red_fives(before, set()) is before


def test_the_red_fives_of_a_real_riichi_row_are_read_red(shared_dir):
    from mjlens.vision.recognize import Recognizer

    photo = shared_dir / "datasets" / "real-sets" / "toby" / "images" / "tests_resources_toby_test.jpg"
    if not photo.is_file():
        pytest.skip("real-sets/toby is not in this copy of the shared data")
    codes = [t["code"] for t in Recognizer().recognize_path(photo)["tiles"]]
    assert "0p" in codes and "0s" in codes
    assert not {"5p", "5s"} & set(codes)


def test_the_plain_fives_of_real_photos_are_never_read_red(shared_dir, judge):
    """hk-photos' held-out fives (a Chinese set: red centres, warm light) and the cut faces of three other sets."""
    valid = shared_dir / "datasets" / "hk-photos" / "valid"
    fives = {DETECTOR_CLASSES.index(f): f for f in ("5m", "5p", "5s")}
    judged, red = 0, []
    for labels in sorted((valid / "labels").glob("*.txt")):
        rows = [r.split() for r in labels.read_text().splitlines() if r.strip() and int(r.split()[0]) in fives]
        images = glob.glob(str(valid / "images" / labels.stem) + ".*")
        if not rows or not images:
            continue
        bgr = cv2.imread(images[0])
        height, width = bgr.shape[:2]
        for row in rows:
            cx, cy, w, h = (float(v) for v in row[1:5])
            box = ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)
            judged += 1
            if judge.red_tiles(bgr, 1.0, [fives[int(row[0])]], [box]):
                red.append(labels.stem)
    crops = [p for pattern in ("other-crops/*/5[mps]/*.jpg", "real-sets/kch3coo-crops/5[mps].jpg")
             for p in glob.glob(str(shared_dir / "datasets" / pattern))]
    for path in crops:
        bgr = cv2.imread(path)
        code = "5" + path.rsplit("/", 2)[-2][-1] if "other-crops" in path else path[-6:-4]
        judged += 1
        if judge.red_tiles(bgr, 1.0, [code], [(0, 0, bgr.shape[1], bgr.shape[0])]):
            red.append(path)
    if judged == 0:
        pytest.skip("no labelled fives in this copy of the shared data")
    assert red == []


def test_a_missing_or_broken_judge_is_a_model_error(tmp_path):
    from mjlens.vision.runtime.detector import ModelError

    with pytest.raises(ModelError) as missing:
        load_red_five_judge(tmp_path / "absent.json")
    assert missing.value.code == "model_missing"
    for text in ("not json", '{"features": ["other"]}', '{"features": ["red_of_ink"], "weights": 3}'):
        (tmp_path / "bad.json").write_text(text)
        with pytest.raises(ModelError) as broken:
            load_red_five_judge(tmp_path / "bad.json")
        assert broken.value.code == "model_invalid"
