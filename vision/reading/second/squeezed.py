"""Photos resized without keeping their aspect ratio.

Some photos reach us squeezed: a strip cut around one row (or one column) of tiles and then resized to a square,
as datasets and some apps do. Each tile is then ten times taller than wide, or wider than tall; the detector finds
few of them and the classifier cannot read a sliver. A tile's box is never like that in a photo taken as it was
(upright about 1.3 times taller than wide, sideways the other way, at most about 2 with its thickness showing),
so when the tiles found look stretched, or hardly any are found, the reader locates the tiles in the photo squashed
back by each of ``SQUASH_FACTORS`` along either axis (along one only where the photo's detail shows which it was
stretched along), reads the few squashes whose boxes most surely hold tiles, and keeps the reading that names its
tiles with the most confidence (:meth:`vision.reading.reader.TwoStageDetector.best_squash`): the second reading
``SQUEEZED``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import cv2
import numpy as np

from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import Photo, Reading

#: Squash factors tried along each axis: a row of 17 tiles cut out and resized to a square is stretched about 10x.
SQUASH_FACTORS = (2, 3, 4, 6, 8, 12, 16)
#: Fewer tiles than this found in a photo: worth a look for a squeezed photo (a hand has at least 13).
MIN_TILES = 5
#: Boxes whose median height / width lies beyond this (or below its inverse) are stretched tiles. Upright tiles
#: with their thickness showing reach about 2 (2.1 at most over the 296 photos of hk-photos ``valid``); a photo
#: squeezed 3-4 times can still give boxes of 2.4, each spanning two tiles, so the margin stays small.
MAX_TILE_ASPECT = 2.2
#: Photos longer than this many times their width: no camera takes them (phones go to 20:9), a squeeze may.
MAX_PHOTO_ASPECT = 2.5
#: A photo squeezed along one axis has lost its detail along that axis: the mean step in brightness between pixels
#: side by side, over that between pixels one above the other, lies far from 1. On hk-photos ``valid`` it is 0.09-0.16
#: for the photos read best squashed back along x, 1.5-7.0 for those read best squashed along y, and 0.45-1.38 for
#: the other 261 photos. Beyond this ratio (or below its inverse) only the squashes along that one axis are tried.
SQUEEZED_DETAIL = 2.0
#: A photo whose detail says it was squeezed (beyond this ratio, or below its inverse) and whose boxes run this many
#: times longer along that axis than across is squeezed, however many tiles were found: a box spanning two
#: stretched tiles can be read surely and look no longer than an upright tile with its thickness showing. hk-photos
#: `train` and `valid` photos taken as they were lie at 0.34-2.16 (the squeezed ones 0.09-0.16 and 3.3-7.0);
#: synthetic photos reach 0.29 and 3.3, their boxes at most 1.3 times longer along that axis, where two squeezed
#: tiles in a box make 2.1. Beyond it, by its detail alone, a photo is not read larger for the few tiles found in
#: it, and a squash that leaves it so is not located (``squeezed_by_detail_alone``).
SQUEEZED_DETAIL_ALONE = 3.0
BOXES_ALONG_SQUEEZE = 1.75
#: Height / width of an upright tile's face: what a stretched tile is squashed back to when the factor is known.
TILE_ASPECT = 4 / 3


@dataclass(frozen=True)
class Squash:
    """Shrink a photo ``x`` times in width and ``y`` times in height relative to each other (1 = untouched).

    The squashed image keeps the photo's long side: squashing the long side of a photo squeezed the other way
    enlarges the short side instead, so the tiles keep every pixel the classifier needs.
    """

    x: float = 1.0
    y: float = 1.0

    def apply(self, bgr: np.ndarray) -> np.ndarray:
        height, width = bgr.shape[:2]
        new_w, new_h = width / self.x, height / self.y
        grow = max(width, height) / max(new_w, new_h)
        size = (max(1, round(new_w * grow)), max(1, round(new_h * grow)))
        shrinking = size[0] <= width and size[1] <= height
        return cv2.resize(bgr, size, interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)

    def scales(self, bgr: np.ndarray, squashed: np.ndarray) -> tuple[float, float]:
        """Pixels of ``bgr`` per pixel of ``squashed`` along x and y (exact, after rounding the squashed size)."""
        return bgr.shape[1] / squashed.shape[1], bgr.shape[0] / squashed.shape[0]


Boxed = TypeVar("Boxed")


def rescaled(items: Sequence[Boxed], scale_x: float, scale_y: float) -> list[Boxed]:
    """Detections (or labels: any dataclass with a ``box``) with their boxes scaled: from a squashed image to
    the photo with the ``scales`` of the squash, from the photo to the squashed image with their inverses."""
    return [replace(item, box=(item.box[0] * scale_x, item.box[1] * scale_y,  # type: ignore[attr-defined]
                               item.box[2] * scale_x, item.box[3] * scale_y)) for item in items]


def box_aspect(boxes: Sequence[Sequence[float]]) -> float | None:
    """The median height / width of the boxes (None without boxes)."""
    if not len(boxes):
        return None
    b = np.asarray(boxes, dtype=float)
    return float(np.median((b[:, 3] - b[:, 1]) / np.maximum(b[:, 2] - b[:, 0], 1e-6)))


def stretched_aspect(aspect: float | None) -> bool:
    """True for a median box height / width no tile has in a photo taken as it was."""
    return aspect is not None and not 1 / MAX_TILE_ASPECT <= aspect <= MAX_TILE_ASPECT


def looks_stretched(detections: Sequence[Detection], width: int, height: int) -> bool:
    """True when the photo is narrower than a camera takes, or the tiles found in it are too few, or too tall or
    too wide, for a photo taken as it was."""
    if len(detections) < MIN_TILES or max(width, height) > MAX_PHOTO_ASPECT * min(width, height):
        return True
    return stretched_aspect(box_aspect([d.box for d in detections]))


def squeezed_by_detail(bgr: np.ndarray, detections: Sequence[Detection]) -> bool:
    """True when the photo's detail says it was squeezed along one axis and its boxes run long along that axis
    (``SQUEEZED_DETAIL_ALONE``, ``BOXES_ALONG_SQUEEZE``)."""
    aspect = box_aspect([d.box for d in detections])
    if aspect is None or max(aspect, 1 / aspect) < BOXES_ALONG_SQUEEZE:
        return False  # most photos: their detail is not looked at
    ratio = detail_ratio(bgr)  # far above 1: detail lost along y, tiles stretched tall
    return ratio > SQUEEZED_DETAIL_ALONE if aspect > 1 else ratio < 1 / SQUEEZED_DETAIL_ALONE


def squeezed_by_detail_alone(bgr: np.ndarray) -> bool:
    """True when the photo's detail alone says it was squeezed along one axis (``SQUEEZED_DETAIL_ALONE``), whatever
    its boxes: few or no tiles found in it are stretched, not small."""
    ratio = detail_ratio(bgr)
    return ratio > SQUEEZED_DETAIL_ALONE or ratio < 1 / SQUEEZED_DETAIL_ALONE


def detail_ratio(bgr: np.ndarray) -> float:
    """The mean brightness step between pixels side by side over that between pixels one above the other: about 1
    in a photo taken as it was, far below 1 in one stretched along x, far above in one stretched along y."""
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
    across = float(cv2.absdiff(gray[:, 1:], gray[:, :-1]).mean()) if gray.shape[1] > 1 else 0.0
    down = float(cv2.absdiff(gray[1:], gray[:-1]).mean()) if gray.shape[0] > 1 else 0.0
    if down == 0:
        return 1.0 if across == 0 else float("inf")
    return across / down


def candidate_squashes(bgr: np.ndarray | None = None) -> Iterator[Squash]:
    """Every squash worth trying on a photo that looks stretched: each factor along x, then along y; given the
    photo, only along one axis where its detail says clearly that it was stretched along that one
    (``SQUEEZED_DETAIL``): the squashes along the other would be located for nothing."""
    ratio = 1.0 if bgr is None else detail_ratio(bgr)
    if ratio < SQUEEZED_DETAIL:
        yield from (Squash(x=f) for f in SQUASH_FACTORS)
    if ratio > 1 / SQUEEZED_DETAIL:
        yield from (Squash(y=f) for f in SQUASH_FACTORS)


def squash_for_boxes(boxes: Sequence[Sequence[float]]) -> Squash | None:
    """The squash that gives labelled boxes an upright tile's aspect again, or None when they are not stretched.

    Used on training photos, whose boxes are known: their tiles are then cut the way the reader sees them.
    """
    aspect = box_aspect(boxes)
    if aspect is None or not stretched_aspect(aspect):
        return None
    return Squash(y=aspect / TILE_ASPECT) if aspect > 1 else Squash(x=TILE_ASPECT / aspect)


def reading_score(detections: Sequence[Detection]) -> float:
    """How much a reading says: the sum of its tiles' confidences (more tiles, each read surely, score higher)."""
    return float(sum(d.confidence for d in detections))


class SqueezedPhoto:
    """A photo that looks squeezed (``looks_stretched``, ``squeezed_by_detail``) is read squashed back, at the squash
    whose reading scores best (``TwoStageDetector.best_squash``), where that reading beats the first; and its
    reading is the answer either way. The squashed photo is then only turned whole where it calls for that (its
    rows run up the picture, its faces stand upside down): it is not squashed again, and its rows were level in
    the squashed photo."""

    name = "squeezed"
    turns_whole = False
    squashes = True
    ends = True

    def applies(self, photo: Photo) -> bool:
        return (looks_stretched(photo.first.tiles, photo.bgr.shape[1], photo.bgr.shape[0])
                or squeezed_by_detail(photo.bgr, photo.first.tiles))

    def read_again(self, photo: Photo) -> Reading:
        squashed = photo.reader.best_squash(photo.bgr, reading_score(photo.first.tiles), photo.keep_at,
                                            candidates_at=photo.candidates_at)
        if squashed is None:
            return photo.first
        squash, first, (scale_x, scale_y) = squashed
        turns = [second for second in photo.readings if second.turns_whole]
        again = photo.read_squashed(squash.apply(photo.bgr), turns, first)
        return again.moved(lambda tiles: rescaled(tiles, scale_x / photo.pixel_scale, scale_y / photo.pixel_scale))

    def weigh(self, so_far: Reading, again: Reading) -> Reading:
        return again


SQUEEZED = SqueezedPhoto()
