"""The reviewer's corrections to ``mjlens label`` output: ``corrections.jsonl`` in the output folder, written by the
review page. One Recognition JSON line (CONVENTIONS §4) a photo the reviewer changed or marked done, its tiles as
corrected, its ``image`` the photo's path relative to the file (``images/NAME``) and ``done`` whether the reviewer
has checked every box. The labels are written from a photo's line in place of its reading, and
``mjlens profile create --from-corrections`` learns from the photos marked done.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from mjlens.i18n import msg
from mjlens.i18n.os_errors import os_reason
from mjlens.scoring.tiles import DETECTOR_CLASSES

from .outputs import json_text

CORRECTIONS_FILE = "corrections.jsonl"
IMAGES_PREFIX = "images/"

#: Every code a corrections error may carry, and what it means.
CORRECTION_ERROR_CODES = {
    "bad_corrections": "a corrections file or a save that is not corrections as the review page writes them",
    "unknown_photo": "a correction names a photo the output folder does not hold, or holds at another size",
}


class CorrectionError(ValueError):
    """Corrections that cannot be read or applied; ``code`` is a key of ``CORRECTION_ERROR_CODES``."""

    def __init__(self, code: str, message: str):
        if code not in CORRECTION_ERROR_CODES:
            raise KeyError(f"unregistered corrections error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class CorrectedTile(BaseModel):
    """A tile as the reviewer left it; ``confidence`` is the reader's, kept only for a tile left as it was read."""

    model_config = ConfigDict(extra="ignore")

    code: str
    box: tuple[float, float, float, float]
    confidence: float | None = None

    @field_validator("code")
    @classmethod
    def _known_code(cls, code: str) -> str:
        if code not in DETECTOR_CLASSES:
            raise ValueError(msg("{code} is not a detector class (CONVENTIONS §1)", code=repr(code)))
        return code

    @field_validator("box")
    @classmethod
    def _proper_box(cls, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        x1, y1, x2, y2 = box
        if not all(math.isfinite(v) for v in box) or x2 <= x1 or y2 <= y1:
            raise ValueError(msg("{box} is not a box [x1, y1, x2, y2] with x1 < x2 and y1 < y2", box=str(list(box))))
        return box


class Correction(BaseModel):
    """One photo's line of the corrections file."""

    model_config = ConfigDict(extra="ignore")

    image: str
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    tiles: list[CorrectedTile]
    done: bool = False

    @model_validator(mode="after")
    def _a_photo_of_the_images_folder(self) -> Correction:
        name = self.image.removeprefix(IMAGES_PREFIX)
        if not self.image.startswith(IMAGES_PREFIX) or not name or "/" in name or name in (".", ".."):
            raise ValueError(msg("image {image} is not images/NAME, a photo of the output folder",
                                 image=repr(self.image)))
        return self

    @property
    def image_name(self) -> str:
        """The photo's file name in the images folder."""
        return self.image.removeprefix(IMAGES_PREFIX)

    def line(self) -> dict[str, Any]:
        return {"image": self.image, "width": self.width, "height": self.height, "done": self.done,
                "tiles": [tile.model_dump(mode="json", exclude_none=True) for tile in self.tiles]}


_CORRECTIONS = TypeAdapter(list[Correction])


def _reason(err: ValidationError) -> str:
    """The first thing wrong, where it is: ``tiles.2.code: '9x' is not a detector class``; a check of this module
    says it in its own (catalogued) words, pydantic's own checks as pydantic says them."""
    first = err.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    error = first.get("ctx", {}).get("error")
    reason = error.args[0] if isinstance(error, ValueError) and error.args else first["msg"]
    return msg("{where}: {reason}", where=where, reason=reason) if where else reason


def parse_corrections(value: Any) -> list[Correction]:
    """The corrections the review page sends (a list of lines), each checked; one photo named twice is refused."""
    try:
        corrections = _CORRECTIONS.validate_python(value)
    except ValidationError as err:
        raise CorrectionError("bad_corrections", _reason(err)) from None
    _refuse_twice([c.image for c in corrections])
    return corrections


def read_corrections(path: Path) -> dict[str, Correction]:
    """The corrections of a file by photo name; none where there is no file."""
    try:
        lines = path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise CorrectionError("bad_corrections", msg("cannot read {path}: {reason}", path=str(path),
                                                     reason=os_reason(err))) from None
    corrections = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            corrections.append(Correction.model_validate(json.loads(line)))
        except ValueError as err:  # JSON that is no JSON, or a line that is no correction
            reason = _reason(err) if isinstance(err, ValidationError) else str(err)
            raise CorrectionError("bad_corrections", msg("{path}:{line}: {reason}", path=str(path), line=number,
                                                         reason=reason)) from None
    _refuse_twice([c.image for c in corrections], path)
    return {c.image_name: c for c in corrections}


def _refuse_twice(images: list[str], path: Path | None = None) -> None:
    seen: set[str] = set()
    for image in images:
        if image in seen:
            twice = msg("{image} is corrected twice", image=image)
            raise CorrectionError("bad_corrections", msg("{path}: {message}", path=str(path), message=twice)
                                  if path else twice)
        seen.add(image)


def corrections_text(corrections: Iterable[Correction]) -> str:
    return "".join(json_text(c.line()) + "\n" for c in corrections)


def corrected(recognition: dict[str, Any], correction: Correction | None) -> dict[str, Any]:
    """The recognition with the reviewer's tiles in place of the reader's (its groups and hand, which name the
    reader's tiles, left out), and whether it is done; the recognition itself where there is no correction."""
    if correction is None:
        return recognition
    return {"image": recognition.get("image"), "width": recognition["width"], "height": recognition["height"],
            "tiles": correction.line()["tiles"], "done": correction.done, "corrected": True}
