"""One tile boxed twice: a loose box round a tight one, both read as the same tile.

The detector's NMS (``vision.detector.NMS_IOU``) takes two boxes for two tiles when they overlap less than 0.6 IoU,
and a box round a tile and a strip of its neighbours holds a tight box of that tile at less than that (a tight box
of 0.58 the loose one's area, wholly inside it, is at IoU 0.58). When the classifier reads both as the same code,
they are one tile: the tight box stays, the loose one goes. Two real tiles of one code do not lie one inside the
other, even in a heap, where boxes of tiles lying askew overlap: on hk-photos ``valid`` the rule drops 10 boxes,
each a loose second box of a tile read already, and no tile read right (models/README.md, "Loose twins"). A box
across two tiles of its code is left: on a diagonal row the upright boxes of a pung's tiles cover one another
that way too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .detection import Detection
from .detector import box_area, box_intersection

#: A box holding at least this share of a smaller box of its code is that tile boxed loosely.
INSIDE = 0.85


def without_loose_twins(tiles: Sequence[Detection], inside: float = INSIDE) -> list[Detection]:
    """``tiles`` without every box that holds at least ``inside`` of the area of a smaller box of the same code."""
    if len(tiles) < 2:
        return list(tiles)
    boxes = np.array([t.box for t in tiles], dtype=np.float32)
    overlap, area = box_intersection(boxes, boxes), box_area(boxes)  # overlap[i, j]: the area i and j share
    codes = np.array([t.code for t in tiles])
    holds = ((codes[:, None] == codes[None, :]) & (area[None, :] < area[:, None])
             & (overlap >= inside * np.maximum(area[None, :], 1e-9)))  # [i, j]: box i holds the smaller box j
    return [tile for tile, loose in zip(tiles, holds.any(axis=1), strict=True) if not loose]
