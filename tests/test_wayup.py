"""Which way up a photo's faces stand (``vision.reading.second.upside_down``), and a photo upside down read half round
(``vision.reading.second.upside_down.UPSIDE_DOWN``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_turn import level_anchors, reading, turned_whole_photo
from test_zoom import spied_pair

from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import Reading
from mjlens.vision.reading.second import upside_down as wayup
from mjlens.vision.reading.second.turned import HALF, turned_exactly_back
from mjlens.vision.reading.second.upside_down import MIN_VOTES, UPSIDE_DOWN, reads_upside_down, way_up_votes

RED, BLUE, IVORY, FELT = (30, 30, 200), (160, 60, 20), (225, 235, 240), (60, 140, 60)


def character_row(count: int, upside_down: int = 0) -> tuple[np.ndarray, list[Detection]]:
    """A photo of ``count`` character tiles standing in a row, a blue numeral above a red 萬 (the last
    ``upside_down`` of them turned half round), and their boxes read as 5m."""
    photo = np.full((80, 30 * count + 20, 3), FELT, np.uint8)
    tiles = []
    for k in range(count):
        x = 10 + 30 * k
        face = np.full((50, 26, 3), IVORY, np.uint8)
        face[6:20, 6:20] = BLUE
        face[28:44, 5:21] = RED
        photo[15:65, x:x + 26] = cv2.rotate(face, cv2.ROTATE_180) if k >= count - upside_down else face
        tiles.append(Detection("5m", (x, 15, x + 26, 65), 0.95))
    return photo, tiles


def test_a_character_tile_votes_by_where_its_red_lies():
    photo, tiles = character_row(5, upside_down=2)
    assert way_up_votes(photo, tiles) == (3, 2)
    turned = cv2.rotate(photo, cv2.ROTATE_180)
    width = photo.shape[1]
    back = [Detection(t.code, (width - t.box[2], 80 - t.box[3], width - t.box[0], 80 - t.box[1]), t.confidence)
            for t in tiles]
    assert way_up_votes(turned, back) == (2, 3)


def test_only_character_tiles_read_surely_and_standing_vote():
    photo, tiles = character_row(3, upside_down=3)
    others = [Detection("5p", tiles[0].box, 0.95), Detection("5m", tiles[1].box, 0.5),
              Detection("5m", (tiles[2].box[0] - 20, 15, tiles[2].box[2] + 20, 65), 0.95)]  # wider than tall
    assert way_up_votes(photo, others) == (0, 0)


def test_votes_read_boxes_in_the_photos_own_pixels():
    photo, tiles = character_row(3, upside_down=3)
    halved = [Detection(t.code, tuple(v / 2 for v in t.box), t.confidence) for t in tiles]
    assert way_up_votes(photo, halved, pixel_scale=2.0) == (0, 3)


@pytest.mark.parametrize("count, upside_down, verdict", [
    (MIN_VOTES, MIN_VOTES, True),  # every voter upside down
    (3, 2, True),  # two against one
    (4, 2, False),  # as many each way: a heap
    (1, 1, False),  # one vote may be one tile misread
    (4, 0, False),
])
def test_a_photo_reads_upside_down_only_on_a_clear_majority(count, upside_down, verdict):
    photo, tiles = character_row(count, upside_down)
    assert reads_upside_down(photo, tiles) is verdict


def test_a_photo_without_red_characters_reads_as_it_lies():
    photo, tiles = character_row(4, upside_down=4)
    grey = cv2.cvtColor(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)  # a set whose 萬 is not red
    assert way_up_votes(grey, tiles) == (0, 0) and not reads_upside_down(grey, tiles)


def test_a_photo_whose_faces_read_upside_down_is_read_again_whole_turned_half_round(tmp_path, photo, monkeypatch):
    pair, _ = spied_pair(tmp_path, level_anchors())
    pair.zoom_input = None
    images = []
    raw = pair.detector.raw
    pair.detector.raw = lambda bgr, *args, **kwargs: images.append(bgr) or raw(bgr, *args, **kwargs)
    monkeypatch.setattr(wayup, "reads_upside_down", lambda bgr, tiles, pixel_scale=1.0: bgr is photo)
    for read in (pair.detect, pair.detect_for_eval):
        images.clear()
        read(photo)
        assert len(images) == 2 and np.array_equal(images[1], cv2.rotate(photo, cv2.ROTATE_180))
    monkeypatch.setattr(wayup, "reads_upside_down", lambda bgr, tiles, pixel_scale=1.0: False)
    for read in (pair.detect, pair.detect_for_eval):
        images.clear()
        read(photo)
        assert len(images) == 1


@pytest.mark.parametrize("turned_sureness, kept", [(0.95, "turned"), (0.6, "as it lies"), (0.9, "as it lies")])
def test_the_reading_half_round_takes_the_first_readings_place_only_where_surer(turned_sureness, kept):
    photo = np.zeros((20, 20, 3), np.uint8)  # turned half round, the two boxes change places: none read only once
    so_far = Reading(reading(0.9), reading(0.2))  # tiles, candidates for mAP
    seen, offered = turned_whole_photo(photo, lambda bgr: Reading(reading(turned_sureness), reading(0.1)),
                                       UPSIDE_DOWN, first=so_far)
    answer = UPSIDE_DOWN.weigh(so_far, UPSIDE_DOWN.read_again(seen))
    assert len(offered.open) == 1 and UPSIDE_DOWN not in offered.open[0]  # never turned whole again
    expected = turned_exactly_back(reading(turned_sureness), HALF, width=20, height=20)
    assert answer.tiles == (expected if kept == "turned" else reading(0.9))
    assert answer.candidates == (turned_exactly_back(reading(0.1), HALF, 20, 20) if kept == "turned" else reading(0.2))


def test_the_tiles_only_the_less_sure_reading_found_are_kept_beside_the_surer_one():
    """A heap shows tiles both ways up: the way the photo reads surer names most of them, and a tile read only the
    other way (none of the surer reading's boxes on it) is a tile all the same."""
    both_ways = [Detection("1m", (0, 0, 10, 20), 0.99), Detection("2m", (12, 0, 22, 20), 0.99)]
    as_it_lies = Reading(both_ways + [Detection("1s", (40, 0, 50, 20), 0.55)])
    turned = Reading([Detection("1m", (0, 1, 10, 21), 0.99), Detection("2m", (12, 1, 22, 21), 0.98),
                      Detection("3m", (24, 0, 34, 20), 0.97)])
    answer = UPSIDE_DOWN.weigh(as_it_lies, turned)  # turned reads surer: 0.98 against 0.84 at the mean
    assert sorted((t.code, t.box) for t in answer.tiles) == [
        ("1m", (0, 1, 10, 21)), ("1s", (40, 0, 50, 20)), ("2m", (12, 1, 22, 21)), ("3m", (24, 0, 34, 20))]
    assert UPSIDE_DOWN.weigh(turned, as_it_lies).tiles == answer.tiles  # whichever came first
