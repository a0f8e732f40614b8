"""The shipped model reads the sample photos in ``examples/`` against their label files: the quick-start photo
``hand.jpg`` exactly, and the Taiwan sample ``taiwan.jpg`` as a 17-tile hand that scores.

The floor is the tile accuracy measured with the shipped model when it was committed, less one tile of slack,
so that a retrained model that reads the quick-start photo worse fails here (see examples/README.md).
"""

from __future__ import annotations

import pytest
from conftest import EXAMPLES, REPO

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.evaluate import match_tiles, read_labels

MODEL = REPO / "models" / "mjlens-tiles.onnx"
#: Measured: the shipped model reads 14 of the 14 tiles of hand.jpg (examples/README.md).
MEASURED_CORRECT = 14
FLOOR = (MEASURED_CORRECT - 1) / 14


@pytest.fixture(scope="module")
def recognizer():
    if not MODEL.is_file():
        pytest.skip("models/mjlens-tiles.onnx is not present")
    from mjlens.vision.recognize import Recognizer

    return Recognizer(MODEL)


def test_quick_start_photo_is_read(recognizer):
    result = recognizer.recognize_path(EXAMPLES / "hand.jpg")
    labels = read_labels(EXAMPLES / "hand.txt", DETECTOR_CLASSES, result["width"], result["height"])
    assert len(labels) == 14
    from mjlens.vision.detection import Detection

    predictions = [Detection(t["code"], tuple(t["box"]), t["confidence"]) for t in result["tiles"]]
    match = match_tiles(labels, predictions)
    accuracy = len(match.correct) / len(labels)
    assert accuracy >= FLOOR, f"{len(match.correct)}/14 tiles read right: {[t['code'] for t in result['tiles']]}"
    assert not match.extra, f"boxes on no tile: {[t['code'] for t in result['tiles']]}"


#: Measured with the shipped pair (detector + crop classifier): bamboo.jpg 14 of 14, flowers.jpg 17 of 17 with one
#: extra box on an object cut by the photo's corner (two with the earlier models), taiwan.jpg 18 of 18 (its 17 tiles
#: and a face-down one) with none (examples/README.md). One tile of slack each.
@pytest.mark.parametrize(("name", "measured_correct", "max_extra"), [("bamboo", 14, 1), ("flowers", 17, 2),
                                                                      ("taiwan", 18, 0)])
def test_other_examples_are_read(recognizer, name, measured_correct, max_extra):
    from mjlens.vision.detection import Detection

    result = recognizer.recognize_path(EXAMPLES / f"{name}.jpg")
    labels = read_labels(EXAMPLES / f"{name}.txt", DETECTOR_CLASSES, result["width"], result["height"])
    predictions = [Detection(t["code"], tuple(t["box"]), t["confidence"]) for t in result["tiles"]]
    match = match_tiles(labels, predictions)
    assert len(match.correct) >= measured_correct - 1, [t["code"] for t in result["tiles"]]
    assert len(match.extra) <= max_extra


def test_flowers_are_set_apart_in_the_hand(recognizer):
    hand = recognizer.recognize_path(EXAMPLES / "flowers.jpg")["hand"]
    assert sorted(hand["flowers"]) == ["1f", "5f", "6f"]


def hand_tiles(hand: dict) -> int:
    """Tiles a hand counts, as the scorers count them: a kong as three, the winning tile included."""
    return len(hand["concealed"]) + (hand.get("winning_tile") is not None) + 3 * len(hand.get("melds", ()))


@pytest.mark.parametrize(("name", "rules", "tiles"), [("hand", "mcr", 14), ("taiwan", "taiwan", 17)])
def test_the_sample_photos_score(recognizer, name, rules, tiles):
    """The quick start's photos read as winning hands of their rule system (a 16-tile Taiwan hand has 17 tiles)."""
    from mjlens.api.service.pipeline import photo_score_result

    recognition = recognizer.recognize_path(EXAMPLES / f"{name}.jpg")
    assert hand_tiles(recognition["hand"]) == tiles
    _, result = photo_score_result(recognition, rules, {}, {})
    assert result.valid, result.error


#: Measured with the shipped pair: hand.jpg squeezed to 8x its height, or to a quarter of its width, is read
#: 14 of 14 (the reader squashes it back, vision.reading.second.squeezed). One tile of slack.
@pytest.mark.parametrize(("width_factor", "height_factor"), [(1, 8), (0.25, 1)])
def test_a_squeezed_photo_is_read_as_the_photo_it_was(recognizer, width_factor, height_factor):
    import cv2

    from mjlens.vision.detection import Detection

    photo = cv2.imread(str(EXAMPLES / "hand.jpg"))
    height, width = photo.shape[:2]
    squeezed = cv2.resize(photo, (round(width * width_factor), round(height * height_factor)))
    result = recognizer.recognize(cv2.imencode(".png", squeezed)[1].tobytes(), "squeezed.png")
    labels = read_labels(EXAMPLES / "hand.txt", DETECTOR_CLASSES, result["width"], result["height"])
    predictions = [Detection(t["code"], tuple(t["box"]), t["confidence"]) for t in result["tiles"]]
    match = match_tiles(labels, predictions)
    assert len(match.correct) >= 13, [t["code"] for t in result["tiles"]]
    assert len(match.extra) <= 1


def test_the_evaluation_reads_a_squeezed_photo_the_same_way(recognizer):
    import cv2

    photo = cv2.imread(str(EXAMPLES / "hand.jpg"))
    squeezed = cv2.resize(photo, (photo.shape[1], photo.shape[0] * 8))
    candidates, operating = recognizer.detector.detect_for_eval(squeezed)
    labels = read_labels(EXAMPLES / "hand.txt", DETECTOR_CLASSES, squeezed.shape[1], squeezed.shape[0])
    assert len(match_tiles(labels, operating).correct) >= 13
    assert len(match_tiles(labels, candidates).correct) >= 13  # the mAP candidates are in the photo's pixels too


@pytest.mark.parametrize("turn", [1, 2, 3])
@pytest.mark.parametrize(("name", "measured_correct", "max_extra", "concealed", "tiles"), [
    ("hand", 14, 1, 14, 14), ("bamboo", 14, 1, 14, 14), ("flowers", 17, 2, 14, 14), ("taiwan", 18, 0, 4, 17)])
def test_examples_taken_turned_are_read_as_well(recognizer, name, measured_correct, max_extra, concealed, tiles,
                                                turn):
    """A photo turned a quarter or half round with no EXIF orientation to say so (a screenshot, a messenger app):
    its rows run up the photo, its tiles lie on their side, or its faces stand upside down. Measured: every tile of
    every example read each way (flowers.jpg, its character tiles upside down, read again half round), taiwan.jpg's
    four melds kept as melds."""
    import cv2

    from mjlens.vision.detection import Detection
    from mjlens.vision.evaluate import turned_photo

    bgr = cv2.imread(str(EXAMPLES / f"{name}.jpg"))
    labels = read_labels(EXAMPLES / f"{name}.txt", DETECTOR_CLASSES, bgr.shape[1], bgr.shape[0])
    turned, labels = turned_photo(bgr, labels, turn)
    result = recognizer.recognize(cv2.imencode(".png", turned)[1].tobytes(), name)
    predictions = [Detection(t["code"], tuple(t["box"]), t["confidence"]) for t in result["tiles"]]
    match = match_tiles(labels, predictions)
    assert len(match.correct) >= measured_correct - 1, [t["code"] for t in result["tiles"]]
    assert len(match.extra) <= max_extra
    assert len(result["hand"]["concealed"]) == concealed and hand_tiles(result["hand"]) == tiles

