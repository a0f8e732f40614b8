"""Which way up a photo's faces stand, told by the tiles that show it.

A photo taken from across the table shows every face upside down. The crop classifier, trained on photos taken
from every side of the table, names a face as surely either way up, and a bamboo, pin or ``中`` face looks the same
either way: sureness does not tell. A character tile does: in the common Chinese and Hong Kong sets its numeral
stands above a red ``萬``, so the red lies in the lower half of an upright tile and in the upper half of one upside
down. Each character tile read surely and standing in its box casts a vote; a set whose ``萬`` is not red casts
none, and its photos are read as they lie. A photo whose votes say upside down is read again turned half round
(``vision.reading.reader``), and that reading is kept only where it reads surer than the first: in a set whose red
stands above the numeral the votes are wrong, and the check keeps most of its photos as they lie. Tiles lying both
ways up (a heap, tiles scattered) are each read surer one way: the two readings are joined as a reading of small
tiles is joined to the first (``both_readings``): the surer one's tiles near a tile the other found, and the other's
tiles where the surer one has no box. The second reading ``UPSIDE_DOWN``.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from mjlens.vision.detection import Detection, boxes_in_pixels
from mjlens.vision.reading.path import Photo, Reading, surest
from mjlens.vision.reading.second.small_tiles import both_readings
from mjlens.vision.reading.second.turned import HALF, read_turned_whole

#: Codes whose face is red in its lower half when the tile stands upright (the red ``萬`` under the numeral).
RED_BELOW = frozenset(f"{number}m" for number in range(1, 10))
#: A tile votes when read at least this surely ...
VOTER_CONF = 0.8
#: ... standing in its box (taller than wide) at least this many pixels tall ...
VOTER_HEIGHT = 8
#: ... and when one half of its box holds this many times the red pixels of the other, and RED_PIXELS in all.
RED_RATIO, RED_PIXELS = 1.5, 10
#: Red in OpenCV's HSV (hue 0-180): hues at either end of the circle, saturated and not dark.
RED_HUE_LOW, RED_HUE_HIGH, RED_SATURATION, RED_VALUE = 8, 170, 90, 60
#: A photo reads upside down when at least MIN_VOTES tiles say so and VOTE_RATIO times as many as say upright: a
#: heap shows tiles both ways, and one vote can be a tile misread. Chosen on hk-photos ``valid``
#: (docs/experiments/upside-down-photos.md).
MIN_VOTES, VOTE_RATIO = 2, 2.0


def red_pixels(bgr: np.ndarray) -> np.ndarray:
    """A mask of the red pixels of ``bgr``."""
    hue, saturation, value = cv2.split(cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV))
    return ((hue <= RED_HUE_LOW) | (hue >= RED_HUE_HIGH)) & (saturation >= RED_SATURATION) & (value >= RED_VALUE)


def way_up_votes(bgr: np.ndarray, tiles: Sequence[Detection], pixel_scale: float = 1.0) -> tuple[int, int]:
    """How many of ``tiles`` (boxes in pixels of ``bgr`` divided by ``pixel_scale``) stand upright, and how many
    upside down, by where the red of a ``RED_BELOW`` face lies; the other tiles do not vote."""
    height, width = bgr.shape[:2]
    upright = upside_down = 0
    for tile, box in zip(tiles, boxes_in_pixels(tiles, pixel_scale), strict=True):
        if tile.code not in RED_BELOW or tile.confidence < VOTER_CONF:
            continue
        x1, y1 = max(int(round(box[0])), 0), max(int(round(box[1])), 0)
        x2, y2 = min(int(round(box[2])), width), min(int(round(box[3])), height)
        if y2 - y1 < VOTER_HEIGHT or x2 - x1 >= y2 - y1:
            continue
        red = red_pixels(bgr[y1:y2, x1:x2])
        half = red.shape[0] // 2
        above, below = int(red[:half].sum()), int(red[half:].sum())
        if above + below < RED_PIXELS:
            continue
        upright += below > RED_RATIO * above
        upside_down += above > RED_RATIO * below
    return upright, upside_down


def reads_upside_down(bgr: np.ndarray, tiles: Sequence[Detection], pixel_scale: float = 1.0) -> bool:
    """Whether the faces of ``tiles`` in ``bgr`` stand upside down, by their votes (``way_up_votes``)."""
    upright, upside_down = way_up_votes(bgr, tiles, pixel_scale)
    return upside_down >= MIN_VOTES and upside_down >= VOTE_RATIO * upright


class UpsideDown:
    """A photo whose first reading's faces stand upside down (``reads_upside_down``) is read whole turned half
    round, and that reading takes the place of the reading so far only where it reads surer (``surest``, the
    reading so far first of equals); the other's tiles where it has no box stay beside it (``both_readings``)."""

    name = "upside down"
    turns_whole = True
    squashes = False
    ends = False

    def applies(self, photo: Photo) -> bool:
        return reads_upside_down(photo.bgr, photo.first.tiles, photo.pixel_scale)

    def read_again(self, photo: Photo) -> Reading:
        return read_turned_whole(photo, HALF)

    def weigh(self, so_far: Reading, again: Reading) -> Reading:
        surer = surest([so_far, again])
        return both_readings(again if surer is so_far else so_far, surer)


UPSIDE_DOWN = UpsideDown()
