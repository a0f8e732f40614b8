"""More views of a layout's tiles than the photo shows: each tile as a hand photo may show it, smaller, in other
light, a little blurred or turned, its box cut a little off. A profile's nearest-example reading is then less
thrown by how a hand photo differs from the layout photo (docs/experiments/profiles.md: from one layout photo,
1-NN read 0.57-0.67 of unseen sets' hand tiles with the examples as photographed, 0.66-0.77 with these views too).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from mjlens.vision.runtime.crops import crop_tiles

#: The tile's height in the view, in pixels (hand photos show tiles 18-60 px tall once reduced for reading).
HEIGHTS = (18.0, 60.0)
#: Each box edge moved by up to this share of the box (a detector's box is never the layout's).
BOX_JITTER = 0.08
#: Light: contrast scaled within, brightness moved within (of 255); blurred in this share of the views.
CONTRAST, BRIGHTNESS, BLURRED = (0.7, 1.2), 25.0, 0.3
#: Turned about the photo's centre by up to this many degrees in this share of the views.
TILT_DEGREES, TILTED = 12.0, 0.5


def tile_views(bgr: np.ndarray, boxes: Sequence[Sequence[float]], size: int, count: int, seed: int = 0
               ) -> list[list[np.ndarray]]:
    """``count`` views of the tiles at ``boxes`` of ``bgr``: for each view, one crop per box (cut as the reader
    cuts, ``size`` px). Seeded: the same photo gives the same views."""
    rng = np.random.default_rng(seed)
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    height = float(np.median(boxes[:, 3] - boxes[:, 1])) if len(boxes) else 0.0
    views = []
    for _ in range(count if len(boxes) else 0):
        factor = min(1.0, rng.uniform(*HEIGHTS) / max(height, 1.0))
        image = cv2.resize(bgr, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA) if factor < 1 else bgr
        image = image.astype(np.float32) * rng.uniform(*CONTRAST) + rng.uniform(-BRIGHTNESS, BRIGHTNESS)
        if rng.random() < BLURRED:
            image = cv2.GaussianBlur(image, (3, 3), 0)
        sides = np.c_[boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]]
        moved = (boxes + rng.uniform(-BOX_JITTER, BOX_JITTER, boxes.shape) * np.tile(sides, 2)) * factor
        if rng.random() < TILTED:
            centre = (image.shape[1] / 2, image.shape[0] / 2)
            turn = cv2.getRotationMatrix2D(centre, rng.uniform(-TILT_DEGREES, TILT_DEGREES), 1.0)
            image = cv2.warpAffine(image, turn, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE)
            middles = np.c_[(moved[:, 0] + moved[:, 2]) / 2, (moved[:, 1] + moved[:, 3]) / 2, np.ones(len(moved))]
            shift = middles @ turn.T - middles[:, :2]
            moved = moved + np.tile(shift, 2)
        views.append(crop_tiles(np.clip(image, 0, 255).astype(np.uint8), moved.tolist(), size))
    return views
