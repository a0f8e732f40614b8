"""Tiles in a row's gaps: a box the detector takes for a tile, in line with kept tiles and as tall as they, is kept
at a lower threshold than a box alone.

On art never trained on the classifier reads many faces unsurely, and the product of the two chances drops tiles
the detector found in the middle of a hand's row; the hand then lacks a tile and its melds come out wrong
(docs/experiments/row-gaps.md). Beside tiles of the same height in one line, a box is a tile more surely than
anywhere else on the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from mjlens.vision.detection import Detection

#: A box is kept in a row's gap when its chance of a tile is at least ``ROW_TILE`` and that chance times the
#: classifier's probability at least ``ROW_KEEP`` (docs/experiments/row-gaps.md).
ROW_TILE, ROW_KEEP = 0.3, 0.05
#: In line: centres apart vertically by at most ``LINE`` of the kept tile's height; as tall: heights within a ratio
#: of ``TALL``; beside: the boxes apart by at most ``GAP`` of the kept tile's width, or overlapping by at most
#: ``OVERLAP`` of it.
LINE, TALL, GAP, OVERLAP = 0.25, 1.25, 0.3, 0.15


def beside(box: Detection, tile: Detection) -> bool:
    """Whether ``box`` stands in line with ``tile``, as tall, just left or right of it."""
    if abs(box.center[1] - tile.center[1]) > LINE * tile.height:
        return False
    if not 1 / TALL <= box.height / tile.height <= TALL:
        return False
    apart = max(box.box[0] - tile.box[2], tile.box[0] - box.box[2])  # negative: overlapping
    return -OVERLAP * tile.width <= apart <= GAP * tile.width


def row_gaps(unsure: Sequence[Detection], kept: Sequence[Detection]) -> list[Detection]:
    """The ``unsure`` boxes (read, but under the threshold) that stand beside a kept tile, or beside one kept so."""
    found: list[Detection] = []
    left = list(unsure)
    neighbours = list(kept)
    while True:
        joined = [box for box in left if any(beside(box, tile) for tile in neighbours)]
        if not joined:
            return found
        found += joined
        neighbours += joined
        left = [box for box in left if box not in joined]
