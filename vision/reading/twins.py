"""Boxes that are no tile of their own: one tile boxed twice, or two tiles of one code boxed as a third.

A loose box round a tight one, both read as the same tile. The detector's NMS (``vision.runtime.detector.NMS_IOU``)
takes
two boxes for two tiles when they overlap less than 0.6 IoU, and a box round a tile and a strip of its neighbours
holds a tight box of that tile at less than that (a tight box of 0.58 the loose one's area, wholly inside it, is at
IoU 0.58). When the classifier reads both as the same code, they are one tile: the tight box stays, the loose one
goes. Two real tiles of one code do not lie one inside the other, even in a heap, where boxes of tiles lying askew
overlap: on hk-photos ``valid`` the rule drops 10 boxes, each a loose second box of a tile read already, and no tile
read right (docs/experiments/loose-twins.md).

A box across two tiles of its code, side by side: the detector can box the pair's middle as a tile too, and the
classifier, seeing a face either side of the crop's centre, names it their code. Such a box holds half or more
of each of the two, which barely overlap, and between them they fill it; a real tile between two of its code on a
diagonal row holds a third of each at most (their upright boxes overlap it at one corner each), so it stays
(docs/experiments/loose-twins.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mjlens.vision.boxes import box_area, box_intersection
from mjlens.vision.detection import Detection

#: A box holding at least this share of a smaller box of its code is that tile boxed loosely.
INSIDE = 0.85
#: A box across two tiles of its code holds at least this share of each of them...
ACROSS_HOLDS = 0.5
#: ... they fill at least this share of it between them ...
ACROSS_FILLED = 0.85
#: ... and they share at most this much of the smaller of them: two tiles side by side, not one boxed twice.
ACROSS_APART = 0.2


def without_loose_twins(tiles: Sequence[Detection], inside: float = INSIDE) -> list[Detection]:
    """``tiles`` without every box that holds at least ``inside`` of the area of a smaller box of the same code."""
    if len(tiles) < 2:
        return list(tiles)
    overlap, area, same_code = _overlaps(tiles)
    holds = (same_code & (area[None, :] < area[:, None])
             & (overlap >= inside * np.maximum(area[None, :], 1e-9)))  # [i, j]: box i holds the smaller box j
    return [tile for tile, loose in zip(tiles, holds.any(axis=1), strict=True) if not loose]


def without_boxes_across_pairs(tiles: Sequence[Detection]) -> list[Detection]:
    """``tiles`` without every box lying across exactly two others of its code: holding ``ACROSS_HOLDS`` or more of
    each, filled ``ACROSS_FILLED`` by them together, the two sharing no more than ``ACROSS_APART`` of the smaller."""
    if len(tiles) < 3:
        return list(tiles)
    overlap, area, same_code = _overlaps(tiles)
    holds = (same_code & ~np.eye(len(tiles), dtype=bool)
             & (overlap >= ACROSS_HOLDS * np.maximum(area[None, :], 1e-9)))  # [i, j]: box i holds half of box j
    across = np.zeros(len(tiles), dtype=bool)
    for i in np.flatnonzero(holds.sum(axis=1) == 2):
        a, b = np.flatnonzero(holds[i])
        across[i] = (overlap[i, a] + overlap[i, b] >= ACROSS_FILLED * area[i]
                     and overlap[a, b] <= ACROSS_APART * min(area[a], area[b]))
    return [tile for tile, drop in zip(tiles, across, strict=True) if not drop]


def _overlaps(tiles: Sequence[Detection]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The area each pair of boxes shares ([i, j]), each box's area, and whether each pair is read as one code."""
    boxes = np.array([t.box for t in tiles], dtype=np.float32)
    codes = np.array([t.code for t in tiles])
    return box_intersection(boxes, boxes), box_area(boxes), codes[:, None] == codes[None, :]
