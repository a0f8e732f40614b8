"""Box arithmetic on arrays of boxes (N x 4: x1 y1 x2 y2), shared by the detector's decoding, the rules that drop
boxes (``vision.reading.twins``, ``vision.reading.second.small_tiles``), the layout and the evaluation.

float32 by default, as the detector's output is; the layout asks for float64, the precision its other geometry is
computed in.
"""

from __future__ import annotations

import numpy as np


def box_area(boxes: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    """The area of each box (N x 4, x1 y1 x2 y2)."""
    boxes = np.asarray(boxes, dtype=dtype).reshape(-1, 4)
    return np.prod(boxes[:, 2:] - boxes[:, :2], axis=1)


def box_intersection(a: np.ndarray, b: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    """The overlap area of every box in ``a`` (N x 4) with every box in ``b`` (M x 4): an N x M matrix."""
    a = np.asarray(a, dtype=dtype).reshape(-1, 4)
    b = np.asarray(b, dtype=dtype).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    return np.prod(np.clip(rb - lt, 0, None), axis=2)


def box_iou(a: np.ndarray, b: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    """IoU of every box in ``a`` (N x 4, x1 y1 x2 y2) with every box in ``b`` (M x 4): an N x M matrix."""
    inter = box_intersection(a, b, dtype)
    return inter / np.maximum(box_area(a, dtype)[:, None] + box_area(b, dtype)[None, :] - inter, 1e-9)
