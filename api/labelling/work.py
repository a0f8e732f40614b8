"""One photo's labelling, the same whichever engine runs it (the local thread pool or a Ray worker): open it
safely, recognize it, put the photo in the output, then save the recognition, last, as the mark that the photo
is done (an interrupted run resumes from those marks). A photo that cannot be labelled gives an outcome with a
stable code; it never raises, so one bad file never stops a run.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mjlens.i18n import msg
from mjlens.i18n.os_errors import os_reason
from mjlens.vision.runtime.decode import MAX_BYTES, ImageError

from .inputs import Photo, PhotoRefused, open_photo
from .outputs import Failure, OutputFolder, json_text, store_image, write_atomic


class TileRecognizer(Protocol):
    def recognize(self, data: bytes, name: str) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RecognizerRecipe:
    """How to load the recognizer, as plain data: each worker (a thread pool, or each Ray worker on its node)
    loads it once from this."""

    model: str | None = None
    classifier: str | None = None
    conf: float | None = None
    bonus_conf: float | None = None
    back_conf: float | None = None
    input_size: int | None = None
    profile: str | None = None  # a profile of the tile set (vision.profile)

    def load(self, threads: int) -> TileRecognizer:
        """The recognizer with ``threads`` inference threads; raises ``ModelError`` for a missing or bad model."""
        from mjlens.vision.reading.reader import load_tile_reader
        from mjlens.vision.recognize import Recognizer

        detector = load_tile_reader(self.model, classifier=self.classifier, threads=threads, conf=self.conf,
                                    bonus_conf=self.bonus_conf, back_conf=self.back_conf,
                                    input_size=self.input_size, profile=self.profile)
        return Recognizer(detector=detector)


@dataclass(frozen=True)
class LabelSettings:
    """What the per-photo work needs besides the recognizer (plain data, sent to every worker)."""

    input_root: Path
    out: OutputFolder
    follow_links: bool = False
    link: bool = False  # hard-link output photos to the originals instead of copying them


@dataclass(frozen=True)
class Outcome:
    """A photo labelled (``failure`` None) or not."""

    photo: Photo
    failure: Failure | None = None


def label_photo(recognizer: TileRecognizer, photo: Photo, settings: LabelSettings) -> Outcome:
    """Label one photo into ``settings.out``; never raises for the photo's sake (its failure is the outcome)."""

    def failed(code: str, message: str) -> Outcome:
        return Outcome(photo, Failure(photo.relative, code, message))

    out = settings.out
    try:
        fd = open_photo(photo, settings.input_root, settings.follow_links)
    except (ImageError, PhotoRefused) as err:
        return failed(err.code, err.message)
    except OSError as err:
        return failed("cannot_read", os_reason(err))
    try:
        try:
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(MAX_BYTES + 1)
            recognition = recognizer.recognize(data, photo.source.name)
        except ImageError as err:
            return failed(err.code, err.message)
        except OSError as err:
            return failed("cannot_read", os_reason(err))
        try:
            link_to = Path(os.path.realpath(photo.source)) if settings.link else None
            store_image(fd, data, out.images / photo.image_name, link_to=link_to)
            write_atomic(out.recognitions / f"{photo.key}.json", json_text(recognition))
        except OSError as err:
            return failed("cannot_write", msg("{path}: {message}", path=str(out.root), message=os_reason(err)))
    except Exception as err:  # a fault on one photo is reported with it; the run goes on
        return failed("internal_error", f"{type(err).__name__}: {err}")
    finally:
        os.close(fd)
    return Outcome(photo)


def load_recognition(out: OutputFolder, photo: Photo) -> dict[str, Any] | None:
    """The recognition saved for ``photo`` by this or an earlier run, or None when it is missing or damaged (then
    the photo is labelled again)."""
    try:
        rec = json.loads((out.recognitions / f"{photo.key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(rec, dict) and isinstance(rec.get("tiles"), list) and rec.get("width") and rec.get("height")
    return rec if ok else None
