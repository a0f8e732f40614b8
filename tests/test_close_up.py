"""A single tile shown close up: when the reader reads it again shrunk into a canvas, the boxes going back to the
photo, and a synthetic close-up (the vendored art) read as its tile."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import KeepAt, Photo, Reading
from mjlens.vision.reading.second import SECOND_READINGS
from mjlens.vision.reading.second.close_up import CLOSE_UP, SHRINKS, TARGET, shares_to_read, shrunk

REPO = Path(__file__).resolve().parent.parent
VENDORED_ART = REPO / "datasets" / "tile-art"
ART_SET = "xhokir_regular_flowers"


def photo_with(tiles: list[Detection], width: int = 800, height: int = 600) -> Photo:
    bgr = np.zeros((height, width, 3), np.uint8)
    return Photo(None, bgr, 1.0, KeepAt(0.2, 0.15, 0.1), None, SECOND_READINGS, SECOND_READINGS,  # type: ignore[arg-type]
                 Reading(tiles))


def tile(x: float, y: float, width: float, height: float, code: str = "1f") -> Detection:
    return Detection(code, (x, y, x + width, y + height), 0.9)


def test_no_tile_found_is_read_at_every_shrink():
    assert shares_to_read(photo_with([])) == SHRINKS
    assert CLOSE_UP.applies(photo_with([]))


def test_one_large_tile_is_shrunk_to_the_detectors_sizes():
    big = tile(200, 50, 300, 400)  # its long side half the photo's
    assert shares_to_read(photo_with([big])) == pytest.approx((TARGET / 0.5, *SHRINKS))


@pytest.mark.parametrize("tiles", [
    [tile(40 + 45 * i, 300, 40, 55) for i in range(14)],  # a hand: tiles of ordinary size
    [tile(100, 100, 60, 80)],  # one tile of ordinary size: read as it is
    [tile(100 * i, 0, 100, 200) for i in range(4)],  # more than a close-up's tiles
])
def test_other_photos_are_not_close_ups(tiles):
    assert not CLOSE_UP.applies(photo_with(tiles))


def test_boxes_in_the_canvas_go_back_to_the_photo():
    bgr = np.full((300, 200, 3), 90, np.uint8)
    made = shrunk(bgr, 0.25, side=400)
    assert made.canvas.shape == (400, 400, 3)
    box = (20.0, 30.0, 80.0, 140.0)  # the photo, 100 x 150, decoded at twice its size
    in_canvas = Detection("1f", tuple(v * 2 * made.scale + (made.left, made.top)[i % 2] for i, v in enumerate(box)),
                          0.9)
    (back,) = made.back([in_canvas], 2.0, 100.0, 150.0)
    assert back.box == pytest.approx(box)


def test_the_canvas_takes_the_colour_round_the_photo():
    bgr = np.full((100, 100, 3), (10, 120, 40), np.uint8)
    bgr[30:70, 30:70] = 255  # the tile
    made = shrunk(bgr, 0.3, side=200)
    assert tuple(made.canvas[0, 0]) == (10, 120, 40)


@pytest.mark.skipif(not (VENDORED_ART / ART_SET).is_dir(), reason="the vendored tile art is absent")
@pytest.mark.parametrize("code", ["3f", "7f"])
def test_a_close_up_is_read_as_its_tile(code):
    from mjlens.vision.reading.reader import load_tile_reader
    from mjlens.vision.runtime.decode import load_image
    from mjlens.vision.synth.art import ArtBank
    from mjlens.vision.synth.close_up import close_up

    shot = close_up(np.random.default_rng([5, int(code[0])]), ArtBank(VENDORED_ART, [ART_SET]), code)
    assert 0.4 <= shot.fill <= 0.96
    ok, jpeg = cv2.imencode(".jpg", shot.image)
    reader = load_tile_reader()
    image = load_image(jpeg.tobytes(), target_side=reader.decode_side)
    assert [t.code for t in reader.detect(image.bgr, image.scale)] == [code]
