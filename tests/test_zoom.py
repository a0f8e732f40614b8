"""Photos whose tiles are small at the detector's input are read again at a larger one
(``vision.reading.second.small_tiles``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_detector import anchor, split, tiny_model
from test_twostage import tiny_classifier

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import Reading
from mjlens.vision.reading.reader import TwoStageDetector
from mjlens.vision.reading.second.small_tiles import (
    COVERED,
    FAR_ZOOM_INPUT,
    FEW_GAIN,
    FEW_LARGE,
    REACH,
    SMALL_TILE,
    ZOOM_INPUT,
    ZOOM_MARGIN,
    ZOOM_TILE,
    band,
    combined,
    few_tiles_input,
    larger_first,
    median_tile_side,
    near,
    second_reading_input,
    tile_side,
)
from mjlens.vision.reading.second.squeezed import squeezed_by_detail_alone
from mjlens.vision.runtime.classifier import CropClassifier
from mjlens.vision.runtime.detector import Detector, decode


def row(count: int, width: float, height: float) -> list[Detection]:
    return [Detection("1m", (i * width, 0.0, (i + 1) * width, height), 0.9) for i in range(count)]


def test_the_tile_side_is_measured_at_the_detectors_input():
    assert median_tile_side(row(14, 20, 30), photo_side=1000, input_size=500) == pytest.approx(10)
    assert median_tile_side(row(14, 30, 20), photo_side=1000, input_size=500) == pytest.approx(10)  # sideways


def test_small_tiles_call_for_the_larger_input_and_others_do_not():
    small = row(14, 46, 60)  # 20.6 px at 448 in a 1000 px photo: 35 px at ZOOM_INPUT
    assert second_reading_input(small, 1000, 800, input_size=448) == ZOOM_INPUT
    assert second_reading_input(row(14, 60, 80), 1000, 800, input_size=448) is None  # 27 px at 448: large enough
    assert second_reading_input(row(3, 10, 14), 1000, 800, input_size=448) is None  # too few tiles to judge by
    assert second_reading_input(small, 1000, 800, input_size=ZOOM_INPUT) is None  # never smaller, or the same again
    limit = SMALL_TILE * 1000 / 448  # photo pixels
    assert second_reading_input(row(14, limit - 1, 90), 1000, 800, input_size=448) == ZOOM_INPUT
    assert second_reading_input(row(14, limit + 1, 90), 1000, 800, input_size=448) is None


def test_tiles_the_larger_input_still_leaves_small_are_read_larger_still_where_the_photo_has_the_pixels():
    far = ZOOM_TILE / ZOOM_INPUT * 2000  # photo pixels of a 2000 px photo: ZOOM_TILE px at ZOOM_INPUT
    assert second_reading_input(row(14, far - 1, far * 1.3), 2000, 1500, input_size=448) == FAR_ZOOM_INPUT
    assert second_reading_input(row(14, far + 1, far * 1.3), 2000, 1500, input_size=448) == ZOOM_INPUT
    assert few_tiles_input(row(2, far - 1, far * 1.3), 2000, 1500, input_size=448) == FAR_ZOOM_INPUT
    assert few_tiles_input(row(2, far + 1, far * 1.3), 2000, 1500, input_size=448) == ZOOM_INPUT
    # the same tiles in a photo decoded smaller than the far input, or one enlarged: nothing more to see
    small = row(14, (far - 1) / 2, far * 0.65)
    assert second_reading_input(small, 1000, 750, input_size=448) == ZOOM_INPUT
    assert second_reading_input(row(14, far - 1, far * 1.3), 2000, 1500, input_size=448, pixels=1000) == ZOOM_INPUT


def test_the_second_reading_is_kept_next_to_the_tiles_of_the_first():
    found = row(5, 20, 30)  # centres at x = 10, 30, ... 90; tile side 20
    gap_filler = Detection("2m", (100, 0, 120, 30), 0.9)  # the next tile of the row
    far = Detection("3m", (90 + 20 * REACH + 15, 0, 90 + 20 * REACH + 35, 30), 0.9)  # centre past the reach
    assert near([*found, gap_filler, far], found) == [*found, gap_filler]
    assert near(found, []) == []


def test_tiles_of_the_first_reading_that_the_second_has_no_box_on_stay():
    found = row(5, 20, 30)
    flower = Detection("5f", (200, 0, 220, 30), 0.9)  # set apart, beyond the reach
    better = [Detection(t.code, (t.box[0] + 1, t.box[1], t.box[2] + 1, t.box[3]), 0.95) for t in found[:4]]
    result = combined(better, [*found, flower])
    assert result == [*better, found[4], flower]  # the second reading where it has a box, the first elsewhere
    assert combined([], found) == found
    candidates = [*found, Detection("9m", (300, 0, 320, 30), 0.01)]  # a far low candidate box (mAP)
    assert combined(better, candidates, found=found) == [*better, *candidates[4:]]


def spied_pair(tmp_path, rows, input_size=64, fixed=False) -> tuple[TwoStageDetector, list]:
    """A tiny pair whose detector records the input size asked of each run."""
    tmp_path.mkdir(exist_ok=True)
    model = tiny_model(tmp_path / "det.onnx", rows, list(DETECTOR_CLASSES), size=input_size if fixed else None)
    detector = Detector(model, threads=1, input_size=input_size)
    sizes = []
    raw = detector.raw

    arounds = []

    def recording(bgr, pixel_scale=1.0, input_size=None, around=None):
        sizes.append(input_size)
        arounds.append(around)
        return raw(bgr, pixel_scale, input_size, around)

    detector.raw = recording
    pair = TwoStageDetector(detector, CropClassifier(tiny_classifier(tmp_path / "cls.onnx"), threads=1))
    pair.arounds = arounds  # the rectangle each run was asked to read around (None: the whole photo)
    return pair, sizes


def tiles(side: float, per_row: int = 5, rows: int = 1) -> list[np.ndarray]:
    """Anchors of tiles ``side`` px wide (at the input), ``per_row`` a row."""
    return [anchor(2 + k * (side + 1), 2 + r * 1.4 * side, 2 + k * (side + 1) + side, 2 + r * 1.4 * side + 1.3 * side,
                   t9p=0.9) for r in range(rows) for k in range(per_row)]


def test_a_photo_of_small_tiles_is_read_again_at_the_larger_input(tmp_path, photo):
    pair, sizes = spied_pair(tmp_path, tiles(8))  # 8 px at a 64 px input
    pair.few_tiles = 0  # the first reading of few tiles stands (the test below makes it again)
    found = pair.detect(photo)
    assert sizes == [None, ZOOM_INPUT]
    # the second reading's boxes are kept: the same anchors, read at ZOOM_INPUT input px for the 128 px photo
    assert min(d.box[2] for d in found) == pytest.approx((2 + 8) * 128 / ZOOM_INPUT)
    # both readings' tiles, ten read 3m, pass the copy rule together: four take their runner-up 4m, the only room
    assert len(found) == 10 and sum(d.code == "4m" for d in found) == 4
    # the second reading runs only round the tiles found first, ZOOM_MARGIN tile sides beyond them
    asked = pair.arounds[1]
    first = pair.find(photo)
    assert pair.arounds[0] is None and asked == pytest.approx(band(first))
    assert asked[0] == pytest.approx(min(d.box[0] for d in first) - ZOOM_MARGIN * tile_side(first))
    sizes.clear()
    pair.arounds.clear()
    pair.detect_for_eval(photo)
    assert sizes == [None, ZOOM_INPUT] and pair.arounds[0] is None and pair.arounds[1] is not None


def test_a_first_reading_of_few_small_tiles_is_made_again_larger_and_kept_where_it_finds_more(tmp_path, photo):
    assert few_tiles_input(row(12, 20, 30), 1000, 800, input_size=448) == ZOOM_INPUT  # 9 px at 448
    assert few_tiles_input([], 1000, 800, input_size=448) == ZOOM_INPUT  # nothing found at all
    assert few_tiles_input(row(13, 20, 30), 1000, 800, input_size=448) is None  # a hand's worth: judged by size
    large = FEW_LARGE * 1000 / 448 + 1
    assert few_tiles_input(row(3, large, large * 1.3), 1000, 800, input_size=448) is None  # a close-up
    assert few_tiles_input(row(3, 20, 30), 1000, 800, input_size=ZOOM_INPUT) is None

    found_larger: list[Detection] = []

    def more_when_larger(bgr, pixel_scale=1.0, keep_at=None, input_size=None, around=None, **kwargs):
        reading = first_reading(bgr, pixel_scale, keep_at, input_size, around, **kwargs)
        if input_size == ZOOM_INPUT and around is None:  # the whole photo read larger finds these tiles more
            return Reading([*reading.tiles, *found_larger], reading.candidates)
        return reading

    more = [Detection("5p", (1 + 30 * k, 100, 20 + 30 * k, 125), 0.99) for k in range(FEW_GAIN)]
    for extra, kept in ((more, True), (more[:1], False)):  # one tile more is as often a false one
        pair, sizes = spied_pair(tmp_path / str(len(extra)), tiles(8))
        first_reading = pair.first_reading
        found_larger[:] = extra
        pair.first_reading = more_when_larger
        assert (more[0] in pair.detect(photo)) == kept
    assert larger_first(row(2, 20, 30), row(2 + FEW_GAIN, 20, 30))
    assert not larger_first(row(2, 20, 30), row(3, 20, 30))
    many, sizes = spied_pair(tmp_path / "many", tiles(8, rows=3))  # as many as a hand: read once whole
    many.detect(photo)
    assert sizes == [None, ZOOM_INPUT] and many.arounds[1] is not None


def test_a_squeezed_photo_of_few_tiles_is_not_read_again_larger(tmp_path):
    """Its tiles are stretched, not small: the squeezed-photo reading reads them, and a larger input finds none."""
    noise = np.random.default_rng(3).integers(0, 256, (128, 16, 3), dtype=np.uint8)
    squeezed = cv2.resize(cv2.GaussianBlur(noise, (5, 5), 1.0), (128, 128))  # a strip stretched 8 times along x
    assert squeezed_by_detail_alone(squeezed)
    pair, sizes = spied_pair(tmp_path, tiles(8))
    assert pair.few_tiles_zoom(pair.find(squeezed), squeezed) is None
    assert pair.few_tiles_zoom(pair.find(squeezed), squeezed.transpose(1, 0, 2).copy()) is None
    as_taken = cv2.GaussianBlur(np.random.default_rng(3).integers(0, 256, (128, 128, 3), dtype=np.uint8), (5, 5), 1.0)
    assert not squeezed_by_detail_alone(as_taken)
    assert pair.few_tiles_zoom(pair.find(as_taken), as_taken) == ZOOM_INPUT


def test_large_tiles_and_fixed_inputs_are_read_once(tmp_path, photo):
    pair, sizes = spied_pair(tmp_path, tiles(SMALL_TILE + 2, per_row=4, rows=4), input_size=128)
    pair.detect(photo)
    assert sizes == [None]
    fixed, sizes = spied_pair(tmp_path / "fixed", tiles(8), fixed=True)
    fixed.detect(photo)
    assert sizes == [None]
    once, sizes = spied_pair(tmp_path / "once", tiles(8))
    once.zoom_input = None  # the second reading switched off
    once.detect(photo)
    assert sizes == [None]


def test_a_box_over_two_halves_of_neighbouring_tiles_can_be_dropped():
    left, right = anchor(0, 0, 20, 30, t1m=0.9), anchor(20, 0, 40, 30, t2m=0.9)
    straddling = anchor(8, 0, 34, 30, t3m=0.8)  # 12 px over the left tile, 14 over the right: 26 of 26 covered
    boxes, scores = split([left, right, straddling])
    assert len(decode(boxes, scores, DETECTOR_CLASSES, conf=0.5)) == 3  # each overlap alone is under the limits
    kept = decode(boxes, scores, DETECTOR_CLASSES, conf=0.5, covered=COVERED)
    assert sorted(d.code for d in kept) == ["1m", "2m"]
    side_by_side = anchor(30, 0, 50, 30, t3m=0.8)  # half over the right tile only: a tile of its own
    boxes, scores = split([left, right, side_by_side])
    assert len(decode(boxes, scores, DETECTOR_CLASSES, conf=0.5, covered=COVERED)) == 3
