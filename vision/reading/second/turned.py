"""Photos whose rows run diagonal, or up the photo: read again turned so that the rows run level.

The detector learnt tiles upright or lying sideways (its training photos turned by at most 5 degrees) and the
classifier mostly so. On a row laid diagonally across the photo every tile is turned 20-70 degrees: the detector
doubts some of them (on hk-photos ``valid`` the tiles of such rows it missed had a chance of a tile of 0.19-0.42)
and draws others looser than the row's labels. When most of the tiles found have their nearest neighbour along
one direction (rows) and that direction runs ``DIAGONAL`` degrees or more off the photo's axes, the photo is read
again turned so that the rows run level, and that reading's tiles, their boxes turned back, take the place of the
first reading's (``vision.reading.second.small_tiles.combined``: the first reading's tiles it has no box on stay). Only
the band around
the tiles found is turned and read: a row turned level is long and narrow, and its detector input a third to a
half of a whole photo's. A heap of tiles lying every way is not turned: turned for a few of them, the others'
boxes, turned back, grow loose. Rows running up the photo of tiles lying on their side are a photo taken a quarter
turn off (its EXIF orientation lost or never written): the whole photo is turned a quarter exactly
(``turned_exactly``) each way and read as any photo is, the surer reading taking the first's place
(``vision.reading.reader``): the tiles stand upright or upside down, and either reads better than on their side. A
photo whose faces stand upside down (``vision.reading.second.upside_down``) is turned half round exactly the same way.
The second
readings ``QUARTER_TURN`` and ``DIAGONAL_ROWS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from mjlens.scoring.tiles import BACK_CODE
from mjlens.vision.boxes import box_iou
from mjlens.vision.detection import Detection, boxes_in_pixels
from mjlens.vision.hand.layout import row_angle
from mjlens.vision.reading.path import Photo, Reading, surest
from mjlens.vision.reading.second.small_tiles import SAME_TILE_IOU, both_readings, tile_side

#: Fewer tiles found than this say too little about rows.
MIN_TILES = 5
#: Rows at least this many degrees off the photo's axes are read again turned level.
DIAGONAL = 20.0
#: ... when at least this share of the tiles found have their nearest neighbour within ALONG degrees of the rows'
#: direction: tiles in rows, not a heap.
IN_ROWS, ALONG = 0.8, 20.0
#: The turned reading covers the tiles found and this many tile sides around them (the second reading's tiles are
#: kept only within ``vision.reading.second.small_tiles.REACH`` tile sides of the first's; the rest is the table around
#: the row, which
#: the detector reads its tiles against: with 1.5 it read 2 fewer of the 22 diagonal rows of hk-photos ``valid``).
TURN_MARGIN = 3.0
#: A box turned back spans this share of the way from the upright rectangle round its inscribed ellipse to the one
#: round its corners: a tile's rounded corners and the box's own margin put its outline between the two. Measured
#: on hk-photos ``valid`` (corrected labels) and checked on synthetic held-out photos, whose boxes are the tiles'
#: own: the corners alone (1.0) box the tiles too loosely, the ellipse alone (0.0) too tightly
#: (docs/experiments/diagonal-rows.md).
OUTLINE = 0.5
#: Tiles whose boxes are at least this much wider than tall at the median lie on their side. Boxes nearer square
#: (tiles seen from above, face and body together about as wide as tall) may lie either way: of the hk-photos
#: ``valid`` photos whose rows seem to run up the picture, those of tiles on their side have boxes 1.3-2.4 times as
#: wide as tall, and a grid of upright tiles seen from above, whose rows and columns look alike, 1.00-1.03; turned a
#: quarter, ``valid`` also has 12 photos each way between the two (1.04-1.19).
ON_THEIR_SIDE = 1.2
#: cv2's exact turns of a whole photo, by their angle in ``cv2.getRotationMatrix2D``'s sense (anticlockwise
#: positive).
EXACT_TURNS = {-90.0: cv2.ROTATE_90_CLOCKWISE, 90.0: cv2.ROTATE_90_COUNTERCLOCKWISE, 180.0: cv2.ROTATE_180}
#: Tiles on their side in rows running up the photo (a photo taken a quarter turn off): ``level_turn`` answers a
#: quarter turn (the angle in ``cv2.getRotationMatrix2D``'s sense) and the whole photo is read again turned a quarter
#: both ways (``QUARTER_WAYS``), the reading whose tiles read surer kept (``vision.reading.path.surest``). A photo whose
#: faces read upside down (``vision.reading.second.upside_down``) is read again turned half round (``HALF``), that
#: reading kept where
#: surer than the photo's as it lies: a set whose character tiles are red above, not below, would otherwise be read
#: upside down.
QUARTER, QUARTER_WAYS, HALF = 90.0, (-90.0, 90.0), 180.0


def rows_direction(tiles: Sequence[Detection]) -> float | None:
    """The direction in degrees (``cv2.getRotationMatrix2D``'s sense: that angle turns them level) of the rows the
    ``tiles`` lie in, or None when they are too few or lie in a heap rather than in rows."""
    if len(tiles) < MIN_TILES:
        return None
    boxes = np.array([t.box for t in tiles], float)
    centres = np.c_[(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2]
    theta = row_angle(centres, np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    nearest = diff[np.arange(len(centres)), dist.argmin(axis=1)]
    direction = np.arctan2(nearest[:, 1], nearest[:, 0])
    along = np.abs(np.angle(np.exp(2j * (direction - theta)))) < np.radians(2 * ALONG)  # rows have no head or tail
    return float(np.degrees(theta)) if along.mean() >= IN_ROWS else None


def row_turn(tiles: Sequence[Detection]) -> float | None:
    """The angle in degrees (``cv2.getRotationMatrix2D``'s sense) that turns the rows of ``tiles`` level, or None
    when they are too few, not in rows, or within ``DIAGONAL`` degrees of level or upright already."""
    degrees = rows_direction(tiles)
    if degrees is None or abs((degrees + 45) % 90 - 45) < DIAGONAL:
        return None
    return degrees


def rows_upright(tiles: Sequence[Detection]) -> bool:
    """Whether ``tiles`` lie on their side (wider than tall, at the median) in rows running up the photo, within
    ``DIAGONAL`` degrees of upright: a photo of a table taken a quarter turn off, its EXIF orientation lost or never
    written."""
    degrees = rows_direction(tiles)
    if degrees is None or abs(abs((degrees + 90) % 180 - 90) - 90) >= DIAGONAL:
        return False
    return median_aspect(tiles) > 1


def median_aspect(tiles: Sequence[Detection]) -> float:
    """Width over height of the tiles' boxes, at the median."""
    boxes = np.array([t.box for t in tiles], float)
    return float(np.median((boxes[:, 2] - boxes[:, 0]) / (boxes[:, 3] - boxes[:, 1])))


def turned(bgr: np.ndarray, degrees: float, around: Sequence[Sequence[float]] | None = None,
           margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``bgr`` turned by ``degrees`` (edges repeated into the corners), and the 2 x 3 matrix that takes the turned
    image's pixels back to ``bgr``'s. The turned image holds the whole photo, or with ``around`` (boxes in
    ``bgr``'s pixels) only the upright rectangle around those boxes turned, ``margin`` pixels wider each way: a
    row of tiles turned level is a narrow band, read in a fraction of a whole photo's time."""
    height, width = bgr.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    whole = _corners([(0, 0, width, height)]) @ matrix.T
    lo, hi = np.floor(whole.min(axis=0)), np.ceil(whole.max(axis=0))
    if around is not None:  # the band, never beyond the photo turned whole
        ends = _corners(around) @ matrix.T
        lo = np.maximum(lo, np.floor(ends.min(axis=0) - margin))
        hi = np.minimum(hi, np.ceil(ends.max(axis=0) + margin))
    matrix[:, 2] -= lo
    size = (int(hi[0] - lo[0]), int(hi[1] - lo[1]))
    image = cv2.warpAffine(bgr, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return image, cv2.invertAffineTransform(matrix)


def turned_band(bgr: np.ndarray, degrees: float, tiles: Sequence[Detection], pixel_scale: float = 1.0
                ) -> tuple[np.ndarray, np.ndarray]:
    """The band of ``bgr`` around ``tiles`` (boxes in its pixels over ``pixel_scale``) turned by ``degrees``,
    ``TURN_MARGIN`` tile sides wide each way, and the matrix back (``turned``)."""
    margin = TURN_MARGIN * tile_side(tiles) * pixel_scale
    return turned(bgr, degrees, boxes_in_pixels(tiles, pixel_scale), margin=margin)


def turned_back(tiles: Sequence[Detection], back: np.ndarray, pixel_scale: float = 1.0) -> list[Detection]:
    """``tiles`` read in the turned image (boxes in its pixels over ``pixel_scale``) with their boxes in the
    photo's: each box's centre taken back, and an upright box round it midway (``OUTLINE``) between the rectangle
    round the turned box's corners, as large as the tile can be, and the one round its inscribed ellipse, as small."""
    cos, sin = abs(back[0, 0]), abs(back[1, 0])
    out = []
    for tile in tiles:
        x1, y1, x2, y2 = (v * pixel_scale for v in tile.box)
        half_w, half_h = (x2 - x1) / 2, (y2 - y1) / 2
        centre = back @ np.array([(x1 + x2) / 2, (y1 + y2) / 2, 1.0])
        corners = np.array([half_w * cos + half_h * sin, half_w * sin + half_h * cos])
        ellipse = np.array([np.hypot(half_w * cos, half_h * sin), np.hypot(half_w * sin, half_h * cos)])
        half = OUTLINE * corners + (1 - OUTLINE) * ellipse
        lo, hi = (centre - half) / pixel_scale, (centre + half) / pixel_scale
        out.append(replace(tile, box=(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))))
    return out


def turned_exactly(bgr: np.ndarray, degrees: float) -> np.ndarray:
    """``bgr`` turned a quarter or half round (``degrees`` -90, 90 or 180, ``cv2.getRotationMatrix2D``'s sense)
    exactly, pixel for pixel: the photo as it would have been taken the other way round."""
    return cv2.rotate(bgr, EXACT_TURNS[degrees])


def turned_exactly_back(tiles: Sequence[Detection], degrees: float, width: float, height: float
                        ) -> list[Detection]:
    """``tiles`` read in a photo ``turned_exactly`` by ``degrees`` with their boxes in the photo's (``width`` x
    ``height`` in the boxes' units): a quarter or half turn takes an upright box to an upright box, exactly."""
    turned_size = (width, height) if degrees == HALF else (height, width)
    boxes = turned_exactly_boxes([tile.box for tile in tiles], HALF if degrees == HALF else -degrees, *turned_size)
    return [replace(tile, box=box) for tile, box in zip(tiles, boxes, strict=True)]


def turned_exactly_boxes(boxes: Sequence[Sequence[float]], degrees: float, width: float, height: float
                         ) -> list[tuple[float, float, float, float]]:
    """``boxes`` (x1 y1 x2 y2) of a ``width`` x ``height`` photo, in that photo ``turned_exactly`` by ``degrees``."""
    out = []
    for x1, y1, x2, y2 in boxes:
        if degrees == HALF:
            box = (width - x2, height - y2, width - x1, height - y1)
        elif degrees < 0:  # clockwise: (x, y) goes to (height - y, x)
            box = (height - y2, x1, height - y1, x2)
        else:  # counter-clockwise: (x, y) goes to (y, width - x)
            box = (y1, width - x2, y2, width - x1)
        out.append(tuple(float(v) for v in box))
    return out


def _corners(boxes: Sequence[Sequence[float]]) -> np.ndarray:
    """The four corners of each box (x1 y1 x2 y2) as rows x, y, 1, for a 2 x 3 matrix to move."""
    return np.array([(x, y, 1.0) for x1, y1, x2, y2 in boxes for x in (x1, x2) for y in (y1, y2)], float)


def backs_found_first(again: Sequence[Detection], found: Sequence[Detection]) -> list[Detection]:
    """The tiles of a reading turned level, less its face-down tiles where the first reading found no tile: once
    turned, a patch of green felt between two tiles or past a row's end reads as a green back (on `valid` turned a
    quarter, 3 hands lost so), where the photo as it lies showed the detector no tile."""
    backs = [index for index, tile in enumerate(again) if tile.code == BACK_CODE]
    if not backs:
        return list(again)
    seen = set()
    if found:
        overlap = box_iou(np.array([again[index].box for index in backs]), np.array([tile.box for tile in found]))
        seen = {index for index, row in zip(backs, overlap, strict=True) if row.max() >= SAME_TILE_IOU}
    return [tile for index, tile in enumerate(again) if tile.code != BACK_CODE or index in seen]


def read_turned_whole(photo: Photo, degrees: float) -> Reading:
    """``photo`` turned exactly by ``degrees`` (``turned_exactly``), as it would have been taken the other way round,
    read as any photo is (but never turned whole again), its boxes taken back."""
    again = photo.read_turned_whole(turned_exactly(photo.bgr, degrees))
    return again.moved(lambda tiles: turned_exactly_back(tiles, degrees, photo.width, photo.height))


class QuarterTurn:
    """A photo whose tiles lie on their side in rows running up the picture (``level_turn`` answers ``QUARTER``) is
    read whole turned a quarter each way; the surer of the two readings is the answer (the photo as it lies reads
    worse than either). Of the two, the red of the character tiles (``vision.reading.second.upside_down``) chose worse
    on hk-photos
    ``valid`` than the readings' sureness (docs/experiments/upside-down-photos.md)."""

    name = "quarter turn"
    turns_whole = True
    squashes = False
    ends = True

    def applies(self, photo: Photo) -> bool:
        return photo.level_turn == QUARTER

    def read_again(self, photo: Photo) -> Reading:
        return surest([read_turned_whole(photo, degrees) for degrees in QUARTER_WAYS])

    def weigh(self, so_far: Reading, again: Reading) -> Reading:
        return again


class DiagonalRows:
    """A photo whose rows run diagonal (``level_turn`` answers their angle; inside a photo turned whole, a quarter
    too) is read again in the band round its tiles turned so that they run level, at the larger input where its
    tiles are small (``vision.reading.second.small_tiles``), the boxes taken back (``turned_back``) and its face-down
    tiles kept only where
    the first reading found a tile (``backs_found_first``); both readings together
    (``vision.reading.second.small_tiles.both_readings``)."""

    name = "diagonal rows"
    turns_whole = False
    squashes = False
    ends = False

    def applies(self, photo: Photo) -> bool:
        return photo.level_turn is not None

    def read_again(self, photo: Photo) -> Reading:
        image, back = turned_band(photo.bgr, photo.level_turn, photo.first.tiles, photo.pixel_scale)
        return photo.read(image, photo.zoom).moved(
            lambda tiles: backs_found_first(turned_back(tiles, back, photo.pixel_scale), photo.first.tiles))

    def weigh(self, so_far: Reading, again: Reading) -> Reading:
        return both_readings(so_far, again)


QUARTER_TURN = QuarterTurn()
DIAGONAL_ROWS = DiagonalRows()
