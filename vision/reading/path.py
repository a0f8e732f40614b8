"""One reading path for every photo: a first reading, then the second readings that apply, in their order.

A ``Reading`` is what each step hands the next: the tiles kept and, where ``mjlens eval`` asks for them, every
candidate box mAP ranks, moved and weighed together, so the product and the evaluation take the same decisions in
the same code (``read_photo``). A second reading (``SecondReading``) says when it applies to a photo's first
reading, reads the photo again, and weighs that reading against the reading so far; the ones the reader tries, and
their order, are listed once (``vision.reading.second``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from mjlens.scoring.tiles import BACK_CODE, is_bonus
from mjlens.vision.detection import Detection, mean_confidence
from mjlens.vision.reading.copies import limit_copies
from mjlens.vision.reading.twins import without_boxes_across_pairs, without_loose_twins


@dataclass(frozen=True)
class Reading:
    """The tiles read in one image; with them, when asked for (``candidates_at``), every box worth ranking for mAP
    under each of its likeliest codes (None when not asked: the product never pays for them)."""

    tiles: list[Detection]
    candidates: list[Detection] | None = None

    def moved(self, move: Callable[[Sequence[Detection]], list[Detection]]) -> Reading:
        """The reading with ``move`` (boxes taken back to the photo, a filter) applied to its tiles and candidates."""
        return Reading(move(self.tiles), None if self.candidates is None else move(self.candidates))

    @property
    def sureness(self) -> float:
        """How surely the reading names its tiles, whatever their number (``mean_confidence``)."""
        return mean_confidence(self.tiles)


def surest(readings: Sequence[Reading]) -> Reading:
    """The surest of ``readings`` (``Reading.sureness``), the first of equals: a reading of the right way up finds and
    names its tiles surer, and the mean does not favour one that adds tiles."""
    return max(readings, key=lambda reading: reading.sureness)


def one_set(tiles: Sequence[Detection]) -> list[Detection]:
    """A reading made one tile set's: each tile boxed once and no box across two tiles (``vision.reading.twins``), no
    more
    copies of a code than a set holds where the runner-ups allow (``vision.reading.copies``)."""
    return limit_copies(without_boxes_across_pairs(without_loose_twins(tiles)))


@dataclass(frozen=True)
class KeepAt:
    """The least (chance of a tile) x (classifier probability) a reading is kept at: ``bonus`` for a flower or a
    season, ``back`` for a face-down tile, ``tiles`` for every other code. Neither flowers nor backs are held to more
    than the other tiles."""

    tiles: float
    bonus: float
    back: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "bonus", min(self.bonus, self.tiles))
        object.__setattr__(self, "back", min(self.back, self.tiles))

    def of(self, code: str) -> float:
        if is_bonus(code):
            return self.bonus
        return self.back if code == BACK_CODE else self.tiles

    @property
    def lowest(self) -> float:
        return min(self.tiles, self.bonus, self.back)


class TileReader(Protocol):
    """What the reading path asks of the two-stage reader (``vision.reading.reader.TwoStageDetector``)."""

    def first_reading(self, bgr: np.ndarray, pixel_scale: float = 1.0, keep_at: KeepAt | None = None,
                      input_size: int | None = None, around: Sequence[float] | None = None, *,
                      candidates_at: float | None = None) -> Reading: ...

    def best_squash(self, bgr: np.ndarray, to_beat: float, keep_at: KeepAt | None = None, *,
                    candidates_at: float | None = None) -> tuple[Any, Reading, tuple[float, float]] | None: ...

    def level_turn(self, bgr: np.ndarray, found: Sequence[Detection], pixel_scale: float = 1.0) -> float | None: ...

    def zoom_for(self, found: Sequence[Detection], bgr: np.ndarray, pixel_scale: float = 1.0) -> int | None: ...


@dataclass
class Photo:
    """One image being read (the photo, or the photo squashed back or turned whole) and its first reading: what a
    second reading looks at. Boxes are in the image's pixels over ``pixel_scale`` (a photo decoded reduced)."""

    reader: TileReader
    bgr: np.ndarray
    pixel_scale: float
    keep_at: KeepAt
    candidates_at: float | None
    #: The second readings open to this image, in their order.
    readings: tuple[SecondReading, ...]
    #: Every second reading the reader tries, in their order: what an image made from this one is read with afresh.
    every: tuple[SecondReading, ...]
    #: The image's first reading: located and read as it is, before any second reading.
    first: Reading

    @property
    def width(self) -> float:
        return self.bgr.shape[1] / self.pixel_scale

    @property
    def height(self) -> float:
        return self.bgr.shape[0] / self.pixel_scale

    @cached_property
    def level_turn(self) -> float | None:
        """The angle that turns the rows of the first reading level (``TwoStageDetector.level_turn``), asked once."""
        return self.reader.level_turn(self.bgr, self.first.tiles, self.pixel_scale)

    @cached_property
    def zoom(self) -> int | None:
        """The larger detector input to read small tiles again at (``TwoStageDetector.zoom_for``), or None."""
        return self.reader.zoom_for(self.first.tiles, self.bgr, self.pixel_scale)

    def read(self, bgr: np.ndarray, input_size: int | None = None, around: Sequence[float] | None = None) -> Reading:
        """A first reading of ``bgr`` (this image or a part of it turned, at this pixel scale) at these thresholds."""
        return self.reader.first_reading(bgr, self.pixel_scale, self.keep_at, input_size, around,
                                         candidates_at=self.candidates_at)

    def read_turned_whole(self, bgr: np.ndarray) -> Reading:
        """``bgr``, this image turned whole, read as any photo is but never turned whole again."""
        return read_photo(self.reader, bgr, self.pixel_scale, self.keep_at,
                          [second for second in self.every if not second.turns_whole], every=self.every,
                          candidates_at=self.candidates_at)

    def read_squashed(self, bgr: np.ndarray, readings: Sequence[SecondReading], first: Reading) -> Reading:
        """``bgr``, this image squashed back in pixels of its own, whose first reading is ``first``, read on with
        ``readings`` only, and never squashed again, however it is turned."""
        return read_photo(self.reader, bgr, 1.0, self.keep_at, readings,
                          every=[second for second in self.every if not second.squashes],
                          candidates_at=self.candidates_at, first=first)


class SecondReading(Protocol):
    """A second reading of a photo: when it applies, how it reads the photo again, how that reading is weighed."""

    #: What it reads again for, in a few words (``squeezed``, ``quarter turn``, ...).
    name: str
    #: Whether it reads the whole photo turned: an image turned whole is not turned whole again.
    turns_whole: bool
    #: Whether it reads the photo squashed back: an image squashed back is not squashed again.
    squashes: bool
    #: Whether its reading is the answer once it applies: the readings after it are made inside it, or not at all.
    ends: bool

    def applies(self, photo: Photo) -> bool:
        """Whether the photo's first reading (``photo.first``) calls for this reading."""
        ...

    def read_again(self, photo: Photo) -> Reading:
        """The photo read again, its boxes in the photo's pixels."""
        ...

    def weigh(self, so_far: Reading, again: Reading) -> Reading:
        """The reading kept of the reading so far and the one read again."""
        ...


def read_photo(reader: TileReader, bgr: np.ndarray, pixel_scale: float, keep_at: KeepAt,
               readings: Sequence[SecondReading], *, every: Sequence[SecondReading] | None = None,
               candidates_at: float | None = None, first: Reading | None = None) -> Reading:
    """The tiles of ``bgr`` (and the candidates for mAP at ``candidates_at``, if given): its first reading (``first``
    where already made), then each of ``readings`` that applies, in order, weighed against the reading so far,
    until one that ``ends``. ``every``: the readings an image made from this one is read with afresh (by default
    ``readings``)."""
    if first is None:
        first = reader.first_reading(bgr, pixel_scale, keep_at, candidates_at=candidates_at)
    photo = Photo(reader, bgr, pixel_scale, keep_at, candidates_at, tuple(readings),
                  tuple(readings if every is None else every), first)
    so_far = photo.first
    for second in photo.readings:
        if second.applies(photo):
            so_far = second.weigh(so_far, second.read_again(photo))
            if second.ends:
                break
    return so_far
