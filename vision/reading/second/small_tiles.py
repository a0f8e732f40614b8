"""Photos whose tiles are small: read again at a larger detector input.

The detector learnt tiles whose short side, at its input, is about 20-60 px (hk-photos at 448-640 px). In a photo
of a whole table, or of a hand far from the camera, they shrink to 10-20 px there, and the detector loses a third
to a half of them: on synthetic held-out photos it finds 47 % of the tiles whose median short side is 10-14 px at
448, against 85-92 % above 18 px (docs/experiments/small-tiles.md). When the tiles found are that small, the photo
is read again at ``ZOOM_INPUT`` px, where they reach the sizes the detector knows. That reading is kept where it
lies next to the tiles of the first (``near``): it fills the gaps of the rows already found rather than reading
every discard across the table (on hk-photos ``valid`` the whole second reading adds about 60 boxes, real tiles on
the table around the hand that the labels leave out, and a phone); the first reading's tiles it has no box on stay
(``combined``), and so the detector runs only on the part of the larger input round the tiles found
(``ZOOM_MARGIN``). The classifier cuts its crops from the decoded photo either way, so only where the boxes are found
changes. The second reading ``SMALL_TILES``.

A first reading that found fewer tiles than a hand, none of them large, has too few to judge their size by: in a
whole-table photo the detector may find one or two tiles of a hand standing across the table. The first reading
is then made again over the whole photo at ``ZOOM_INPUT``, and kept where it finds several tiles more
(``few_tiles_input``, ``larger_first``; docs/experiments/small-tiles.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mjlens.vision.boxes import box_iou
from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import Photo, Reading, one_set

#: Fewer tiles found than this are too few to judge their size by (a hand has at least 13).
MIN_TILES = 5
#: Tiles whose median short side is below this many pixels at the detector's input are read again larger.
SMALL_TILE = 24
#: The long side of the detector's input for that second reading; where even that leaves the median tile under
#: ``ZOOM_TILE`` px (a whole table seen from a chair: tiles under about 19 px at 448) and the photo has the pixels
#: (a long side of ``FAR_ZOOM_INPUT`` at least: a photo enlarged adds no detail, and hk-photos ``valid`` shrunk read
#: worse so), ``FAR_ZOOM_INPUT`` (docs/experiments/small-tiles.md, "Whole tables read larger").
ZOOM_INPUT, FAR_ZOOM_INPUT, ZOOM_TILE = 768, 1024, 32.0
#: A tile of the second reading is kept when its centre lies within this many tile sides (the first reading's
#: median short side) of the centre of a tile the first reading found.
REACH = 1.5
#: The second reading runs the detector only on the part of its input holding the tiles found and this many tile
#: sides around them (``Detector.raw``'s ``around``): its tiles are kept only within ``REACH`` tile sides of the
#: first's, and the rest is the table around them that the detector reads its tiles against. A photo of small tiles
#: is mostly table, so that part is a fraction of the input, and of the time: on hk-photos ``valid`` shrunk to 45 %,
#: 99 ms a photo read twice instead of 145, tile accuracy 0.9388 against 0.9392, 173 photos exactly right against
#: 168 (3 tile sides: 93 ms, 0.9372, 171); at full size the same figures (docs/experiments/small-tiles.md).
ZOOM_MARGIN = 6.0
#: A first reading with fewer tiles than a hand (``few_tiles_input``) whose median tile is under this many pixels
#: at the detector's input is made again at ``ZOOM_INPUT`` over the whole photo (``larger_first``).
FEW_TILES, FEW_LARGE = 13, 40
#: ... and that reading kept only where it finds this many tiles more: a hand lost by its size comes back whole
#: (1 -> 18, 9 -> 30 on the real whole-table photos), while one tile more is as often a false one (a drawing).
FEW_GAIN = 3
#: A tile of the first reading overlapping a kept tile of the second this much is the same tile.
SAME_TILE_IOU = 0.3
#: In the second reading, a box whose area better boxes cover together this much is dropped: at 768 px the
#: detector also outlines two halves of neighbouring tiles as one (chosen on the tuning photos, seed 9002).
COVERED = 0.8


def tile_side(tiles: Sequence[Detection]) -> float:
    """The median short side of the boxes of ``tiles``, in their pixels (a tile upright or sideways)."""
    return float(np.median([min(t.box[2] - t.box[0], t.box[3] - t.box[1]) for t in tiles]))


def median_tile_side(tiles: Sequence[Detection], photo_side: float, input_size: int) -> float:
    """The median short side of ``tiles`` (boxes in photo pixels) at a detector input of ``input_size`` px for a
    photo whose long side is ``photo_side`` px."""
    return tile_side(tiles) * input_size / photo_side


def second_reading_input(tiles: Sequence[Detection], width: float, height: float, input_size: int,
                         small_tile: float = SMALL_TILE, zoom: int = ZOOM_INPUT, pixels: float | None = None
                         ) -> int | None:
    """The input size to read the photo again at (``width`` x ``height``, the boxes' pixels; ``pixels``: the long
    side of the image the detector reads, by default the same), or None when the tiles found are too few to judge
    by (``MIN_TILES``) or large enough already."""
    if len(tiles) < MIN_TILES or zoom <= input_size:
        return None
    side = median_tile_side(tiles, max(width, height), input_size)
    return zoom_to_read(side, input_size, zoom, pixels or max(width, height)) if side < small_tile else None


def zoom_to_read(side: float, input_size: int, zoom: int, pixels: float) -> int:
    """The input to read tiles ``side`` px at ``input_size`` again at, in an image ``pixels`` px on its long side:
    ``zoom``, or ``FAR_ZOOM_INPUT`` where ``zoom`` leaves them under ``ZOOM_TILE`` px and the image has the pixels."""
    if side * zoom / input_size >= ZOOM_TILE or pixels < FAR_ZOOM_INPUT:
        return zoom
    return max(zoom, FAR_ZOOM_INPUT)


def few_tiles_input(found: Sequence[Detection], width: float, height: float, input_size: int,
                    zoom: int = ZOOM_INPUT, few: int = FEW_TILES, pixels: float | None = None) -> int | None:
    """The input size to read the whole photo at afresh when its first reading found fewer tiles than a hand
    (``few``: ``FEW_TILES``), none of them large (``FEW_LARGE``): in a photo of a whole table, or of a hand standing far
    off, the tiles may be too small for the detector to find more than a few, too few for ``second_reading_input``
    to judge their size by. None when it found enough, or large ones (a close-up), or the input is that large;
    ``pixels`` as ``second_reading_input``."""
    if len(found) >= few or zoom <= input_size:
        return None
    if not found:
        return zoom
    side = median_tile_side(found, max(width, height), input_size)
    return None if side >= FEW_LARGE else zoom_to_read(side, input_size, zoom, pixels or max(width, height))


def larger_first(first: Sequence[Detection], larger: Sequence[Detection]) -> bool:
    """Whether the first reading made again larger (``larger``) replaces the first (``first``): it finds at least
    ``FEW_GAIN`` tiles more and scores higher (the sum of its tiles' confidences)."""
    return (len(larger) >= len(first) + FEW_GAIN
            and sum(t.confidence for t in larger) > sum(t.confidence for t in first))


def band(tiles: Sequence[Detection], margin: float = ZOOM_MARGIN) -> tuple[float, float, float, float]:
    """The rectangle (x1, y1, x2, y2) round ``tiles`` and ``margin`` tile sides (``tile_side``) beyond them."""
    boxes = np.array([t.box for t in tiles], float)
    grow = margin * tile_side(tiles)
    (x1, y1), (x2, y2) = boxes[:, :2].min(axis=0) - grow, boxes[:, 2:].max(axis=0) + grow
    return float(x1), float(y1), float(x2), float(y2)


def near(zoomed: Sequence[Detection], found: Sequence[Detection], reach: float = REACH) -> list[Detection]:
    """The tiles of ``zoomed`` whose centre lies within ``reach`` tile sides of the centre of a tile in ``found``."""
    if not found:
        return []
    centres, distance = np.array([t.center for t in found]), reach * tile_side(found)
    return [t for t in zoomed if np.hypot(*(centres - t.center).T).min() <= distance]


def combined(zoomed: Sequence[Detection], first: Sequence[Detection], found: Sequence[Detection] | None = None,
             reach: float = REACH) -> list[Detection]:
    """The second reading's boxes next to the tiles ``found`` first (``near``; ``found`` defaults to ``first``),
    and the boxes of the first reading (``first``: the tiles, or every candidate box for mAP) that none of them
    covers: a flower set apart that the second reading misses stays."""
    kept = near(zoomed, first if found is None else found, reach)
    if not kept or not first:
        return [*kept, *first]
    overlap = box_iou(np.array([t.box for t in first]), np.array([t.box for t in kept]))
    return kept + [t for t, row in zip(first, overlap, strict=True) if row.max() < SAME_TILE_IOU]


def both_readings(so_far: Reading, again: Reading) -> Reading:
    """A reading of part of the photo again (larger, or turned level) with the reading so far: its tiles next to
    those found so far and the tiles so far it has no box on (``combined``), made one set's again (``one_set``); the
    candidates for mAP likewise, the second reading's kept next to the tiles so far."""
    candidates = None
    if so_far.candidates is not None and again.candidates is not None:
        candidates = combined(again.candidates, so_far.candidates, so_far.tiles)
    return Reading(one_set(combined(again.tiles, so_far.tiles)), candidates)


class SmallTiles:
    """A photo whose tiles are small at the detector's input (``second_reading_input``) is read again at a larger
    input round the tiles found (``band``), both readings together (``both_readings``). Rows read again turned level
    are read at that larger input already (``vision.reading.second.turned.DiagonalRows``)."""

    name = "small tiles"
    turns_whole = False
    squashes = False
    ends = False

    def applies(self, photo: Photo) -> bool:
        return photo.level_turn is None and photo.zoom is not None

    def read_again(self, photo: Photo) -> Reading:
        return photo.read(photo.bgr, photo.zoom, around=band(photo.first.tiles))

    def weigh(self, so_far: Reading, again: Reading) -> Reading:
        return both_readings(so_far, again)


SMALL_TILES = SmallTiles()
