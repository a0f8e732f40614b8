"""Blank faces away from every other tile: a 白 read where no tile of another code lies near is not kept.

Anything plain, light and tile-sized reads as 白 (``BLANK``), the one face with no drawing: a book's spine, paper, a
phone, the side of a wall tile, a white block. The classifier reads many of them as surely as a real 白, so its
probability cannot tell them apart (``vision.reading.reader.BLANK_SURE`` removes only the less sure). Where they
lie can: a player's 白 lies among the hand's other tiles, in its rows, melds or the tiles laid out, while clutter
lies away from them. So a 白 is kept only where it reaches a tile of another code through tiles each near the next
(``NEAR``); a photo of 白 alone, or of no other code, is left as read
(docs/experiments/lone-blanks.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mjlens.vision.boxes import box_gaps
from mjlens.vision.detection import Detection
from mjlens.vision.reading.blank_faces import BLANK

#: Two tiles are near when the space between their boxes is at most ``NEAR`` times the smaller side of the two
#: boxes across and along (tiles laid out a tile apart, as a catalogue photo spaces them, stay near).
NEAR = 2.0


def near_each_other(tiles: Sequence[Detection]) -> np.ndarray:
    """Which pairs of ``tiles`` are near (``NEAR``): a square boolean matrix, each tile near itself."""
    box = np.array([t.box for t in tiles], float).reshape(-1, 4)
    width, height = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    across, along = box_gaps(box, np.float64)
    side = np.minimum(np.minimum(width[:, None], width[None, :]), np.minimum(height[:, None], height[None, :]))
    return (across <= NEAR * side) & (along <= NEAR * side)


def lone_blanks(tiles: Sequence[Detection]) -> list[int]:
    """The indices of the 白 of ``tiles`` that no chain of near tiles joins to a tile of another code; none where
    the photo holds no other code."""
    blank = np.array([t.code == BLANK for t in tiles], bool)
    if not blank.any() or blank.all():
        return []
    near = near_each_other(tiles)
    joined = ~blank  # reached from a tile of another code
    while True:
        grown = joined | (near & joined[None, :]).any(axis=1)
        if (grown == joined).all():
            return [int(i) for i in np.flatnonzero(~joined)]
        joined = grown


def without_lone_blanks(tiles: Sequence[Detection]) -> list[Detection]:
    """``tiles`` less their lone 白 (``lone_blanks``)."""
    lone = set(lone_blanks(tiles))
    return [t for i, t in enumerate(tiles) if i not in lone]
