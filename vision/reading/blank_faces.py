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

BLANK = "5z"  # 白, the one blank face
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
#: A face's colour is that of its brightest ``GROUND`` of pixels: the ground the ink is printed on.
GROUND = 0.3


def gap_places(tiles: Sequence[Detection]) -> list[tuple[tuple[float, float, float, float], int, int]]:
    """The tile-sized places in the gaps of the rows of ``tiles``: (box, index of the tile left, right of it)."""
    if len(tiles) < 2:
        return []
    box = np.array([t.box for t in tiles], float)
    width, height = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    cy = (box[:, 1] + box[:, 3]) / 2
    ratio = height[None, :] / np.maximum(height[:, None], 1e-6)
    right_of = ((box[None, :, 0] >= box[:, None, 2] - 0.15 * width[:, None])
                & (np.abs(cy[None, :] - cy[:, None]) <= LINE * np.maximum(height[:, None], height[None, :]))
                & (ratio >= 1 / TALL) & (ratio <= TALL))
    np.fill_diagonal(right_of, False)
    places = []
    for a in sorted(np.flatnonzero(right_of.any(axis=1)), key=lambda i: tiles[i].box[0]):
        left = tiles[a]
        b = int(np.where(right_of[a], box[:, 0], np.inf).argmin())  # the nearest, the first listed on a tie
        right = tiles[b]
        upright = [t for t in (left, right) if t.width <= UPRIGHT * t.height]
        if not upright:
            continue
        tile_width = sum(t.width for t in upright) / len(upright)
        gap = right.box[0] - left.box[2]
        count = int(round(gap / tile_width))
        if not 1 <= count <= MOST or abs(gap - count * tile_width) > FIT * tile_width:
            continue
        step = gap / count
        first, last = (left, right) if len(upright) == 2 else (upright[0], upright[0])
        for k in range(count):
            x1 = left.box[2] + k * step
            share = (k + 0.5) / count  # top and bottom run from the left tile's to the right one's, upright ones'
            top = first.box[1] + share * (last.box[1] - first.box[1])
            bottom = first.box[3] + share * (last.box[3] - first.box[3])
            places.append(((x1, top, x1 + step, bottom), int(a), b))
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
    colours = face_colour(bgr, boxes)
    ends = sorted({i for _, a, b in places for i in (a, b)})
    end_colours = dict(zip(ends, face_colour(bgr, boxes_in_pixels([tiles[i] for i in ends], pixel_scale)),
                           strict=True))
    # the colour first: the space between melds, the table's, needs no reading
    faces = [k for k, ((_, a, b), colour) in enumerate(zip(places, colours, strict=True))
             if min(np.linalg.norm(colour - end_colours[a]), np.linalg.norm(colour - end_colours[b])) <= SAME_COLOUR]
    if not faces:
        return []
    turned = classifier.turned_probabilities(bgr, [boxes[k] for k in faces], (0, 2))
    blank = turned[:, :, DETECTOR_CLASSES.index(BLANK)].mean(axis=0)
    return [Detection(BLANK, places[k][0], float(chance)) for k, chance in zip(faces, blank, strict=True)
            if chance >= SURE]
