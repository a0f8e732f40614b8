"""Tiles lying sideways in a row of upright tiles: the called tile of a meld, turned a quarter, read turned back.

A meld's called tile lies across the row (riichi and many table habits turn it a quarter counter-clockwise, its
top to the left). The classifier learnt faces mostly upright and reads some of them surely wrong on their side: a
riichi 九萬 turned a quarter reads 八萬 at 0.99 (real-sets lietxia). Its box tells it: in a line of tiles standing
upright, a box much wider for its height than its neighbours' is a tile on its side (as the layout tells sideways
tiles, ``vision.hand.layout.SIDEWAYS_RATIO``). Such a tile is read turned back a quarter clockwise, or the other
way where that reads surer by ``TURN_GAIN`` (docs/experiments/sideways-tiles.md).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.boxes import box_gaps
from mjlens.vision.detection import Detection, boxes_in_pixels
from mjlens.vision.hand.layout import SIDEWAYS_RATIO
from mjlens.vision.runtime.detector import ALT_FLOOR, TOP_K

#: Neighbours in the same line: centres apart vertically by at most ``LINE`` of the taller box's height, boxes
#: apart by at most ``REACH`` of the narrower one's width edge to edge; up to ``NEAREST`` of them each side.
LINE, REACH, NEAREST = 0.35, 1.5, 3
#: The neighbours stand upright: their boxes at most this wide for their height at the median (a row of tiles all
#: on their side is a photo turned, ``vision.reading.second.turned``).
UPRIGHT = 1.0
#: A tile lies on a sideways tile when its centre is within ``STACK_ALONG`` of that tile's width of the other's
#: along the row, its bottom within ``STACK_APART`` of the other's height of the other's top, and its width within
#: ``STACK_WIDTH`` of the other's.
STACK_ALONG, STACK_APART, STACK_WIDTH = 0.25, 0.35, 0.2
#: Quarter turns clockwise that stand a sideways tile up: the usual way first; the other is taken where it reads
#: surer by ``TURN_GAIN``.
USUAL_TURN, OTHER_TURN, TURN_GAIN = 1, 3, 0.2


def lying_sideways(tiles: Sequence[Detection]) -> list[int]:
    """The indices of the ``tiles`` that lie on their side among upright neighbours in their line."""
    if len(tiles) < 2:
        return []
    box = np.array([t.box for t in tiles], float)
    width, height = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    cx, cy = (box[:, 0] + box[:, 2]) / 2, (box[:, 1] + box[:, 3]) / 2
    aspect = width / np.maximum(height, 1e-6)
    apart, _ = box_gaps(box, np.float64)
    in_line = ((np.abs(cy[:, None] - cy[None, :]) <= LINE * np.maximum(height[:, None], height[None, :]))
               & (apart <= REACH * np.minimum(width[:, None], width[None, :])))
    np.fill_diagonal(in_line, False)
    # the median of the neighbours is at least their least: only a tile wider than that can lie sideways
    least = np.where(in_line, aspect[None, :], np.inf).min(axis=1)
    found = []
    for i in np.flatnonzero(aspect > SIDEWAYS_RATIO * least):
        beside = np.flatnonzero(in_line[i])
        along = cx[beside] - cx[i]
        left = beside[along < 0][np.argsort(-along[along < 0], kind="stable")][:NEAREST]
        right = beside[along >= 0][np.argsort(along[along >= 0], kind="stable")][:NEAREST]
        typical = statistics.median(aspect[np.concatenate([left, right])].tolist())
        if typical <= UPRIGHT and aspect[i] > SIDEWAYS_RATIO * typical:
            found.append(int(i))
    return found + on_sideways(box, found)


def on_sideways(box: np.ndarray, sideways: list[int]) -> list[int]:
    """The tiles lying on a sideways tile as wide as they (the tile added to a called pung to make a kong lies
    sideways on the called tile): box x1, y1, x2, y2 per tile."""
    width, height = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    found = []
    for i in sideways:
        cx = (box[i, 0] + box[i, 2]) / 2
        above = ((np.abs((box[:, 0] + box[:, 2]) / 2 - cx) <= STACK_ALONG * width[i])
                 & (np.abs(box[:, 3] - box[i, 1]) <= STACK_APART * height[i])
                 & (np.abs(width / width[i] - 1) <= STACK_WIDTH) & (width > UPRIGHT * height))
        found += [int(j) for j in np.flatnonzero(above) if j not in sideways and j not in found]
    return found


def read_sideways(classifier, bgr: np.ndarray, tiles: list[Detection], pixel_scale: float = 1.0
                  ) -> list[Detection]:
    """``tiles`` with those lying sideways (``lying_sideways``) named from their crops turned back."""
    sideways = lying_sideways(tiles)
    if not sideways:
        return tiles
    boxes = boxes_in_pixels([tiles[i] for i in sideways], pixel_scale)
    usual, other = classifier.turned_probabilities(bgr, boxes, (USUAL_TURN, OTHER_TURN))
    out = list(tiles)
    for k, i in enumerate(sideways):
        row = other[k] if other[k].max() >= usual[k].max() + TURN_GAIN else usual[k]
        order = np.argsort(-row)
        alternatives = tuple((DETECTOR_CLASSES[c], float(row[c])) for c in order[1:TOP_K + 1] if row[c] >= ALT_FLOOR)
        out[i] = replace(tiles[i], code=DETECTOR_CLASSES[order[0]], confidence=float(row[order[0]]),
                         alternatives=alternatives)
    return out
