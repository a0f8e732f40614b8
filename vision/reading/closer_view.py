"""A closer view of the crops the classifier reads unsurely.

The classifier learnt crops cut round a tile's box with a margin (``vision.runtime.crops.CROP_MARGIN``). On tile
sets it never saw, a crop it reads unsurely (its surest code under ``UNSURE_UNDER``) is often read better cut
closer, the face filling more of it: ``CLOSER_SCALE`` of the box round its centre. The mean of the two readings is
taken where it is surer than the first alone: a face turned upside down, which the closer crop reads no better,
keeps its first reading. A crop read surely is never read twice (docs/experiments/closer-view.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from mjlens.vision.runtime.classifier import CropClassifier

#: Chosen on the held-out photos of seed 9103 and on hk-photos ``valid`` (docs/experiments/closer-view.md).
UNSURE_UNDER = 0.5
CLOSER_SCALE = 0.9


def closer_box(box: Sequence[float], scale: float = CLOSER_SCALE) -> tuple[float, float, float, float]:
    """``box`` (x1, y1, x2, y2) shrunk to ``scale`` of its width and height round its centre."""
    x1, y1, x2, y2 = box
    half_width, half_height = (x2 - x1) * scale / 2, (y2 - y1) * scale / 2
    centre_x, centre_y = (x1 + x2) / 2, (y1 + y2) / 2
    return centre_x - half_width, centre_y - half_height, centre_x + half_width, centre_y + half_height


def with_closer_view(classifier: CropClassifier, bgr: np.ndarray, boxes: Sequence[Sequence[float]],
                     probs: np.ndarray, as_it_lies: np.ndarray | None = None) -> np.ndarray:
    """``probs`` (the classifier's reading of ``boxes``, one row a box) with each row read under ``UNSURE_UNDER``
    joined by the reading of its box's closer crop (``closer_box``): the mean of the two where that is surer than the
    row alone; changed in place and returned. Only the rows ``as_it_lies`` marks (all by default) are: a reading of the
    crop turned is not averaged with one as it lies."""
    unsure = np.flatnonzero((probs.max(axis=1) < UNSURE_UNDER) & (True if as_it_lies is None else as_it_lies))
    if len(unsure):
        mean = (probs[unsure] + classifier.probabilities(bgr, [closer_box(boxes[i]) for i in unsure])) / 2
        surer = mean.max(axis=1) > probs[unsure].max(axis=1)
        probs[unsure[surer]] = mean[surer]
    return probs
