"""Boxes the detector is sure of: a box whose chance of a tile is high is kept however unsurely the classifier reads
its face, unless the photo's edge cuts it or it lies over a tile already kept.

On art never trained on the classifier reads many faces unsurely, and the product of the two chances drops tiles
the detector found surely (docs/experiments/sure-boxes.md). A tile kept with an unsure reading is one the player
mends with a tap (its runner-ups come with it); a tile dropped has to be added, and the hand is laid out without it.
A box the photo's edge cuts shows part of a face, and a box over a kept tile is that tile boxed again or a box
across two: neither is a tile of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mjlens.vision.boxes import box_area, box_intersection, cut_by_frame
from mjlens.vision.detection import Detection

#: The least chance of a tile a box is kept at whatever its reading; a box that shares more than ``OVER`` of its own
#: area with a kept tile lies over it. Chosen, with the photo's edge (``vision.boxes.FRAME_EDGE``), on held-out
#: photos of seed 9102, hk-photos ``valid`` and empty photos (docs/experiments/sure-boxes.md).
SURE_BOX, OVER = 0.4, 0.3


def sure_boxes(dropped: Sequence[Detection], kept: Sequence[Detection], width: float, height: float
               ) -> list[Detection]:
    """The ``dropped`` boxes (read, under every threshold) whose chance of a tile reaches ``SURE_BOX``, inside the
    photo (``width`` x ``height`` pixels) and over no ``kept`` tile; ``dropped`` carry the detector's chance."""
    found: list[Detection] = []
    for box in sorted(dropped, key=lambda d: -d.confidence):
        if box.confidence < SURE_BOX or cut_by_frame(box.box, width, height):
            continue
        others = [tile.box for tile in (*kept, *found)]
        area = box_area([box.box], np.float64)[0]
        if area <= 0 or (others and (box_intersection([box.box], others, np.float64) > OVER * area).any()):
            continue
        found.append(box)
    return found
