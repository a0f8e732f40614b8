"""Photo-level truth: score readings as a player would, per photo, the multiset of codes read against the one labelled.

A truth file (``real-sets/*/truth.json``, or one a player writes by typing the tiles of their own photos) is a JSON
list with one entry a photo::

    {"image": "a.jpg", "rows": [["1m", "2m"], ["6f"]], "red": ["5p"], "notes": "...", "confident": true}

``rows`` lists the face-up tiles (and ``back`` for face-down ones) row by row; ``red`` the red fives among them, by
their plain code. ``confident: false`` says some tile could not be labelled for sure, so a reader may rightly read
more: such a photo counts for tiles right but not for precision nor for exact photos.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mjlens.i18n import msg
from mjlens.scoring.tiles import READER_CLASSES, RED_FIVES, is_bonus, plain_code

from .evaluate import EvalError

#: How many codes the report lists as most missed and most read in excess.
TOP_CODES = 10


@dataclass(frozen=True)
class PhotoTruth:
    image: str
    codes: tuple[str, ...]  # every labelled tile, plain codes
    red: tuple[str, ...]  # the red fives among them, by plain code
    confident: bool = True
    notes: str = ""


@dataclass
class PhotoScore:
    image: str
    labelled: int
    read: int
    right: int
    confident: bool
    missed: Counter = field(default_factory=Counter)
    extra: Counter = field(default_factory=Counter)
    bonus_labelled: int = 0
    bonus_read: int = 0
    bonus_right: int = 0
    red_labelled: int = 0
    red_read_red: int = 0  # labelled red fives read as red
    plain_read_red: int = 0  # red fives read where the photo shows plain fives only

    @property
    def exact(self) -> bool:
        return not self.missed and not self.extra

    def to_json(self) -> dict[str, Any]:
        return {"image": self.image, "labelled": self.labelled, "read": self.read, "right": self.right,
                "exact": self.exact, "confident": self.confident, "missed": _listing(self.missed),
                "extra": _listing(self.extra)}


def read_truth(path: str | Path) -> list[PhotoTruth]:
    """The photos of a truth file; ``EvalError`` says what is wrong with one that cannot be read."""
    path = Path(path)
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvalError(msg("{path}: no such truth file", path=str(path))) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise EvalError(msg("{path}: not a readable JSON truth file ({reason})", path=str(path), reason=str(err))
                        ) from None
    if not isinstance(entries, list):
        raise EvalError(msg("{path}: a truth file is a JSON list of photos", path=str(path)))
    return [_photo_truth(entry, msg("{path} entry {number}", path=str(path), number=i))
            for i, entry in enumerate(entries)]


def _photo_truth(entry: Any, where: str) -> PhotoTruth:
    if not isinstance(entry, dict) or not isinstance(entry.get("image"), str):
        raise EvalError(msg("{where}: each photo is an object with an \"image\" name", where=where))
    rows = entry.get("rows", [])
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise EvalError(msg("{where}: \"rows\" is a list of lists of tile codes", where=where))
    codes = [code for row in rows for code in row]
    red = entry.get("red", [])
    if not isinstance(red, list):
        raise EvalError(msg("{where}: \"red\" is a list of tile codes", where=where))
    for code in (*codes, *red):
        if not isinstance(code, str) or code not in READER_CLASSES:
            raise EvalError(msg("{where}: {code} is not a tile code", where=where, code=repr(code)))
    plain = tuple(plain_code(c) for c in codes)
    red_plain = tuple(plain_code(c) for c in red)
    if Counter(red_plain) - Counter(plain):
        raise EvalError(msg("{where}: a red five in \"red\" is not among the tiles of \"rows\"", where=where))
    return PhotoTruth(image=entry["image"], codes=plain, red=red_plain, confident=bool(entry.get("confident", True)),
                      notes=str(entry.get("notes", "")))


def score_photo(truth: PhotoTruth, read_codes: Iterable[str]) -> PhotoScore:
    """One photo's reading against its truth: multisets of plain codes; red fives and flowers apart."""
    read_codes = list(read_codes)
    read = Counter(plain_code(c) for c in read_codes)
    labelled = Counter(truth.codes)
    overlap = read & labelled
    red_read = Counter(plain_code(c) for c in read_codes if c in RED_FIVES)
    red_labelled = Counter(truth.red)
    bonus = {c for c in (*labelled, *read) if is_bonus(c)}
    return PhotoScore(
        image=truth.image, labelled=sum(labelled.values()), read=sum(read.values()), right=sum(overlap.values()),
        confident=truth.confident, missed=labelled - read, extra=read - labelled,
        bonus_labelled=sum(labelled[c] for c in bonus), bonus_read=sum(read[c] for c in bonus),
        bonus_right=sum(overlap[c] for c in bonus),
        red_labelled=sum(red_labelled.values()), red_read_red=sum((red_read & red_labelled).values()),
        plain_read_red=sum((red_read - red_labelled).values()))


def summarize(scores: Sequence[PhotoScore]) -> dict[str, Any]:
    """The figures of a set of photos: tiles right over every photo; precision and exact photos over the photos
    labelled with confidence (the others may rightly read more than they list)."""
    sure = [s for s in scores if s.confident]
    missed = sum((s.missed for s in scores), Counter())
    extra = sum((s.extra for s in sure), Counter())
    return {
        "photos": len(scores), "photos_confident": len(sure),
        "photos_exact": sum(s.exact for s in sure),
        "exact_rate": _ratio(sum(s.exact for s in sure), len(sure)),
        "labelled": sum(s.labelled for s in scores), "read": sum(s.read for s in scores),
        "tiles_right": _ratio(sum(s.right for s in scores), sum(s.labelled for s in scores)),
        "precision": _ratio(sum(s.right for s in sure), sum(s.read for s in sure)),
        "flowers": {"labelled": sum(s.bonus_labelled for s in scores),
                    "right": _ratio(sum(s.bonus_right for s in scores), sum(s.bonus_labelled for s in scores)),
                    "precision": _ratio(sum(s.bonus_right for s in sure), sum(s.bonus_read for s in sure))},
        "red_fives": {"labelled": sum(s.red_labelled for s in scores),
                      "read_red": _ratio(sum(s.red_read_red for s in scores), sum(s.red_labelled for s in scores)),
                      "plain_read_red": sum(s.plain_read_red for s in scores)},
        "most_missed": _listing(missed, TOP_CODES), "most_extra": _listing(extra, TOP_CODES),
        "per_photo": [s.to_json() for s in scores],
    }


def evaluate_truth(truths: Sequence[PhotoTruth], images: Path, read_photo) -> dict[str, Any]:
    """Read every photo of ``truths`` under ``images`` with ``read_photo(path) -> Recognition JSON`` (the product's
    own reading) and summarize; a photo missing from ``images`` is an ``EvalError`` before anything is read."""
    missing = [t.image for t in truths if not (images / t.image).is_file()]
    if missing:
        raise EvalError(msg("{images}: {count} photos of the truth file are not there ({names})", images=str(images),
                            count=len(missing), names=", ".join(missing[:3])))
    scores = []
    for truth in truths:
        recognition = read_photo(images / truth.image)
        scores.append(score_photo(truth, (tile["code"] for tile in recognition["tiles"])))
    return summarize(scores)


def _listing(counts: Counter, top: int | None = None) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top])


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None
