"""Box arithmetic on arrays of boxes (N x 4: x1 y1 x2 y2), shared by the detector's decoding, the rules that drop
boxes (``vision.reading.twins``, ``vision.reading.second.small_tiles``), the rules that look at a tile's
neighbours (``vision.reading.sideways``, ``vision.reading.lone_blanks``) or at the photo's edge
(``vision.reading.sure_boxes``, ``vision.reading.edge_on``), the layout and the evaluation.

float32 by default, as the detector's output is; the layout asks for float64, the precision its other geometry is
computed in.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def box_gaps(boxes: np.ndarray, dtype: type = np.float32) -> tuple[np.ndarray, np.ndarray]:
    """The space between every two of ``boxes`` (N x 4) across (x) and along (y), 0 where they overlap that way:
    two N x N matrices."""
    boxes = np.asarray(boxes, dtype=dtype).reshape(-1, 4)
    across = np.maximum(boxes[None, :, 0] - boxes[:, None, 2], boxes[:, None, 0] - boxes[None, :, 2])
    along = np.maximum(boxes[None, :, 1] - boxes[:, None, 3], boxes[:, None, 1] - boxes[None, :, 3])
    return np.maximum(across, 0), np.maximum(along, 0)


#: A box within this many pixels of the photo's edge is cut by it (docs/experiments/sure-boxes.md).
FRAME_EDGE = 2.0


def cut_by_frame(box: Sequence[float], width: float, height: float, edge: float = FRAME_EDGE) -> bool:
    """Whether the photo's edge (a ``width`` x ``height`` photo, in the box's pixels) cuts ``box`` (x1 y1 x2 y2)."""
    x1, y1, x2, y2 = box
    return min(x1, y1) <= edge or x2 >= width - edge or y2 >= height - edge
