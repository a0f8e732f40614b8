"""Photos whose rows run diagonal are read again turned level (``vision.reading.second.turned``)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from test_detector import anchor
from test_zoom import spied_pair

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import KeepAt, Photo, Reading
from mjlens.vision.reading.reader import QUARTER_TURNS
from mjlens.vision.reading.second.squeezed import Squash
from mjlens.vision.reading.second.turned import (
    DIAGONAL,
    MIN_TILES,
    ON_THEIR_SIDE,
    OUTLINE,
    QUARTER,
    QUARTER_TURN,
    backs_found_first,
    median_aspect,
    row_turn,
    rows_upright,
    turned,
    turned_back,
    turned_exactly,
    turned_exactly_back,
)


def diagonal_row(degrees: float, count: int = 8, width: float = 30, height: float = 40) -> list[Detection]:
    """Touching tiles along a row turned ``degrees`` in the picture (y down): each tile's upright box."""
    theta = math.radians(degrees)
    c, s = math.cos(theta), math.sin(theta)
    half_w = (abs(width * c) + abs(height * s)) / 2
    half_h = (abs(width * s) + abs(height * c)) / 2
    centres = [(500 + k * (width + 2) * c, 500 + k * (width + 2) * s) for k in range(count)]
    return [Detection("1m", (x - half_w, y - half_h, x + half_w, y + half_h), 0.9) for x, y in centres]


def level_after(degrees: float, tiles: list[Detection]) -> float:
    """How far the tiles' centres spread across the row once the photo is turned by ``degrees``."""
    matrix = cv2.getRotationMatrix2D((0, 0), degrees, 1.0)
    centres = np.array([[(t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2, 1.0] for t in tiles]) @ matrix.T
    return float(np.ptp(centres[:, 1]))


@pytest.mark.parametrize("degrees", [35.0, -50.0, 65.0])
def test_a_diagonal_row_is_turned_level(degrees):
    row = diagonal_row(degrees)
    turn = row_turn(row)
    assert turn is not None
    assert level_after(turn, row) < 2.0  # the centres end up on one level line


def test_rows_near_level_or_upright_too_few_tiles_and_heaps_are_not_turned():
    assert row_turn(diagonal_row(DIAGONAL - 5)) is None
    assert row_turn(diagonal_row(90 - DIAGONAL + 5)) is None
    assert row_turn(diagonal_row(40, count=MIN_TILES - 1)) is None
    rng = np.random.default_rng(1)  # tiles lying every way, none in a row with its nearest neighbour
    heap = [Detection("1m", (x, y, x + 40, y + 40), 0.9) for x, y in rng.uniform(0, 400, (12, 2))]
    assert row_turn(heap) is None


@pytest.mark.parametrize("degrees", [90.0, -90.0, 90 - DIAGONAL + 5, -90 + DIAGONAL - 5])
def test_rows_running_up_the_photo_are_upright_and_no_others(degrees):
    assert rows_upright(diagonal_row(degrees))  # a row turned a quarter: its tiles on their side, one above the other
    assert not rows_upright(diagonal_row(degrees, width=40, height=30))  # a column of upright tiles, end to end
    assert not rows_upright(diagonal_row(degrees - 90))
    assert not rows_upright(diagonal_row(degrees, count=MIN_TILES - 1))


def test_a_box_found_in_the_turned_photo_is_taken_back_to_the_photo():
    photo = np.zeros((200, 300, 3), np.uint8)
    photo[120:130, 40:50] = 255  # a small white square
    image, back = turned(photo, 40.0)
    assert image.shape[0] > 200 and image.shape[1] > 300  # the whole photo is kept, corners and all
    ys, xs = np.nonzero(image[..., 0] > 128)
    found = Detection("1m", (xs.min() / 2, ys.min() / 2, (xs.max() + 1) / 2, (ys.max() + 1) / 2), 0.9)
    (again,) = turned_back([found], back, pixel_scale=2.0)  # boxes in pixels of a photo decoded at half size
    centre = ((again.box[0] + again.box[2]) / 2, (again.box[1] + again.box[3]) / 2)
    assert centre == pytest.approx((45 / 2, 125 / 2), abs=1.0)
    assert again.box[0] <= 40 / 2 and again.box[2] >= 50 / 2  # the square turned back: no smaller than it


def test_a_box_turned_back_spans_midway_between_its_corners_and_its_inscribed_ellipse():
    cos = sin = np.sqrt(0.5)
    back = np.array([[cos, -sin, 100.0], [sin, cos, 50.0]])  # turned 45 degrees
    (again,) = turned_back([Detection("1m", (0.0, 0.0, 20.0, 40.0), 0.9)], back)
    corners, ellipse = (10 + 20) * cos, np.hypot(10 * cos, 20 * sin)  # half-sides, the same both ways at 45
    assert (again.box[2] - again.box[0]) / 2 == pytest.approx(OUTLINE * corners + (1 - OUTLINE) * ellipse)
    assert (again.box[3] - again.box[1]) / 2 == pytest.approx(OUTLINE * corners + (1 - OUTLINE) * ellipse)
    assert again.center == pytest.approx((100 + (10 - 20) * cos, 50 + (10 + 20) * cos))


def diagonal_anchors() -> list[np.ndarray]:
    """Tiles 10 px wide at a 64 px input, in a row running down at 45 degrees."""
    return [anchor(1 + 9 * k, 1 + 9 * k, 11 + 9 * k, 11 + 9 * k, t9p=0.9) for k in range(6)]


def level_anchors() -> list[np.ndarray]:
    return [anchor(1 + 11 * k, 20, 11 + 11 * k, 34, t9p=0.9) for k in range(5)]


@pytest.mark.parametrize("anchors, runs", [(diagonal_anchors, 2), (level_anchors, 1)])
def test_only_a_photo_of_diagonal_rows_is_read_twice(tmp_path, photo, anchors, runs):
    pair, sizes = spied_pair(tmp_path, anchors())
    pair.zoom_input = None  # the small-tile reading out of the way
    found = pair.detect(photo)
    assert len(sizes) == runs and len(found) >= MIN_TILES
    sizes.clear()
    pair.detect_for_eval(photo)
    assert len(sizes) == runs


def test_the_turned_band_holds_the_tiles_found_and_little_else():
    photo = np.zeros((400, 400, 3), np.uint8)
    row = diagonal_row(45.0, count=6, width=20, height=28)
    row = [Detection(t.code, tuple(v - 380 for v in t.box), t.confidence) for t in row]  # within the photo
    for t in row:
        x1, y1, x2, y2 = map(int, t.box)
        photo[y1 + 8 : y2 - 8, x1 + 8 : x2 - 8] = 255
    whole, _ = turned(photo, row_turn(row))
    band, back = turned(photo, row_turn(row), [t.box for t in row], margin=10)
    assert band.shape[0] < whole.shape[0] / 3 and band.shape[1] <= whole.shape[1]
    ys, xs = np.nonzero(band[..., 0] > 128)  # every tile's white centre lies inside the band
    (again,) = turned_back([Detection("1m", (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), 0.9)], back)
    assert again.box[0] <= row[0].box[0] + 8 and again.box[2] >= row[-1].box[2] - 8


def upright_anchors() -> list[np.ndarray]:
    """Tiles lying on their side (14 wide, 10 tall at a 64 px input), one above the other."""
    return [anchor(20, 1 + 11 * k, 34, 11 + 11 * k, t9p=0.9) for k in range(5)]


class SurestTurn:
    """A classifier reading every crop as 1m, surest when its crop is turned by ``best`` quarter turns clockwise."""

    def __init__(self, best: int):
        self.best, self.turns_asked = best, []

    def probabilities(self, bgr, boxes):
        return self.turned_probabilities(bgr, boxes, (0,))[0]

    def turned_probabilities(self, bgr, boxes, turns):
        self.turns_asked.append(tuple(turns))
        out = np.zeros((len(turns), len(boxes), len(DETECTOR_CLASSES)), np.float32)
        for k, turn in enumerate(turns):
            out[k, :, 0] = 0.99 if turn == self.best else 0.8
            out[k, :, 1] = 1 - out[k, :, 0]
        return out


def test_rows_running_up_are_read_again_whole_a_quarter_turn_each_way(tmp_path, photo):
    pair, sizes = spied_pair(tmp_path, upright_anchors())
    pair.zoom_input = None
    pair.classifier = SurestTurn(1)
    found = pair.find(photo)
    assert rows_upright(found) and row_turn(found) is None and median_aspect(found) >= ON_THEIR_SIDE
    assert pair.level_turn(photo, found) == QUARTER
    assert QUARTER_TURNS not in pair.classifier.turns_asked  # on their side for sure: no crop read turned to tell
    shapes = []
    raw = pair.detector.raw
    pair.detector.raw = lambda bgr, *args, **kwargs: shapes.append(bgr.shape[:2]) or raw(bgr, *args, **kwargs)
    tall = np.concatenate([photo, photo[:64]])  # 192 tall, 128 wide
    for read in (pair.detect, pair.detect_for_eval):
        shapes.clear()
        read(tall)
        assert shapes[0] == (192, 128) and shapes.count((128, 192)) == 2  # read again whole, a quarter each way


def marked_photo() -> np.ndarray:
    """A 50 x 30 photo with one white pixel in a corner: each quarter turn puts it in another corner."""
    photo = np.zeros((30, 50, 3), np.uint8)
    photo[0, 0] = 255
    return photo


def reading(confidence: float) -> list[Detection]:
    return [Detection("1m", (0, 0, 10, 20), confidence), Detection("2m", (10, 0, 20, 20), confidence)]


class ReadsTurned:
    """A stand-in tile reader whose first reading of an image is ``read_as(image)``."""

    def __init__(self, read_as):
        self.read_as = read_as

    def first_reading(self, bgr, pixel_scale=1.0, keep_at=None, input_size=None, around=None, *,
                      candidates_at=None):
        return self.read_as(bgr)


class Offered:
    """A second reading that never applies, but notes which readings are open to each image it is offered."""

    name, turns_whole, ends = "offered", False, False

    def __init__(self):
        self.open = []

    def applies(self, photo):
        self.open.append(photo.readings)
        return False


def turned_whole_photo(photo, read_as, turning, first):
    """``photo`` as the second reading ``turning`` sees it, the images turned from it read as ``read_as`` says;
    and the readings open to those images."""
    offered = Offered()
    every = (turning, offered)
    return Photo(ReadsTurned(read_as), photo, 1.0, KeepAt(0.2, 0.2, 0.2), 0.001, every, every, first), offered


@pytest.mark.parametrize("surer", [-90.0, 90.0])
def test_of_the_two_quarter_turns_the_reading_whose_tiles_read_surer_takes_the_first_readings_place(surer):
    photo = marked_photo()
    upright = turned_exactly(photo, surer)
    sure = {True: (reading(0.9), reading(0.3)), False: (reading(0.5), reading(0.5))}  # tiles, candidates for mAP
    seen, offered = turned_whole_photo(photo, lambda bgr: Reading(*sure[np.array_equal(bgr, upright)]), QUARTER_TURN,
                                       first=Reading(reading(0.6), reading(0.6)))
    kept = QUARTER_TURN.weigh(seen.first, QUARTER_TURN.read_again(seen))
    assert len(offered.open) == 2 and all(QUARTER_TURN not in open for open in offered.open)  # never turned again
    assert kept.tiles == turned_exactly_back(reading(0.9), surer, width=50, height=30)
    assert kept.candidates == turned_exactly_back(reading(0.3), surer, width=50, height=30)


def test_a_squeezed_photo_whose_tiles_lie_on_their_side_once_squashed_back_is_read_a_quarter_turn(tmp_path, photo):
    pair, _ = spied_pair(tmp_path, upright_anchors())
    pair.zoom_input = None
    pair.classifier = SurestTurn(1)
    narrow = np.concatenate([photo] * 3)  # 384 tall, 128 wide: no camera's aspect, looks squeezed
    squash = Squash(y=1.5)
    squashed = squash.apply(narrow)
    pair.best_squash = lambda bgr, to_beat, keep_at=None, *, candidates_at=None: (
        squash, pair.first_reading(squashed, candidates_at=candidates_at), squash.scales(bgr, squashed))
    shapes = []
    raw = pair.detector.raw
    pair.detector.raw = lambda bgr, *args, **kwargs: shapes.append(bgr.shape[:2]) or raw(bgr, *args, **kwargs)
    for read in (pair.detect, pair.detect_for_eval):
        shapes.clear()
        read(narrow)
        assert squashed.shape[1::-1] in shapes  # the squashed photo read again turned a quarter


@pytest.mark.parametrize("degrees", [-90.0, 90.0])
def test_a_box_found_in_the_photo_turned_a_quarter_is_taken_back_exactly(degrees):
    photo = np.zeros((30, 50, 3), np.uint8)
    photo[5:12, 20:40] = 255
    ys, xs = np.nonzero(turned_exactly(photo, degrees)[..., 0])
    assert (xs.max() - xs.min() + 1, ys.max() - ys.min() + 1) == (7, 20)  # on its side once turned
    found = Detection("1m", (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), 0.9)
    (back,) = turned_exactly_back([found], degrees, width=50, height=30)
    assert back.box == (20, 5, 40, 12) and back.code == "1m"


def square_anchors() -> list[np.ndarray]:
    """Tiles about as wide as tall (11 by 10 at a 64 px input), one above the other: on their side, or upright in a
    grid seen from above whose columns look like rows."""
    return [anchor(20, 1 + 11 * k, 31, 11 + 11 * k, t9p=0.9) for k in range(5)]


@pytest.mark.parametrize("best, degrees", [(0, None), (1, QUARTER), (3, QUARTER)])
def test_nearly_square_tiles_are_read_a_quarter_turn_only_where_their_faces_read_surer_so(tmp_path, photo, best,
                                                                                         degrees):
    pair, _ = spied_pair(tmp_path, square_anchors())
    pair.zoom_input = None
    pair.classifier = SurestTurn(best)
    found = pair.find(photo)
    assert rows_upright(found) and median_aspect(found) < ON_THEIR_SIDE
    assert pair.level_turn(photo, found) == degrees


def test_level_rows_are_not_read_for_their_quarter_turns(tmp_path, photo):
    pair, _ = spied_pair(tmp_path, level_anchors())
    pair.classifier = SurestTurn(1)
    assert pair.level_turn(photo, pair.find(photo)) is None
    assert QUARTER_TURNS not in pair.classifier.turns_asked


def test_a_turned_reading_keeps_a_face_down_tile_only_where_the_first_reading_found_a_tile():
    found = [Detection("1m", (0, 0, 30, 40), 0.9), Detection("back", (100, 0, 130, 40), 0.8)]
    again = [
        Detection("1m", (1, 1, 31, 41), 0.95),
        Detection("back", (102, 0, 131, 40), 0.9),  # the first reading's back: kept
        Detection("back", (50, 0, 80, 40), 1.0),  # felt between two tiles, read a back once turned: dropped
        Detection("2m", (200, 0, 230, 40), 0.9),  # a face the first reading missed: kept
    ]
    assert [tile.box for tile in backs_found_first(again, found)] == [again[0].box, again[1].box, again[3].box]
    assert backs_found_first(again, []) == [again[0], again[3]]
    assert backs_found_first(again[:1], found) == again[:1]
