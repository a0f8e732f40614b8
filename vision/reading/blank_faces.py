"""Blank faces in a row's gaps: where a row of tiles has a gap a whole number of tiles wide, the tiles that would
fill it are read; a blank face (白 of riichi sets, a plain white face) is kept there.

The detector learnt 白 from sets that frame it; a riichi set's 白 is a bare white face, and in a hand's row it found
three of them at a chance of a tile of 0.007 or less (real-sets lietxia), while the classifier reads the same
places as 5z at 0.86-0.97. A gap between two tiles of a row, as wide as whole tiles that touch, with the colour of
the row's faces, is where such tiles stand; the space a player leaves between melds shows the table instead
(docs/experiments/blank-faces.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection, boxes_in_pixels
from mjlens.vision.runtime.crops import crop_tiles

BLANK = "5z"
#: Two tiles are neighbours in a row when their centres lie apart vertically by at most ``LINE`` of the taller
#: one's height and their heights within a ratio of ``TALL`` (a meld's sideways tile is as tall as a tile is wide);
#: only upright tiles (boxes at most ``UPRIGHT`` as wide as tall) measure the width a gap is counted in.
LINE, TALL, UPRIGHT = 0.3, 1.5, 1.0
#: A gap holds whole tiles when it is ``k`` tile widths within ``FIT`` of one, for ``k`` from 1 to ``MOST``.
FIT, MOST = 0.3, 4
#: A place in the gap is a blank face when the classifier reads 5z there at least ``SURE`` (the mean of its crop
#: upright and turned half round: a blank face reads the same both ways) and its colour lies within ``SAME_COLOUR``
#: (CIELAB distance) of the faces of the two tiles beside it.
SURE, SAME_COLOUR = 0.75, 18.0
GROUND = 0.3


def gap_places(tiles: Sequence[Detection]) -> list[tuple[tuple[float, float, float, float], int, int]]:
    """The tile-sized places in the gaps of the rows of ``tiles``: (box, index of the tile left, right of it)."""
    places = []
    order = sorted(range(len(tiles)), key=lambda i: tiles[i].box[0])
    for a in order:
        left = tiles[a]
        right_of = [b for b in order if tiles[b].box[0] >= left.box[2] - 0.15 * left.width and b != a
                    and abs(tiles[b].center[1] - left.center[1]) <= LINE * max(left.height, tiles[b].height)
                    and 1 / TALL <= tiles[b].height / left.height <= TALL]
        if not right_of:
            continue
        b = min(right_of, key=lambda k: tiles[k].box[0])
        right = tiles[b]
        upright = [t for t in (left, right) if t.width <= UPRIGHT * t.height]
        if not upright:
            continue
        width = sum(t.width for t in upright) / len(upright)
        gap = right.box[0] - left.box[2]
        count = int(round(gap / width))
        if not 1 <= count <= MOST or abs(gap - count * width) > FIT * width:
            continue
        step = gap / count
        for k in range(count):
            x1 = left.box[2] + k * step
            share = (k + 0.5) / count  # top and bottom run from the left tile's to the right one's, upright ones'
            first, last = (left, right) if len(upright) == 2 else (upright[0], upright[0])
            top = first.box[1] + share * (last.box[1] - first.box[1])
            bottom = first.box[3] + share * (last.box[3] - first.box[3])
            places.append(((x1, top, x1 + step, bottom), a, b))
    return places


def face_colour(bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
    """The CIELAB colour of each box's face ground: the mean of its brightest ``GROUND`` of pixels in the middle
    half of the box, whatever the ink on it."""
    out = []
    for crop in crop_tiles(bgr, boxes, 32, margin=-0.25):
        lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
        bright = lab[lab[:, 0] >= np.quantile(lab[:, 0], 1 - GROUND)]
        out.append(bright.mean(axis=0))
    return np.array(out).reshape(-1, 3)


def blank_faces(classifier, bgr: np.ndarray, tiles: Sequence[Detection], pixel_scale: float = 1.0
                ) -> list[Detection]:
    """The blank faces in the gaps of the rows of ``tiles`` (``gap_places``), as tiles of code 5z."""
    places = gap_places(tiles)
    if not places:
        return []
    boxes = [tuple(v * pixel_scale for v in box) for box, _, _ in places]
    turned = classifier.turned_probabilities(bgr, boxes, (0, 2))
    blank = turned[:, :, DETECTOR_CLASSES.index(BLANK)].mean(axis=0)
    colours = face_colour(bgr, boxes)
    ends = sorted({i for _, a, b in places for i in (a, b)})
    end_colours = dict(zip(ends, face_colour(bgr, boxes_in_pixels([tiles[i] for i in ends], pixel_scale)),
                           strict=True))
    found = []
    for (box, a, b), chance, colour in zip(places, blank, colours, strict=True):
        nearest = min(np.linalg.norm(colour - end_colours[a]), np.linalg.norm(colour - end_colours[b]))
        if chance >= SURE and nearest <= SAME_COLOUR:
            found.append(Detection(BLANK, box, float(chance)))
    return found

