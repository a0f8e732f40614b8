"""Cut tiles out of a photo as small square images for the crop classifier.

Training and the runtime both call :func:`crop_tiles`, so the classifier sees at run time exactly the kind of crop
it learned from: the box grown by a small margin (the detector's boxes can be a few pixels tight), kept at its own
aspect ratio (a sideways tile stays sideways) and centred on a neutral grey square, never stretched.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

CROP_SIZE = 64  # px: a tile in a 640 px photo of a row is 30-45 px tall, so this loses nothing
CROP_MARGIN = 0.08  # of the box's width / height, on each side
PAD_VALUE = 114  # ultralytics' letterbox grey


def crop_tiles(bgr: np.ndarray, boxes: Sequence[Sequence[float]], size: int = CROP_SIZE,
               margin: float = CROP_MARGIN) -> list[np.ndarray]:
    """One ``size`` x ``size`` BGR crop per box (x1, y1, x2, y2 in pixels of ``bgr``)."""
    height, width = bgr.shape[:2]
    crops = []
    for x1, y1, x2, y2 in boxes:
        w, h = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
        left, top = int(round(x1 - margin * w)), int(round(y1 - margin * h))
        right, bottom = int(round(x2 + margin * w)), int(round(y2 + margin * h))
        right, bottom = max(right, left + 1), max(bottom, top + 1)
        sx1, sy1, sx2, sy2 = max(left, 0), max(top, 0), min(right, width), min(bottom, height)
        if sx2 > sx1 and sy2 > sy1:  # the photo's part of the box, grown to the box with grey where it runs off
            region = cv2.copyMakeBorder(bgr[sy1:sy2, sx1:sx2], sy1 - top, bottom - sy2, sx1 - left, right - sx2,
                                        cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
        else:
            region = np.full((bottom - top, right - left, 3), PAD_VALUE, np.uint8)
        scale = size / max(region.shape[:2])
        new_w = max(1, min(size, int(round(region.shape[1] * scale))))
        new_h = max(1, min(size, int(round(region.shape[0] * scale))))
        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        resized = cv2.resize(region, (new_w, new_h), interpolation=interpolation)
        top_pad, left_pad = (size - new_h) // 2, (size - new_w) // 2
        square = cv2.copyMakeBorder(resized, top_pad, size - new_h - top_pad, left_pad, size - new_w - left_pad,
                                    cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
        crops.append(square)
    return crops
