"""A single tile shown close up: read again shrunk into a larger canvas.

The detector learnt tiles whose long side is about 4-18 % of the photo's (20-80 px at its 448 px input). A player
showing one tile to the camera (a flower, the winning tile) fills 40-95 % of the frame with it, and the detector
finds nothing there, or a box it doubts, or boxes on parts of the face: of synthetic close-ups it read half
(docs/experiments/close-ups.md). When the first reading holds no tile, or only a few the largest of which is larger
than that (``BIG``), and reading it squashed back finds no hand (so few tiles make it look squeezed: ``CloseUp``),
the photo is shrunk into the middle of a canvas of its border's colour (``shrunk``), so that the
tile falls in the sizes the detector knows, and read there, the boxes going back to the photo: at each of
``SHRINKS``, and where a tile was found at the share that brings it to ``TARGET`` too; the surest reading is kept. A
photo of a hand has more tiles, of ordinary size, and is never read this way. The second reading ``CLOSE_UP``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import Photo, Reading, surest
from mjlens.vision.reading.second.squeezed import MIN_TILES as HAND_TILES
from mjlens.vision.reading.second.squeezed import SQUEEZED

#: A tile whose long side is at least this share of the photo's long side is larger than the detector learnt.
BIG = 0.18
#: A first reading of more tiles than this is not a close-up of one tile, however large they are: a tile filling the
#: frame is often found as two or three boxes on parts of its face.
MAX_TILES = 3
#: The largest tile found is shrunk until its long side is this share of the canvas's long side (the middle of what
#: the detector learnt).
TARGET = 0.12
#: The photo is also shrunk to each of these shares of the canvas's long side (and only to these with no tile found):
#: a tile filling 40-95 % of the frame then falls within 4-24 % of it at one of them at least, and a box on part of
#: a face says little of the tile's size.
SHRINKS = (0.35, 0.2)
#: The canvas's long side in pixels: the classifier cuts its crops from it, so a tile shrunk into it keeps some 80-340
#: px, no fewer than its crops' 64-96.
CANVAS_SIDE = 1024
#: The share of the photo's side whose pixels give the canvas its colour.
BORDER = 0.03


@dataclass(frozen=True)
class Shrunk:
    """A photo shrunk into the middle of a canvas: canvas pixel = photo pixel x ``scale`` + (``left``, ``top``)."""

    canvas: np.ndarray
    scale: float
    left: int
    top: int

    def back(self, tiles: Sequence[Detection], pixel_scale: float, width: float, height: float) -> list[Detection]:
        """``tiles`` (boxes in canvas pixels) with their boxes in the photo's, over ``pixel_scale``, inside it."""
        factor = self.scale * pixel_scale
        moved = []
        for tile in tiles:
            x1, y1, x2, y2 = tile.box
            box = (min(max((x1 - self.left) / factor, 0.0), width), min(max((y1 - self.top) / factor, 0.0), height),
                   min(max((x2 - self.left) / factor, 0.0), width), min(max((y2 - self.top) / factor, 0.0), height))
            moved.append(replace(tile, box=box))
        return moved


def border_colour(bgr: np.ndarray) -> np.ndarray:
    """The median colour of the photo's outer ``BORDER`` on every side: the table round the tile, mostly."""
    height, width = bgr.shape[:2]
    edge = max(int(round(BORDER * min(height, width))), 1)
    ring = np.concatenate([bgr[:edge].reshape(-1, 3), bgr[-edge:].reshape(-1, 3),
                           bgr[:, :edge].reshape(-1, 3), bgr[:, -edge:].reshape(-1, 3)])
    return np.median(ring, axis=0).astype(np.uint8)


def shrunk(bgr: np.ndarray, share: float, side: int = CANVAS_SIDE) -> Shrunk:
    """``bgr`` shrunk so that its long side is ``share`` of a ``side`` x ``side`` canvas of its border's colour, in
    the canvas's middle."""
    height, width = bgr.shape[:2]
    scale = share * side / max(height, width)
    small = cv2.resize(bgr, (max(int(round(width * scale)), 1), max(int(round(height * scale)), 1)),
                       interpolation=cv2.INTER_AREA)
    canvas = np.empty((side, side, 3), np.uint8)
    canvas[:] = border_colour(bgr)
    top, left = (side - small.shape[0]) // 2, (side - small.shape[1]) // 2
    canvas[top:top + small.shape[0], left:left + small.shape[1]] = small
    return Shrunk(canvas, scale, left, top)


def long_share(tile: Detection, photo: Photo) -> float:
    """The long side of ``tile``'s box over the photo's long side."""
    return max(tile.width, tile.height) / max(photo.width, photo.height)


def shares_to_read(photo: Photo) -> tuple[float, ...]:
    """The shares of the canvas to shrink the photo to (``shrunk``): ``SHRINKS`` with no tile found; with a few
    tiles the largest of which is ``BIG``, the share that brings it to ``TARGET`` too; none for any other photo."""
    tiles = photo.first.tiles
    if not tiles:
        return SHRINKS
    largest = max(long_share(t, photo) for t in tiles)
    if len(tiles) > MAX_TILES or largest < BIG:
        return ()
    return (TARGET / largest, *SHRINKS)


class CloseUp:
    """A photo whose first reading holds no tile, or a few the largest of which is larger than the detector learnt
    (``shares_to_read``). So few tiles make it look squeezed too (``vision.reading.second.squeezed``), and it may
    be: it is read squashed back first, and where that finds a hand (``HAND_TILES`` at least), that is its reading.
    Otherwise it is read shrunk into a canvas (``shrunk``), each share of it in turn, and the surest of these
    readings and that squashed back (where no squash reads better, the first reading) is kept, the latter first of
    equals (``surest``). Either way no other
    second reading follows: the squashed photo was turned where it called for it."""

    name = "close up"
    turns_whole = False
    squashes = True
    ends = True

    def applies(self, photo: Photo) -> bool:
        return bool(shares_to_read(photo))

    def read_again(self, photo: Photo) -> Reading:
        squashed = SQUEEZED.read_again(photo) if SQUEEZED.applies(photo) else photo.first
        if len(squashed.tiles) >= HAND_TILES:
            return squashed
        readings = [squashed]
        for share in shares_to_read(photo):
            made = shrunk(photo.bgr, share)
            reading = photo.reader.first_reading(made.canvas, 1.0, photo.keep_at, candidates_at=photo.candidates_at)
            readings.append(reading.moved(lambda tiles, made=made: made.back(tiles, photo.pixel_scale, photo.width,
                                                                              photo.height)))
        return surest(readings)

    def weigh(self, so_far: Reading, again: Reading) -> Reading:
        return again


CLOSE_UP = CloseUp()
