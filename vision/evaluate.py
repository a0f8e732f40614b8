"""Detection metrics of a tile model on a YOLO dataset, through the same ONNX runtime the product uses (no torch).

Two readings of each photo are scored. *Candidates* (every box above a very low threshold, per-class NMS only)
give the ranking metrics, mAP50 and mAP50-95 (one class per anchor, its best, as the product reads them;
ultralytics' validator also lets an anchor vote for runner-up classes, so its figures run slightly higher),
computed COCO-style: predictions of a class ranked by confidence over the whole dataset, each matched to the
best unmatched label of its class at IoU >= t, average precision sampled at 101 recall points of the precision
envelope, averaged over the classes that have labels. The *operating* reading (what ``mjlens recognize``
returns) gives the product's figures: tile accuracy, per-class precision and recall, the whole-photo exact rate,
and the confusion matrix.

Tile matching is one-to-one at IoU >= 0.5: first label-prediction pairs of the same code (highest IoU first), then
the rest regardless of code (a misread tile, counted in the confusion matrix); unmatched labels are missed tiles,
unmatched predictions extra boxes, which count against precision and the exact rate.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import yaml

from mjlens.i18n import msg
from mjlens.i18n.os_errors import os_reason
from mjlens.scoring.tiles import BACK_CODE, BONUS_CODES, DETECTOR_CLASSES
from mjlens.vision.boxes import box_iou
from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import assemble
from mjlens.vision.hand.winning import winning_reading
from mjlens.vision.runtime.decode import DecodedImage, ImageError, load_image
from mjlens.vision.runtime.detector import ALT_FLOOR, decode

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
RECALL_POINTS = np.linspace(0.0, 1.0, 101)
MATCH_IOU = 0.5
HAND_SIZES = range(13, 19)  # photos of one hand: 13-18 tiles on the table
#: Where a labelled tile that is not read was lost: kept under another code; no candidate box over it at all (the
#: detector); or boxes over it, all dropped, the surest of them naming it right (a threshold) or not (the classifier).
LOST_AT = ("misread", "no_box", "dropped_read_right", "dropped_read_wrong")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif", ".bmp"}
SPLIT_KEYS = {"val": ("val", "valid"), "test": ("test",), "train": ("train",)}


class EvalError(ValueError):
    """A dataset that cannot be evaluated (missing file, bad YAML, label lines out of range)."""


class EvalDetector(Protocol):
    """What the evaluation needs from a detector (``vision.runtime.detector.Detector`` provides it)."""

    def detect_for_eval(self, bgr: np.ndarray) -> tuple[list[Detection], list[Detection]]: ...


@dataclass(frozen=True)
class Label:
    code: str
    box: tuple[float, float, float, float]  # x1 y1 x2 y2 in pixels


@dataclass
class Sample:
    """One photo: its labels, the candidate predictions (for mAP) and the operating predictions."""

    name: str
    labels: list[Label]
    candidates: list[Detection]
    operating: list[Detection]
    size: tuple[int, int] = (0, 0)  # width, height of the photo in pixels


@dataclass
class TileMatch:
    correct: list[tuple[int, int]] = field(default_factory=list)  # (label index, prediction index), same code
    wrong: list[tuple[int, int]] = field(default_factory=list)  # overlapping, another code
    missed: list[int] = field(default_factory=list)  # labels with no prediction
    extra: list[int] = field(default_factory=list)  # predictions on no label


# -- dataset ---------------------------------------------------------------------------------------------------------


def read_dataset(data_yaml: str | Path, split: str = "val", exclude: Collection[str] = ()
                 ) -> tuple[list[str], list[tuple[Path, Path]]]:
    """The dataset's class codes and its (image, label file) pairs for ``split``, without the images whose file
    name is in ``exclude``. Relative paths are read from the YAML's folder (or its ``path:``)."""
    data_yaml = Path(data_yaml)
    try:
        spec = yaml.safe_load(data_yaml.read_text(encoding="utf-8"))
    except OSError as err:
        raise EvalError(msg("cannot read {path}: {reason}", path=str(data_yaml), reason=os_reason(err))) from None
    except yaml.YAMLError as err:
        raise EvalError(msg("{path} is not valid YAML: {reason}", path=str(data_yaml), reason=str(err))) from None
    if not isinstance(spec, dict) or "names" not in spec:
        raise EvalError(msg("{path} is not a YOLO dataset description (no names)", path=str(data_yaml)))
    names = spec["names"]
    codes = [str(names[i]) for i in sorted(names)] if isinstance(names, dict) else [str(n) for n in names]
    unknown = [c for c in codes if c not in DETECTOR_CLASSES]
    if unknown:
        raise EvalError(msg("{path} has classes that are not tile codes: {unknown}", path=str(data_yaml),
                            unknown=str(unknown[:5])))
    root = Path(spec.get("path") or ".")
    root = root if root.is_absolute() else data_yaml.parent / root
    key = next((k for k in SPLIT_KEYS.get(split, (split,)) if spec.get(k)), None)
    if key is None:
        raise EvalError(msg("{path} has no {split} split", path=str(data_yaml), split=repr(split)))
    sources = spec[key] if isinstance(spec[key], list) else [spec[key]]
    images: list[Path] = []
    for source in sources:
        images.extend(images_of(root / str(source)))
    images = [image for image in images if image.name not in exclude]
    if not images:
        raise EvalError(msg("the {split} split of {path} holds no images", split=repr(split), path=str(data_yaml)))
    return codes, [(image, label_path(image)) for image in images]


def read_exclusions(path: str | Path) -> set[str]:
    """Image file names listed one per line (``#`` starts a comment): photos to leave out of an evaluation."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise EvalError(msg("cannot read {path}: {reason}", path=str(path), reason=os_reason(err))) from None
    return {line.split("#", 1)[0].strip() for line in text.splitlines()} - {""}


#: What a fix says a label shows when the label is a second box on a tile labelled already: the line is dropped.
NO_TILE = "-"
#: The LINE of a fix that adds a label: a tile the source left unlabelled among the tiles it labelled.
MISSED = "+"


@dataclass
class PhotoFixes:
    """The corrections to one photo's labels."""

    #: label line number -> (the code the line gives, the code the tile shows, or NO_TILE)
    relabelled: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: tiles the source did not label: (code, (cx, cy, w, h) normalised as in a YOLO label line)
    missed: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.relabelled) + len(self.missed)


#: photo file name -> its corrections
LabelFixes = Mapping[str, PhotoFixes]


def read_fixes(path: str | Path) -> dict[str, PhotoFixes]:
    """Corrections to a dataset's labels, one per line (``#`` starts a comment): ``PHOTO LINE LABELLED SHOWN``,
    e.g. ``2f6de644d677.jpg 6 4p 4m``: line 6 of that photo's label file says 4p where the tile is 4m; SHOWN
    ``-`` (NO_TILE) drops a label that boxes a tile labelled by another line already; ``PHOTO + SHOWN CX CY W H``
    adds the label of a tile left unlabelled, its box as a YOLO label line gives it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise EvalError(msg("cannot read {path}: {reason}", path=str(path), reason=os_reason(err))) from None
    fixes: dict[str, PhotoFixes] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) > 1 and fields[1] == MISSED:
            try:
                box = tuple(float(v) for v in fields[3:])
            except ValueError:
                box = ()
            if len(box) == 4 and fields[2] in DETECTOR_CLASSES and all(0.0 <= v <= 1.0 for v in box):
                fixes.setdefault(fields[0], PhotoFixes()).missed.append((fields[2], box))
                continue
            raise EvalError(msg("{path}:{line}: expected PHOTO + SHOWN CX CY W H, the box normalised: {text}",
                                path=str(path), line=number, text=repr(line)))
        if (len(fields) != 4 or not fields[1].isdigit() or fields[2] not in DETECTOR_CLASSES
                or fields[3] not in {*DETECTOR_CLASSES, NO_TILE}):
            raise EvalError(msg("{path}:{line}: expected PHOTO LINE LABELLED SHOWN with tile codes: {text}",
                                path=str(path), line=number, text=repr(line)))
        fixes.setdefault(fields[0], PhotoFixes()).relabelled[int(fields[1])] = (fields[2], fields[3])
    return fixes


def images_of(source: Path) -> list[Path]:
    if source.is_dir():
        return sorted(p for p in source.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    if source.suffix == ".txt" and source.is_file():  # a list of image paths, relative to the list's folder
        lines = [line.strip() for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [p if p.is_absolute() else (source.parent / p).resolve() for p in map(Path, lines)]
    raise EvalError(msg("{source} is neither an image folder nor a list of images", source=str(source)))


def label_path(image: Path) -> Path:
    """ultralytics' rule: the last ``images`` folder of the path becomes ``labels``, the suffix ``.txt``."""
    parts = list(image.parts)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "images":
            parts[i] = "labels"
            break
    return Path(*parts).with_suffix(".txt")


def read_labels(path: Path, codes: Sequence[str], width: int, height: int,
                fixes: PhotoFixes | None = None) -> list[Label]:
    """YOLO label lines (class cx cy w h, normalised) -> labels in pixels. A missing file means no tiles.
    ``fixes``: the photo's corrections (``read_fixes``); a line that does not give the code its fix expects is an
    error, so a fix never lands on a label it was not written for. Labels it adds come last."""
    fixes = fixes or PhotoFixes()
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    labels = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        try:
            cls, cx, cy, w, h = int(fields[0]), *map(float, fields[1:5])
            code = codes[cls]
        except (ValueError, IndexError):
            raise EvalError(msg("{path}:{line}: not a YOLO box line of a known class: {text}", path=str(path),
                                line=number, text=repr(line))) from None
        if number in fixes.relabelled:
            labelled, code = fixes.relabelled[number]
            if codes[cls] != labelled:
                raise EvalError(msg("{path}:{line}: the fix expects {labelled}, the label gives {given}",
                                    path=str(path), line=number, labelled=labelled, given=codes[cls]))
            if code == NO_TILE:
                continue
        labels.append(_label(code, (cx, cy, w, h), width, height))
    return labels + [_label(code, box, width, height) for code, box in fixes.missed]


def _label(code: str, box: Sequence[float], width: int, height: int) -> Label:
    """A label from a YOLO box (cx cy w h, normalised)."""
    cx, cy, w, h = box
    return Label(code, ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height))


def load_photo(path: Path) -> DecodedImage:
    """A dataset's photo, decoded as the product decodes uploads; one it cannot read is an ``EvalError``."""
    try:
        return load_image(path.read_bytes())
    except OSError as err:
        raise EvalError(msg("cannot read {path}: {reason}", path=str(path), reason=os_reason(err))) from None
    except ImageError as err:
        raise EvalError(msg("{path}: {code}: {message}", path=str(path), code=err.code, message=err.message)
                        ) from None


def collect_samples(
    data_yaml: str | Path,
    detector: EvalDetector,
    split: str = "val",
    progress: Callable[[Iterable], Iterable] | None = None,
    exclude: Collection[str] = (),
    fixes: LabelFixes | None = None,
    turn: int = 0,
) -> list[Sample]:
    """Run the detector over every photo of the split, except the photos named in ``exclude``; ``fixes``
    (``read_fixes``) corrects labels first; ``turn``: each photo and its labels turned that many quarter turns
    clockwise first (``turned_photo``)."""
    codes, pairs = read_dataset(data_yaml, split, exclude)
    samples = []
    for image_path, label_path in (progress or iter)(pairs):
        image = load_photo(image_path)
        labels = read_labels(label_path, codes, image.width, image.height, (fixes or {}).get(image_path.name))
        bgr, labels = turned_photo(image.bgr, labels, turn)
        candidates, operating = detector.detect_for_eval(bgr)
        samples.append(Sample(image_path.name, labels, candidates, operating, (bgr.shape[1], bgr.shape[0])))
    return samples


def turned_photo(bgr: np.ndarray, labels: Sequence[Label], turn: int) -> tuple[np.ndarray, list[Label]]:
    """The photo and its labels turned ``turn`` quarter turns clockwise: a photo taken turned whose EXIF
    orientation was lost, as a screenshot or a messenger app loses it (a quarter turn moves a box exactly)."""
    labels = list(labels)
    for _ in range(turn % 4):
        height = bgr.shape[0]
        bgr = cv2.rotate(bgr, cv2.ROTATE_90_CLOCKWISE)
        labels = [Label(label.code, (height - label.box[3], label.box[0], height - label.box[1], label.box[2]))
                  for label in labels]
    return bgr, labels


def ceiling_samples(data_yaml: str | Path, fixes: LabelFixes, split: str = "val", exclude: Collection[str] = ()
                    ) -> list[Sample]:
    """Every photo of the split scored on its labels as given, read as ``fixes`` corrects them, each tile with
    certainty: what a reader that names every tile right would score on the source's labels, the most any reader
    can, since a wrong label costs a right reading."""
    codes, pairs = read_dataset(data_yaml, split, exclude)
    samples = []
    for image_path, label_path in pairs:
        image = load_photo(image_path)
        labels = read_labels(label_path, codes, image.width, image.height)
        corrected = read_labels(label_path, codes, image.width, image.height, fixes.get(image_path.name))
        read = [Detection(label.code, label.box, 1.0) for label in corrected]
        samples.append(Sample(image_path.name, labels, read, read, (image.width, image.height)))
    return samples


def sweep(
    data_yaml: str | Path,
    detector: Any,
    confs: Sequence[float],
    merge_ious: Sequence[float | None] = (None,),
    split: str = "val",
    progress: Callable[[Iterable], Iterable] | None = None,
    exclude: Collection[str] = (),
    fixes: LabelFixes | None = None,
) -> list[dict[str, Any]]:
    """The operating figures at each confidence threshold (and cross-class merge IoU), from one detector run per
    photo: how ``DEFAULT_CONF`` is chosen. A two-stage reader (``vision.reading.reader``) is swept through its whole
    reading instead (the squash step included, its own merge IoU), ``conf`` being the least chance of a tile times
    the classifier's probability, for flowers, seasons and backs too (``sweep_thresholds`` then sweeps theirs)."""
    codes, pairs = read_dataset(data_yaml, split, exclude)
    if hasattr(detector, "read"):
        settings = [{"conf": conf, "bonus_conf": conf, "back_conf": conf} for conf in confs]
        return _sweep_reader(detector, codes, pairs, settings, progress, fixes)
    floor = min(min(confs), ALT_FLOOR)
    cached = []
    for image_path, label_path in (progress or iter)(pairs):
        image = load_photo(image_path)
        boxes, scores = detector.raw(image.bgr)
        keep = scores.max(axis=1) >= floor  # the anchors any of the thresholds can use
        labels = read_labels(label_path, codes, image.width, image.height, (fixes or {}).get(image_path.name))
        cached.append((image_path.name, labels, boxes[keep], scores[keep]))
    rows = []
    for merge_iou in merge_ious:
        for conf in confs:
            samples = [Sample(name, labels, [], decode(boxes, scores, detector.names, conf=conf,
                                                       nms_iou=detector.nms_iou, merge_iou=merge_iou))
                       for name, labels, boxes, scores in cached]
            rows.append(_sweep_row(samples, detector.names, {"conf": conf}, merge_iou))
    return rows


def sweep_thresholds(
    data_yaml: str | Path,
    reader: Any,
    settings: Sequence[Mapping[str, float]],
    split: str = "val",
    progress: Callable[[Iterable], Iterable] | None = None,
    exclude: Collection[str] = (),
    fixes: LabelFixes | None = None,
) -> list[dict[str, Any]]:
    """A two-stage reader's figures at each setting of its thresholds (``conf``, ``bonus_conf``, ``back_conf``,
    as ``reader.detect`` takes them): how ``vision.reading.reader.BONUS_CONF`` and ``BACK_CONF`` are chosen, each with
    the
    others held."""
    codes, pairs = read_dataset(data_yaml, split, exclude)
    return _sweep_reader(reader, codes, pairs, settings, progress, fixes)


def _sweep_reader(reader: Any, codes: Sequence[str], pairs: Sequence[tuple[Path, Path]],
                  settings: Sequence[Mapping[str, float]], progress: Callable[[Iterable], Iterable] | None,
                  fixes: LabelFixes | None) -> list[dict[str, Any]]:
    """One row per setting."""
    readings: list[list[Sample]] = [[] for _ in settings]
    for image_path, label_path in (progress or iter)(pairs):
        image = load_photo(image_path)
        labels = read_labels(label_path, codes, image.width, image.height, (fixes or {}).get(image_path.name))
        for setting, samples in zip(settings, readings, strict=True):
            samples.append(Sample(image_path.name, labels, [], reader.detect(image.bgr, **setting),
                                  (image.width, image.height)))
    return [_sweep_row(samples, reader.names, setting, reader.merge_iou)
            for setting, samples in zip(settings, readings, strict=True)]


def _sweep_row(samples: Sequence[Sample], names: Sequence[str], setting: Mapping[str, float],
               merge_iou: float | None) -> dict[str, Any]:
    """The figures of one setting (``conf``, and ``bonus_conf`` and ``back_conf`` where they differ from it)."""
    report = evaluate_samples(samples, classes=list(dict.fromkeys(names)))
    accuracy, precision = report["tile_accuracy"] or 0.0, report["tile_precision"] or 0.0
    f1 = 2 * accuracy * precision / (accuracy + precision) if accuracy + precision else 0.0
    conf = setting["conf"]
    return {"conf": conf, "bonus_conf": setting.get("bonus_conf", conf), "back_conf": setting.get("back_conf", conf),
            "merge_iou": merge_iou,
            **{k: report[k] for k in ("predictions", "tile_accuracy", "tile_precision", "exact_rate",
                                      "hand_exact_rate", "hand_read_rate", "bonus_recall")},
            "back_recall": report["per_class"].get(BACK_CODE, {}).get("recall"), "f1": round(f1, 4)}


def best_setting(rows: Sequence[dict[str, Any]], tolerance: float = 0.01) -> dict[str, Any]:
    """The sweep row to run the product at: among the rows within ``tolerance`` of the most photos exactly right
    (1 point, 3 photos of 296: closer is noise), the best balance (F1) of tile accuracy and precision, as a person
    correcting the result pays for both a missed tile and an extra one."""
    top = max(r["exact_rate"] or 0.0 for r in rows)
    return max((r for r in rows if (r["exact_rate"] or 0.0) >= top - tolerance - 1e-9), key=lambda r: r["f1"])


# -- matching and metrics --------------------------------------------------------------------------------------------


def match_tiles(labels: Sequence[Label], predictions: Sequence[Detection], iou_min: float = MATCH_IOU) -> TileMatch:
    """One-to-one matching of predictions to labels: same code first, then misreadings (module docstring)."""
    match = TileMatch()
    if not labels or not predictions:
        match.missed = list(range(len(labels)))
        match.extra = list(range(len(predictions)))
        return match
    iou = box_iou(np.array([lb.box for lb in labels]), np.array([p.box for p in predictions]))
    same = np.array([[lb.code == p.code for p in predictions] for lb in labels])
    free_label = np.ones(len(labels), dtype=bool)
    free_pred = np.ones(len(predictions), dtype=bool)
    for allowed, out in ((same, match.correct), (np.ones_like(same), match.wrong)):
        candidates = np.argwhere(allowed & (iou >= iou_min))
        order = np.argsort(-iou[candidates[:, 0], candidates[:, 1]], kind="stable")
        for li, pi in candidates[order]:
            if free_label[li] and free_pred[pi]:
                free_label[li] = free_pred[pi] = False
                out.append((int(li), int(pi)))
    match.missed = [int(i) for i in np.flatnonzero(free_label)]
    match.extra = [int(i) for i in np.flatnonzero(free_pred)]
    return match


def average_precision(tp: np.ndarray, scores: np.ndarray, n_labels: int) -> float:
    """COCO 101-point AP of one class at one IoU threshold, from each prediction's TP flag and score."""
    if n_labels == 0:
        return float("nan")
    if len(tp) == 0:
        return 0.0
    order = np.argsort(-scores, kind="stable")
    hits = np.cumsum(tp[order])
    recall = hits / n_labels
    precision = hits / np.arange(1, len(tp) + 1)
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    index = np.searchsorted(recall, RECALL_POINTS, side="left")
    sampled = np.where(index < len(envelope), envelope[np.minimum(index, len(envelope) - 1)], 0.0)
    return float(sampled.mean())


def _class_tp(samples: Sequence[Sample], code: str) -> tuple[np.ndarray, np.ndarray, int]:
    """For one class: a TP flag per IoU threshold for every candidate prediction, their scores, the label count."""
    flags, scores, n_labels = [], [], 0
    for sample in samples:
        labels = np.array([lb.box for lb in sample.labels if lb.code == code]).reshape(-1, 4)
        preds = sorted((p for p in sample.candidates if p.code == code), key=lambda p: -p.confidence)
        n_labels += len(labels)
        if not preds:
            continue
        iou = box_iou(np.array([p.box for p in preds]), labels) if len(labels) else np.zeros((len(preds), 0))
        tp = np.zeros((len(preds), len(IOU_THRESHOLDS)), dtype=bool)
        for t, threshold in enumerate(IOU_THRESHOLDS):
            taken = np.zeros(len(labels), dtype=bool)
            for i in range(len(preds)):  # highest score first, each to its best free label (COCO)
                options = np.where(taken, -1.0, iou[i])
                if len(options) and options.max() >= threshold:
                    j = int(options.argmax())
                    taken[j] = tp[i, t] = True
        flags.append(tp)
        scores.extend(p.confidence for p in preds)
    tp_all = np.concatenate(flags) if flags else np.zeros((0, len(IOU_THRESHOLDS)), dtype=bool)
    return tp_all, np.array(scores, dtype=np.float64), n_labels


def _subset(samples: Sequence[Sample], classes: Iterable[str] | None) -> list[Sample]:
    if classes is None:
        return list(samples)
    keep = set(classes)
    return [Sample(s.name, [lb for lb in s.labels if lb.code in keep], [p for p in s.candidates if p.code in keep],
                   [p for p in s.operating if p.code in keep], s.size) for s in samples]


def evaluate_samples(samples: Sequence[Sample], classes: Sequence[str] | None = None) -> dict[str, Any]:
    """Every metric of the module docstring. ``classes``: score only these codes (labels and predictions of other
    classes are dropped first), e.g. the 34 classes a peer model knows."""
    samples = _subset(samples, classes)
    codes = list(classes) if classes is not None else list(DETECTOR_CLASSES)
    index = {c: i for i, c in enumerate(codes)}
    background = len(codes)
    confusion = np.zeros((len(codes) + 1, len(codes) + 1), dtype=np.int64)  # rows: true, columns: predicted
    predicted = np.zeros(len(codes), dtype=np.int64)
    n_labels = n_preds = n_correct = exact = hand_photos = hand_exact = hand_read = 0
    bonus_labels = bonus_correct = 0
    lost = dict.fromkeys(LOST_AT, 0)
    for sample in samples:
        match = match_tiles(sample.labels, sample.operating)
        lost["misread"] += len(match.wrong)
        for li, pi in match.correct + match.wrong:
            confusion[index[sample.labels[li].code], index[sample.operating[pi].code]] += 1
        for li in match.missed:
            confusion[index[sample.labels[li].code], background] += 1
            lost[_lost_at(sample.labels[li], sample.candidates)] += 1
        for pi in match.extra:
            confusion[background, index[sample.operating[pi].code]] += 1
        for p in sample.operating:
            predicted[index[p.code]] += 1
        n_labels += len(sample.labels)
        n_preds += len(sample.operating)
        n_correct += len(match.correct)
        bonus_labels += sum(lb.code in BONUS_CODES for lb in sample.labels)
        bonus_correct += sum(sample.labels[li].code in BONUS_CODES for li, _ in match.correct)
        is_exact = len(match.correct) == len(sample.labels) == len(sample.operating)
        exact += is_exact
        if len(sample.labels) in HAND_SIZES:
            hand_photos += 1
            hand_exact += is_exact
            hand_read += _hand_read_exactly(sample)
    per_class: dict[str, dict[str, Any]] = {}
    ap = np.full((len(codes), len(IOU_THRESHOLDS)), np.nan)
    for c, code in enumerate(codes):
        tp, scores, count = _class_tp(samples, code)
        for t in range(len(IOU_THRESHOLDS)):
            ap[c, t] = average_precision(tp[:, t], scores, count)
        correct = int(confusion[c, c])
        per_class[code] = {
            "labels": count, "predictions": int(predicted[c]),
            "ap50": _num(ap[c, 0]), "ap50_95": _num(np.nanmean(ap[c]) if count else np.nan),
            "precision": _ratio(correct, int(predicted[c])), "recall": _ratio(correct, count),
        }
    labelled = ~np.isnan(ap[:, 0])
    return {
        "images": len(samples), "labels": n_labels, "predictions": n_preds,
        "map50": _num(ap[labelled, 0].mean() if labelled.any() else np.nan),
        "map50_95": _num(ap[labelled].mean() if labelled.any() else np.nan),
        "tile_accuracy": _ratio(n_correct, n_labels), "tile_precision": _ratio(n_correct, n_preds),
        "exact_rate": _ratio(exact, len(samples)), "exact_photos": exact,
        "hand_photos": hand_photos, "hand_exact_rate": _ratio(hand_exact, hand_photos),
        "hand_read_rate": _ratio(hand_read, hand_photos), "hands_read": hand_read,
        "bonus_labels": bonus_labels, "bonus_recall": _ratio(bonus_correct, bonus_labels),
        "tiles_lost": lost, "per_class": per_class,
        "confusion": {"classes": codes + ["background"], "matrix": confusion.tolist()},
    }


def _lost_at(label: Label, candidates: Sequence[Detection]) -> str:
    """Where a label no kept tile matches was lost (``LOST_AT``), told by the candidates over it at ``MATCH_IOU``:
    none, or the surest of them naming it right or not."""
    if not candidates:
        return "no_box"
    iou = box_iou(np.array([c.box for c in candidates], np.float32), np.array([label.box], np.float32))[:, 0]
    over = np.flatnonzero(iou >= MATCH_IOU)
    if not len(over):
        return "no_box"
    surest = candidates[max(over, key=lambda i: candidates[i].confidence)]
    return "dropped_read_right" if surest.code == label.code else "dropped_read_wrong"


def _hand_read_exactly(sample: Sample) -> bool:
    """Whether the tiles the layout puts in the hand (every group but "other") are exactly the labelled ones: a
    hand photo's labels are its hand, and tiles around it that the layout files apart are not part of what the
    product reads as the hand, labelled or not. As the recognizer does, an incomplete hand that one unsure tile's
    runner-up alone completes is read so (``vision.hand.winning``)."""
    width, height = sample.size
    tiles, layout = winning_reading(sample.operating, assemble(list(sample.operating), width, height),
                                    lambda read: assemble(read, width, height))
    in_hand = [tiles[i] for i in layout.in_hand()]
    match = match_tiles(sample.labels, in_hand)
    return len(match.correct) == len(sample.labels) == len(in_hand)


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _num(value: float) -> float | None:
    return None if np.isnan(value) else round(float(value), 4)


# -- confusion matrix image ------------------------------------------------------------------------------------------


def write_confusion_png(report: dict[str, Any], path: str | Path, cell: int = 18) -> Path:
    """The confusion matrix as a PNG: rows the labelled class, columns the predicted one, each row normalised
    (dark = most of that class's labels); the last row and column are background (extra boxes, missed tiles)."""
    classes = report["confusion"]["classes"]
    matrix = np.array(report["confusion"]["matrix"], dtype=np.float64)
    shares = matrix / np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    n, margin = len(classes), 56
    size = margin + n * cell
    canvas = np.full((size + 8, size + 8, 3), 255, dtype=np.uint8)
    heat = cv2.applyColorMap((255 - shares * 255).astype(np.uint8), cv2.COLORMAP_BONE)
    heat[matrix == 0] = 255
    canvas[margin:margin + n * cell, margin:margin + n * cell] = cv2.resize(
        heat, (n * cell, n * cell), interpolation=cv2.INTER_NEAREST)
    for i, name in enumerate(classes):
        label = "bg" if name == "background" else name
        y = margin + i * cell + cell - 5
        cv2.putText(canvas, label, (4, y), cv2.FONT_HERSHEY_SIMPLEX, 0.36, (0, 0, 0), 1, cv2.LINE_AA)
        x = margin + i * cell + 3
        column = np.full((cell, margin - 4, 3), 255, dtype=np.uint8)
        cv2.putText(column, label, (4, cell - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.36, (0, 0, 0), 1, cv2.LINE_AA)
        canvas[4:margin, x - 3:x - 3 + cell] = cv2.rotate(column, cv2.ROTATE_90_COUNTERCLOCKWISE)
    for k in range(n + 1):  # grid lines
        cv2.line(canvas, (margin + k * cell, margin), (margin + k * cell, margin + n * cell), (220, 220, 220), 1)
        cv2.line(canvas, (margin, margin + k * cell), (margin + n * cell, margin + k * cell), (220, 220, 220), 1)
    path = Path(path)
    if not cv2.imwrite(str(path), canvas):
        raise EvalError(msg("cannot write {path}", path=str(path)))
    return path
