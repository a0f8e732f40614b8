"""A face-down tile read where no tile lies flat: a box longer than any tile, inside the photo, is the side of a tile
seen edge on or the space between two, not a tile to read.

A tile lying face down shows its back, about 1.3 times longer than wide, standing or lying; boxes of tiles in a photo
taken as it was reach about 2 times at most (``vision.reading.second.squeezed.MAX_TILE_ASPECT``, 2.2 with a margin).
A box beyond that read as a face-down tile is a tile on its side (an edge shows, no face) or the cloth between two
tiles' sides, which the classifier reads as a plain back. Where the photo's edge cuts the box, part of a tile can be
that long, and it stays (docs/experiments/hard-negatives.md, "Face-down tiles no tile is shaped like").
"""

from __future__ import annotations

from collections.abc import Sequence

from mjlens.vision.boxes import cut_by_frame
from mjlens.vision.reading.second.squeezed import box_aspect, stretched_aspect


def edge_on(box: Sequence[float], width: float, height: float) -> bool:
    """Whether ``box`` (x1 y1 x2 y2, in a ``width`` x ``height`` photo's pixels) is longer than any tile's and not cut
    by the photo's edge."""
    return not cut_by_frame(box, width, height) and stretched_aspect(box_aspect([box]))
