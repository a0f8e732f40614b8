"""An output folder of ``mjlens label`` as the review page sees it: its photos and readings with the reviewer's
corrections applied, and the one way its labels and review page are written from them (the labelling run's end and
every save of ``mjlens label --review`` alike).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mjlens.i18n import DEFAULT_LANG, msg

from .corrections import CORRECTIONS_FILE, Correction, CorrectionError, corrected, corrections_text
from .labels import coco, data_yaml, review_html, split_lists, yolo_lines
from .outputs import FAILED_LIST, Failure, OutputFolder, json_text, write_atomic

REVIEW_PAGE = "review.html"
DATA_YAML = "data.yaml"
COCO_FILE = "annotations.json"
LABEL_FORMATS = ("yolo", "coco")


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo of the output folder: its name there and its key (the name without suffix; its label's name)."""

    key: str
    image_name: str


def corrected_photos(labelled: Sequence[tuple[Any, dict[str, Any]]], corrections: dict[str, Correction]
                     ) -> list[tuple[Any, dict[str, Any]]]:
    """Each photo with its reading as the reviewer corrected it. A correction of a photo at another size than its
    reading (a photo labelled again after it changed) cannot be placed on it: refused."""
    out = []
    for photo, rec in labelled:
        correction = corrections.get(photo.image_name)
        if correction is not None and (correction.width, correction.height) != (rec["width"], rec["height"]):
            raise CorrectionError("unknown_photo", msg(
                "{image} is corrected at {width}x{height} but read at {read_width}x{read_height}",
                image=correction.image, width=correction.width, height=correction.height, read_width=rec["width"],
                read_height=rec["height"]))
        out.append((photo, corrected(rec, correction)))
    return out


def check_corrections(labelled: Sequence[tuple[Any, dict[str, Any]]], corrections: dict[str, Correction]) -> None:
    """Every correction names a photo of the folder, at its size."""
    names = {photo.image_name for photo, _ in labelled}
    unknown = sorted(name for name in corrections if name not in names)
    if unknown:
        none = msg("the output folder holds no labelled photo images/{name}", name=unknown[0])
        raise CorrectionError("unknown_photo", msg("{message} (and {count} more)", message=none,
                                                   count=len(unknown) - 1) if len(unknown) > 1 else none)
    corrected_photos(labelled, corrections)


def write_labels(out: OutputFolder, labelled: Sequence[tuple[Any, dict[str, Any]]], formats: Sequence[str],
                 only: Collection[str] | None = None) -> None:
    """The labels of ``labelled`` (readings already corrected) in each of ``formats``; of YOLO's file a photo, only
    those of the photos named in ``only`` (image names) where it is given: a save rewrites what it changed."""
    if "yolo" in formats:
        out.labels.mkdir(exist_ok=True)
        for photo, rec in labelled:
            if only is not None and photo.image_name not in only:
                continue
            lines = yolo_lines(rec)
            write_atomic(out.labels / f"{photo.key}.txt", "\n".join(lines) + ("\n" if lines else ""))
        write_atomic(out.root / DATA_YAML, data_yaml())
        for name, text in split_lists([photo.image_name for photo, _ in labelled]).items():
            write_atomic(out.root / name, text)
    if "coco" in formats:
        write_atomic(out.root / COCO_FILE, json_text(coco(labelled)))


def write_review(out: OutputFolder, labelled: Sequence[tuple[Any, dict[str, Any]]], formats: Sequence[str],
                 low: float, failures: list[Failure], only: Collection[str] | None = None,
                 lang: str = DEFAULT_LANG) -> None:
    """The labels and the review page (in ``lang``), from readings already corrected (``only``: as
    ``write_labels``)."""
    write_labels(out, labelled, formats, only)
    write_atomic(out.root / REVIEW_PAGE, review_html(list(labelled), low, failures, formats, lang=lang))


def save_corrections(out: OutputFolder, corrections: Sequence[Correction]) -> None:
    write_atomic(out.root / CORRECTIONS_FILE, corrections_text(corrections))


# What an existing output folder holds, for ``mjlens label --review`` (no input folder to list: the folder alone).

def formats_in(out: OutputFolder) -> tuple[str, ...]:
    """The label formats the folder was written in: YOLO where it has data.yaml or labels/, COCO where it has
    annotations.json."""
    return tuple(fmt for fmt, present in (("yolo", (out.root / DATA_YAML).is_file() or out.labels.is_dir()),
                                          ("coco", (out.root / COCO_FILE).is_file())) if present)


def photos_in(out: OutputFolder) -> list[LabelledPhoto]:
    """Every photo of the folder with a saved reading (whole or not), in name order as the labelling run lists
    them."""
    images = {Path(name).stem: name for name in _names(out.images)}
    keys = sorted(Path(name).stem for name in _names(out.recognitions) if name.endswith(".json"))
    return [LabelledPhoto(key, images[key]) for key in keys if key in images]


def reading_of(out: OutputFolder, photo: LabelledPhoto) -> dict[str, Any] | None:
    """The photo's saved reading; None where it is damaged (the labelling run reads it again)."""
    from .work import load_recognition

    return load_recognition(out, photo)  # type: ignore[arg-type]  # it reads the key alone


def labelled_in(out: OutputFolder) -> list[tuple[LabelledPhoto, dict[str, Any]]]:
    """Every photo of the folder with a whole saved reading, with it."""
    readings = ((photo, reading_of(out, photo)) for photo in photos_in(out))
    return [(photo, rec) for photo, rec in readings if rec is not None]


def failures_in(out: OutputFolder) -> list[Failure]:
    """The files the labelling run could not label, as its failed.jsonl lists them (none where it is missing)."""
    failures = []
    try:
        lines = (out.root / FAILED_LIST).read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            item = json.loads(line)
            failures.append(Failure(str(item["path"]), str(item["code"]), str(item["message"])))
        except (ValueError, KeyError, TypeError):
            continue  # a damaged line of a list that is only shown
    return failures


def _names(folder: Path) -> list[str]:
    try:
        return [entry.name for entry in folder.iterdir() if entry.is_file()]
    except OSError:
        return []
