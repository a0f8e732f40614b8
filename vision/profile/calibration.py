"""A profile from calibration photos: the set laid out face up in the rows of ``layout.SHEET_ROWS``.

The detector finds the tiles, they are grouped into rows (the rows' slant measured from neighbouring tiles), and the
rows are matched in order to the sheet's rows whose lengths they have, the shipped classifier choosing between rows
of one length (characters, dots and bamboo all hold nine) and between the photo as it is and turned half round (a
layout photographed from across the table); a photo whose tiles lie on their side (taken from a side of the table,
with no EXIF orientation) is first turned a quarter. Each tile becomes an example of its code, cut at its own
size and again smaller (``EXAMPLE_TILE_HEIGHTS``): a hand is often photographed from further away than a sheet.
A photo that cannot be read as a sheet raises ``ProfileError`` and nothing is made.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from mjlens.i18n import msg
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection, boxes_in_pixels
from mjlens.vision.profile.errors import ProfileError
from mjlens.vision.profile.features import FeatureReader
from mjlens.vision.profile.layout import SHEET_ROWS
from mjlens.vision.profile.store import Profile, reliance_over_views
from mjlens.vision.profile.views import tile_views
from mjlens.vision.reading.second.turned import (
    HALF,
    QUARTER_WAYS,
    turned_exactly,
    turned_exactly_back,
    turned_exactly_boxes,
)
from mjlens.vision.runtime.classifier import QUARTER_TURNS
from mjlens.vision.runtime.crops import crop_tiles
from mjlens.vision.runtime.decode import DecodedImage

#: The least chance of a tile (``vision.runtime.detector.tile_scores``) a box of the sheet is taken at.
SHEET_TILE_CHANCE = 0.1
#: The detector's inputs (long side, pixels; None: its own) a layout photo's tiles are found at, in turn: a tile one
#: size misses, another often finds. A box found at a later input is added only where it lies apart from those found
#: before and its chance of a tile is at least ``ADDED_TILE_CHANCE``: the tiles added so measured 0.39-0.42, the boxes
#: added on the empty place of a tile left out 0.15-0.18 (docs/experiments/profile-layouts.md, "Tiles found at two
#: sizes").
SHEET_INPUTS: tuple[int | None, ...] = (None, 576)
ADDED_TILE_CHANCE = 0.3
#: Two boxes sharing more than this share of the smaller one's area are one tile, or one box across two.
OVERLAP = 0.3
#: Tiles shorter than this (pixels of the decoded photo, the median) are too small to learn a face from: the detector
#: finds 8 to 31 of a synthetic sheet's 34-42 tiles 31-35 px tall, all at 80-130 px
#: (docs/experiments/profile-layouts.md).
MIN_TILE_PX = 40
#: The least sharpness (the median over the tiles of the variance of the Laplacian of their grey crops at the
#: classifier's size) of a sheet whose faces can be learnt: sharp synthetic sheets measure 965-5950, blurred with a
#: Gaussian of 4 px 168-369, of 6 px 108-307, and the vendored set's sheet, its tiles 87 px tall, 105 blurred by 12 px
#: (the detector then finds 3 of its 42 tiles); so only a sheet blurred past reading is refused (a threshold of 250
#: refused 4 of 52 synthetic sheets that the generator blurred and that read well).
MIN_SHARPNESS = 150.0
#: Centres further apart across the rows than this share of a tile's height start a new row.
ROW_SPLIT = 0.55
#: Two tiles whose features are this alike (cosine) look the same to the reader: a code laid twice, or a set whose
#: codes the reader cannot tell apart. By the features classifier, distinct codes of one row of a correct sheet
#: measure up to 0.983, a code laid twice 0.89-0.98 (docs/experiments/profile-layouts.md, "Look-alikes"): so two
#: tiles of one row alike from ``SAME_READING`` up that the shipped classifier also reads as one code, each at
#: ``SURE_READING`` at least, count as one code laid twice too.
LOOK_ALIKE = 0.985
SAME_READING, SURE_READING = 0.9, 0.85
#: A row whose tiles the shipped classifier reads, at least this share of them, as the codes of another row of the
#: sheet of its length, and more of them so than as its own, is laid in that row's place (the characters and dots
#: swapped, say): of the 450 rows of 75 correct synthetic layouts none is read so at all, of 75 layouts with the
#: characters and dots rows swapped all are (docs/experiments/profile-layouts.md).
READ_ELSEWHERE = 0.5
#: Each tile is also learnt at these heights (pixels), where it is larger (None: as it is).
EXAMPLE_TILE_HEIGHTS: tuple[int | None, ...] = (None, 32)
#: ... and turned by these quarter turns clockwise: a tile lies upside down across the table, on its side in a meld.
EXAMPLE_TURNS: tuple[int, ...] = (0, 2)
#: ... and in this many other views, smaller, in other light, tilted (``vision.profile.views``).
EXAMPLE_VIEWS = 4
#: The refusals of a layout whose rows are not the sheet's; the others come once they are.
ROW_ERRORS = frozenset({"row_length", "rows_unmatched"})
ROW_NAMES = ("characters 1m-9m", "dots 1p-9p", "bamboo 1s-9s", "honours 1z-7z", "flowers and seasons 1f-8f")


@dataclass(frozen=True)
class SheetTile:
    code: str
    box: tuple[float, float, float, float]  # pixels of the photo
    row: int  # index into SHEET_ROWS
    confidence: float = 1.0  # the shipped classifier's chance that the tile is ``code``


@dataclass(frozen=True)
class SheetReading:
    """The tiles of one calibration photo with their codes, and their unit features (one row per example)."""

    tiles: list[SheetTile]
    example_codes: list[str]
    features: np.ndarray
    codes: list[str]  # the codes of the rows it holds
    reliance: np.ndarray  # store.reliance_of the shipped classifier's readings of the tiles


def apart(tiles: Sequence[Detection]) -> list[Detection]:
    """``tiles`` without every box that shares more than ``OVERLAP`` of its area or of a surer box's with that box:
    the tiles of a sheet lie apart, so such a box is one tile boxed twice or a box across two tiles."""
    kept: list[Detection] = []
    for tile in sorted(tiles, key=lambda t: -t.confidence):
        if all(_shared(tile, other) <= OVERLAP for other in kept):
            kept.append(tile)
    return kept


def _shared(a: Detection, b: Detection) -> float:
    """The area two boxes share, as a share of the smaller."""
    w = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
    h = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    return max(w, 0.0) * max(h, 0.0) / max(min(a.width * a.height, b.width * b.height), 1e-9)


def rows_of(tiles: Sequence[Detection]) -> list[list[int]]:
    """The indices of ``tiles`` in rows, top to bottom, each left to right; the rows' slant is the median angle
    from each tile to its nearest neighbour to the side."""
    centres = np.array([t.center for t in tiles], float)
    height = float(np.median([t.height for t in tiles]))
    angles = []
    for i, (x, y) in enumerate(centres):
        d = centres - (x, y)
        side = (np.abs(d[:, 0]) > np.abs(d[:, 1])) & (np.arange(len(centres)) != i)
        if side.any():
            j = np.flatnonzero(side)[np.argmin(np.hypot(d[side, 0], d[side, 1]))]
            dx, dy = d[j] if d[j, 0] > 0 else -d[j]
            angles.append(np.arctan2(dy, dx))
    angle = float(np.median(angles)) if angles else 0.0
    across = -centres[:, 0] * np.sin(angle) + centres[:, 1] * np.cos(angle)
    along = centres[:, 0] * np.cos(angle) + centres[:, 1] * np.sin(angle)
    order = np.argsort(across)
    rows: list[list[int]] = [[int(order[0])]]
    for previous, current in itertools.pairwise(order):
        if across[current] - across[previous] > ROW_SPLIT * height:
            rows.append([])
        rows[-1].append(int(current))
    return [sorted(row, key=lambda i: along[i]) for row in rows]


def match_rows(lengths: Sequence[int], probs: Sequence[np.ndarray]) -> tuple[int, ...]:
    """The sheet row of each photo row: in order, of its length, the assignment the shipped ``probs`` (one array
    per row, tiles x classes) find likeliest. ``ProfileError`` naming the first row no order fits."""
    if len(lengths) > len(SHEET_ROWS):
        raise ProfileError("rows_unmatched", msg("the photo holds {n_lengths} rows of tiles; the sheet has at "
                                                 "most {n_SHEET_ROWS}: {ROW_NAMES}",
                                                 n_lengths=len(lengths), n_SHEET_ROWS=len(SHEET_ROWS),
                                                 ROW_NAMES=', '.join(ROW_NAMES)))
    for count in range(1, len(lengths) + 1):  # the first row that no order of the sheet's rows fits
        if not any(_fits(chosen, lengths[:count]) for chosen in itertools.combinations(range(len(SHEET_ROWS)), count)):
            raise ProfileError("row_length", msg("row {count} (top to bottom) holds {lengths} tiles, which no "
                                                 "row of the sheet in that place holds: lay out {ROW_NAMES}, "
                                                 "in that order, each row whole, a whole row left out only",
                                                 count=count, lengths=lengths[count - 1],
                                                 ROW_NAMES=', '.join(ROW_NAMES)))
    fitting = [c for c in itertools.combinations(range(len(SHEET_ROWS)), len(lengths)) if _fits(c, lengths)]
    return max(fitting, key=lambda chosen: rows_likelihood(chosen, probs))  # the first of equals


def rows_likelihood(chosen: Sequence[int], probs: Sequence[np.ndarray]) -> float:
    """How likely the shipped ``probs`` (one array per photo row) find the photo's rows to be the sheet's rows
    ``chosen``: the sum of the log-probabilities of each tile's code in its place."""
    return sum(float(np.log(p[np.arange(len(p)), [DETECTOR_CLASSES.index(c) for c in SHEET_ROWS[j]]] + 1e-3).sum())
               for j, p in zip(chosen, probs, strict=True))


def _fits(chosen: Sequence[int], lengths: Sequence[int]) -> bool:
    return all(len(SHEET_ROWS[j]) == n for j, n in zip(chosen, lengths, strict=True))


def read_sheet(reader, image: DecodedImage, features: FeatureReader) -> SheetReading:
    """One calibration photo read by ``reader`` (a ``TwoStageDetector``): its tiles, their codes and examples. Where
    its tiles lie on their side, it is read turned a quarter, its tiles found again upright (the detector misses more
    tiles on their side); where that is refused, as it is (tiles foreshortened in a photo taken at a low angle are
    wider than tall too). Refused both ways, the error is the one read turned, unless only as it is were the rows
    the sheet's (``ROW_ERRORS``)."""
    located = _located(reader, image)
    turned_error = None
    if on_their_side([d.box for d in located]):
        upright = replace(image, bgr=turned_exactly(image.bgr, QUARTER_WAYS[0]), width=image.height,
                          height=image.width)
        try:
            return _read_located(upright, _located(reader, upright), features, QUARTER_WAYS[0])
        except ProfileError as err:
            turned_error = err
    try:
        return _read_located(image, located, features)
    except ProfileError as err:
        if turned_error is not None and (err.code in ROW_ERRORS or turned_error.code not in ROW_ERRORS):
            raise turned_error from None
        raise


def _read_located(image: DecodedImage, located: list[Detection], features: FeatureReader, quarter: float = 0.0
                  ) -> SheetReading:
    """A layout photo, its tiles ``located``, read as laid and turned half round; ``quarter``: the turn the photo
    was given (``turned_exactly``), the boxes answered in the photo before it."""
    height = float(np.median([d.height for d in located])) * image.scale
    if height < MIN_TILE_PX:
        raise ProfileError("tiles_unreadable", msg("the tiles are {height:.0f} pixels tall in the photo, too "
                                                   "small to learn their faces from (at least {MIN_TILE_PX}): "
                                                   "come closer", height=height, MIN_TILE_PX=MIN_TILE_PX))
    as_laid = _Orientation.of(image, located, 0.0, features)
    sharpness = float(np.median([cv2.Laplacian(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var()
                                 for c in as_laid.crops]))
    if sharpness < MIN_SHARPNESS:
        raise ProfileError("tiles_unreadable", msg("the tiles are too blurred to learn their faces from: hold "
                                                   "the phone still, in good light, and let it focus on the "
                                                   "tiles"))
    way, chosen = _likelier_way(as_laid, _Orientation.of(image, located, HALF, features))
    if quarter:  # the boxes in the photo as it was given
        located = turned_exactly_back(located, quarter, image.height, image.width)
    tiles: list[SheetTile] = [None] * len(located)  # type: ignore[list-item]
    for row, sheet_row in zip(way.rows, chosen, strict=True):
        for i, code in zip(row, SHEET_ROWS[sheet_row], strict=True):
            tiles[i] = SheetTile(code, located[i].box, sheet_row, float(way.probs[i, DETECTOR_CLASSES.index(code)]))
    _refuse_look_alikes(tiles, way.unit, way.probs)
    codes = [t.code for t in tiles]
    example_codes, examples, views = layout_examples(way.bgr, way.boxes, codes, way.crops, (way.probs, way.unit),
                                                     features)
    ordered = [t.code for t in sorted(tiles, key=lambda t: (t.row, SHEET_ROWS[t.row].index(t.code)))]
    return SheetReading(sorted(tiles, key=lambda t: (t.row, SHEET_ROWS[t.row].index(t.code))), example_codes,
                        examples, ordered, reliance_over_views(views, codes))


def _located(reader, image: DecodedImage) -> list[Detection]:
    """The tiles of a layout photo, one box each, found at each of ``SHEET_INPUTS`` in turn, a box found later added
    where it lies apart from those found before and is surely enough a tile (``ADDED_TILE_CHANCE``); ``ProfileError``
    where there are none."""
    located: list[Detection] = []
    for input_size in SHEET_INPUTS:
        raw = reader.detector.raw(image.bgr, image.scale, input_size)
        found = apart(reader.locate(*raw, conf=SHEET_TILE_CHANCE))
        located += [box for box in found if not located or (
            box.confidence >= ADDED_TILE_CHANCE and all(_shared(box, other) <= OVERLAP for other in located))]
    if not located:
        raise ProfileError("no_tiles", msg("no tiles were found in the calibration photo: lay the set out "
                                           "face up on a plain table and photograph it from above"))
    return located


def on_their_side(boxes: Sequence[Sequence[float]]) -> bool:
    """Whether a layout's tiles (boxes x1 y1 x2 y2) lie on their side in the photo, wider than tall at the median:
    laid upright in their rows, they stand taller than wide unless the photo was taken from a side of the table."""
    return float(np.median([x2 - x1 for x1, _, x2, _ in boxes])) > float(np.median([y2 - y1 for _, y1, _, y2 in boxes]))


def stood_up(bgr: np.ndarray, boxes: Sequence[Sequence[float]], codes: Sequence[str]
             ) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A layout photo and its tiles' boxes (pixels of ``bgr``), turned a quarter where its rows, by the tiles'
    ``codes``, run up or down the photo (taken from a side of the table): a layout's tiles are learnt upright and
    half round (``EXAMPLE_TURNS``), not on their side. The codes tell it where the tiles' shape cannot: foreshortened
    in a photo taken at a low angle, upright tiles are wider than tall too."""
    boxes = [tuple(float(v) for v in box) for box in boxes]
    centres = {code: ((x1 + x2) / 2, (y1 + y2) / 2) for code, (x1, y1, x2, y2) in zip(codes, boxes, strict=True)}
    along = np.zeros(2)  # from each tile to the next code of its row, summed
    for row in SHEET_ROWS:
        for code, following in itertools.pairwise(row):
            if code in centres and following in centres:
                along += np.subtract(centres[following], centres[code])
    if abs(along[1]) <= abs(along[0]):
        return bgr, boxes
    degrees = QUARTER_WAYS[1] if along[1] > 0 else QUARTER_WAYS[0]  # rows running down: turned back anticlockwise
    height, width = bgr.shape[:2]
    return turned_exactly(bgr, degrees), turned_exactly_boxes(boxes, degrees, width, height)


@dataclass(frozen=True)
class _Orientation:
    """A calibration photo one way up: the image, its tiles' boxes (pixels), rows, crops and their readings."""

    bgr: np.ndarray
    boxes: list[tuple[float, float, float, float]]
    rows: list[list[int]]
    crops: list[np.ndarray]
    probs: np.ndarray
    unit: np.ndarray

    @classmethod
    def of(cls, image: DecodedImage, located: Sequence[Detection], degrees: float, features: FeatureReader
           ) -> _Orientation:
        """``image`` and its tiles ``located`` (pixels of the photo) turned by ``degrees`` (``turned_exactly``)."""
        if degrees:
            turned = turned_exactly_boxes([d.box for d in located], degrees, image.width, image.height)
            located = [replace(d, box=box) for d, box in zip(located, turned, strict=True)]
        bgr = turned_exactly(image.bgr, degrees) if degrees else image.bgr
        boxes = boxes_in_pixels(located, image.scale)
        crops = crop_tiles(bgr, boxes, features.classifier.size)
        return cls(bgr, boxes, rows_of(located), crops, *features.read(crops))

    def sheet_rows(self) -> tuple[tuple[int, ...], float]:
        """The sheet row of each of its rows (``match_rows``) and how likely they are; ``ProfileError`` if they
        cannot be the sheet's."""
        probs = [self.probs[row] for row in self.rows]
        chosen = match_rows([len(row) for row in self.rows], probs)
        _refuse_rows_out_of_place(self.rows, chosen, self.probs)
        return chosen, rows_likelihood(chosen, probs)


def _likelier_way(as_laid: _Orientation, turned: _Orientation) -> tuple[_Orientation, tuple[int, ...]]:
    """The way up a layout was photographed, as laid or turned half round (from across the table), and its sheet
    rows: the one whose rows can be the sheet's, the likelier where both can; the error of the photo as laid where
    neither can. Read half round, a layout's rows run in the reverse order and each from its other end, so only
    its right way up puts the codes the shipped classifier reads in their places
    (docs/experiments/profile-layouts.md)."""
    ways, refused = [], []
    for way in (as_laid, turned):
        try:
            ways.append((way, *way.sheet_rows()))
        except ProfileError as err:
            refused.append(err)
    if not ways:
        raise refused[0]
    way, chosen, _ = max(ways, key=lambda item: item[2])  # as laid, of equals
    return way, chosen


def layout_examples(bgr: np.ndarray, boxes: Sequence[tuple[float, ...]], codes: Sequence[str], crops: Sequence,
                    read: tuple[np.ndarray, np.ndarray], features: FeatureReader
                    ) -> tuple[list[str], np.ndarray, list[np.ndarray]]:
    """The examples of a layout's tiles (``boxes`` in pixels of ``bgr``, ``crops`` and their probabilities and unit
    features, ``read``, already read): each as it is and at ``EXAMPLE_TILE_HEIGHTS``, turned by ``EXAMPLE_TURNS``,
    and in ``EXAMPLE_VIEWS`` other views. Their codes and features, and the shipped classifier's probabilities of
    each view of the tiles (the first: as they are)."""
    height = float(np.median([box[3] - box[1] for box in boxes]))
    example_codes: list[str] = []
    examples, example_probs = [], []
    for target in EXAMPLE_TILE_HEIGHTS:
        if target is not None and target >= 0.9 * height:
            continue
        if target is None:
            cut = crops
        else:
            factor = target / height
            small = cv2.resize(bgr, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
            cut = crop_tiles(small, [tuple(v * factor for v in box) for box in boxes], features.classifier.size)
        for turn in EXAMPLE_TURNS:
            turned = cut if turn == 0 else [cv2.rotate(c, QUARTER_TURNS[turn]) for c in cut]
            probs, unit = read if turn == 0 and target is None else features.read(turned)
            examples.append(unit)
            example_probs.append(probs)
            example_codes += codes
    for view in tile_views(bgr, boxes, features.classifier.size, EXAMPLE_VIEWS):
        probs, unit = features.read(view)
        examples.append(unit)
        example_probs.append(probs)
        example_codes += codes
    return example_codes, np.concatenate(examples), example_probs


def _refuse_rows_out_of_place(rows: Sequence[Sequence[int]], chosen: Sequence[int], probs: np.ndarray) -> None:
    """``ProfileError`` when a row's tiles read as another row of the sheet of its length (``READ_ELSEWHERE``): rows
    of one length are matched in the sheet's order, so two of them swapped would each learn the other's codes."""
    read = [DETECTOR_CLASSES[c] for c in probs.argmax(axis=1)]
    for number, (row, sheet_row) in enumerate(zip(rows, chosen, strict=True), start=1):
        codes = [read[i] for i in row]
        own = sum(code in SHEET_ROWS[sheet_row] for code in codes)
        for other, laid in enumerate(SHEET_ROWS):
            elsewhere = sum(code in laid for code in codes)
            if other != sheet_row and len(laid) == len(row) and elsewhere >= READ_ELSEWHERE * len(row) \
                    and elsewhere > own:
                raise ProfileError("rows_unmatched", msg("row {number} (top to bottom) lies where the "
                                                         "{ROW_NAMES} belong, but its tiles read as the "
                                                         "{ROW_NAMES2}: lay out {ROW_NAMES3}, in that order",
                                                         number=number, ROW_NAMES=ROW_NAMES[sheet_row],
                                                         ROW_NAMES2=ROW_NAMES[other], ROW_NAMES3=', '.join(ROW_NAMES)))


def _refuse_look_alikes(tiles: Sequence[SheetTile], unit: np.ndarray, probs: np.ndarray) -> None:
    """``ProfileError`` when two tiles of the sheet look the same to the reader (``LOOK_ALIKE``, or ``SAME_READING``
    and read surely as one code by the shipped classifier)."""
    similarity = unit @ unit.T
    np.fill_diagonal(similarity, -1.0)
    read, sure = probs.argmax(axis=1), probs.max(axis=1) >= SURE_READING
    row = np.array([t.row for t in tiles])
    alike = (similarity >= LOOK_ALIKE) | ((similarity >= SAME_READING) & (read[:, None] == read[None, :])
                                          & sure[:, None] & sure[None, :] & (row[:, None] == row[None, :]))
    if not alike.any():
        return
    i, j = np.unravel_index(int(np.argmax(np.where(alike, similarity, -1.0))), similarity.shape)
    a, b = sorted((tiles[i], tiles[j]), key=lambda t: (t.row, SHEET_ROWS[t.row].index(t.code)))
    if a.row == b.row:
        raise ProfileError("code_missing", msg("the tiles laid as {code} and {code2} look the same: is one "
                                               "code laid twice and another missing from the {ROW_NAMES} row?",
                                               code=a.code, code2=b.code, ROW_NAMES=ROW_NAMES[a.row]))
    raise ProfileError("tiles_look_alike", msg("the tiles laid as {code} and {code2} look the same to the "
                                               "reader: check that each is the code its place in the sheet "
                                               "says", code=a.code, code2=b.code))


def profile_from_sheets(reader, images: Sequence[DecodedImage], features: FeatureReader) -> Profile:
    """A complete profile from one or more calibration photos, each read by ``read_sheet``."""
    profile = None
    for image in images:
        reading = read_sheet(reader, image, features)
        made = Profile.of_examples(reading.example_codes, reading.features, features.digest, "sheet",
                                   codes=reading.codes, reliance=reading.reliance)
        profile = made if profile is None else profile.merged(made)
    if profile is None:
        raise ProfileError("no_tiles", msg("no calibration photo was given"))
    return profile
