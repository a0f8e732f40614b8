"""The tile detector at run time: an ultralytics YOLO model exported to ONNX, run with onnxruntime (no torch).

The model sees the photo letterboxed to its input size (the aspect kept, grey padding, as ultralytics trains
it) and answers, for each of its anchors, a box (centre x, centre y, width, height in input pixels) and one
independent score per class. Decoding keeps the anchors above a confidence threshold, suppresses duplicates per
class (``cv2.dnn.NMSBoxesBatched``), then merges boxes of *different* classes lying on the same tile: a tile has
one face, and the runner-up readings of that spot become the tile's ``alternatives`` for the layout step and
the person checking the result. Boxes come back in the original photo's pixels.

Class names are read from the ONNX metadata (ultralytics writes ``names``), so a model with another class order
(the ``mahjong-detector`` package names honours in Japanese) is mapped onto the project's tile codes.
"""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from mjlens.i18n import msg
from mjlens.models import DETECTOR_FILE, shipped
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.boxes import box_area, box_intersection, box_iou
from mjlens.vision.detection import Detection
from mjlens.vision.runtime.sessions import session_options

MODEL_ENV = "MJLENS_MODEL"
DEFAULT_MODEL = shipped(DETECTOR_FILE)

#: Decoding settings. ``conf`` was chosen on hk-photos ``valid`` with ``mjlens eval DATA --sweep`` for the shipped
#: model (docs/experiments/detector-training.md): the best F1 of tile accuracy and precision among the thresholds
#: within a point of the most photos exactly right.
DEFAULT_CONF = 0.2
#: Longest side of the model input for a model exported with a dynamic input (a fixed-shape model uses its own).
DEFAULT_INPUT_SIZE = 640
NMS_IOU = 0.6  # same-class boxes overlapping more than this are one tile
MERGE_IOU = 0.6  # boxes of different classes overlapping more than this are one tile read two ways
#: A box with this much of its area inside a better box is a piece of that tile (a half-tile box, a box on
#: a tile's edge), not a tile of its own; tiles in a photo overlap far less. Chosen on hk-photos ``valid``.
INSIDE_FRACTION = 0.6
ALT_IOU = 0.5  # anchors overlapping a kept box this much vote for its alternatives
ALT_FLOOR = 0.02  # runner-up scores below this are noise, not alternatives
TOP_K = 3
LETTERBOX_FILL = 114  # ultralytics' padding grey
STRIDE = 32

#: Class names other exporters use, mapped onto the project's codes (mahjong-detector: Japanese honour names).
NAME_ALIASES = {"tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z", "hatsu": "6z", "chun": "7z"}


class ModelError(RuntimeError):
    """The model file is missing or is not a detector this runtime can read (``code``: model_missing, model_invalid)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def open_session(path: Path, threads: int | None = None) -> ort.InferenceSession:
    """An onnxruntime CPU session for one of the shipped models (detector or crop classifier), with ``threads``
    intra-op threads (default ``MJLENS_THREADS``, else every core) waiting for work as ``vision.runtime.sessions`` says;
    an unreadable file is ``model_invalid``."""
    options = session_options(threads)
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as err:  # noqa: BLE001 - onnxruntime raises several unrelated types for a bad file
        raise ModelError("model_invalid", msg("{path} is not an ONNX model onnxruntime can run: {err}",
                                              path=path, err=err)) from None


def default_model_path() -> Path:
    """``$MJLENS_MODEL`` when set, else the shipped detector (``mjlens.models``)."""
    return Path(os.environ.get(MODEL_ENV) or DEFAULT_MODEL)


@dataclass(frozen=True)
class Letterbox:
    """How a photo was fitted into the model input: input = photo * ratio + (pad_x, pad_y)."""

    ratio: float
    pad_x: float
    pad_y: float


def class_names_from_metadata(metadata: dict[str, str], num_classes: int) -> tuple[str, ...]:
    """The model's classes as tile codes: ultralytics' ``names`` metadata, else the project's 43 classes."""
    raw = metadata.get("names")
    if raw is None:
        names: Sequence[str] = DETECTOR_CLASSES
    else:
        try:
            table = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            raise ModelError("model_invalid", msg("the model's class names metadata cannot be read")) from None
        names = [table[i] for i in sorted(table)] if isinstance(table, dict) else list(table)
    codes = tuple(NAME_ALIASES.get(str(n), str(n)) for n in names)
    unknown = [c for c in codes if c not in DETECTOR_CLASSES]
    if unknown:
        raise ModelError("model_invalid", msg("the model has classes that are not tile codes: {unknown}",
                                              unknown=unknown[:5]))
    if len(codes) != num_classes:
        raise ModelError("model_invalid", msg("the model outputs {num_classes} classes but names {n_codes}",
                                              num_classes=num_classes, n_codes=len(codes)))
    return codes


class Detector:
    """One ONNX tile detector. Thread-safe: onnxruntime sessions may be run from several threads at once."""

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        conf: float = DEFAULT_CONF,
        nms_iou: float = NMS_IOU,
        merge_iou: float = MERGE_IOU,
        threads: int | None = None,
        input_size: int | None = None,
    ):
        path = Path(model_path) if model_path else default_model_path()
        if not path.is_file():
            raise ModelError("model_missing", msg("the tile model {path} is missing; set {MODEL_ENV} to a "
                                                  "detector's path, or reinstall mjlens (its wheel ships the "
                                                  "models)", path=path, MODEL_ENV=MODEL_ENV))
        self.session = open_session(path, threads)
        model_input = self.session.get_inputs()[0]
        output = self.session.get_outputs()[0]
        if len(model_input.shape) != 4 or len(output.shape) != 3:
            raise ModelError("model_invalid", msg("{path} is not a YOLO detector (input {shape})",
                                                  path=path, shape=model_input.shape))
        self.path = path
        self.metadata = self.session.get_modelmeta().custom_metadata_map
        self.input_name = model_input.name
        height, width = model_input.shape[2], model_input.shape[3]
        self.fixed_shape = (height, width) if isinstance(height, int) and isinstance(width, int) else None
        self.input_size = max(self.fixed_shape) if self.fixed_shape else (input_size or DEFAULT_INPUT_SIZE)
        channels = output.shape[1]
        if isinstance(channels, int):
            num_classes = channels - 4
        else:  # dynamic output: ask the metadata
            num_classes = len(ast.literal_eval(self.metadata.get("names", "[]")))
        self.names = class_names_from_metadata(self.metadata, num_classes)
        self.conf = conf
        self.nms_iou = nms_iou
        self.merge_iou = merge_iou

    # -- preprocessing -------------------------------------------------------------------------------------------

    def input_shape_for(self, height: int, width: int, input_size: int | None = None) -> tuple[int, int]:
        """The model's fixed input, or for a dynamic model the smallest stride-aligned rectangle holding the photo
        at a long side of ``input_size`` (the detector's own by default)."""
        if self.fixed_shape:
            return self.fixed_shape
        ratio = (input_size or self.input_size) / max(height, width)
        # less a hair: 448 / 891 * 891 is 448.00000000000006 in floating point, which is not 480 px of input
        return (math.ceil(height * ratio / STRIDE - 1e-9) * STRIDE, math.ceil(width * ratio / STRIDE - 1e-9) * STRIDE)

    def letterbox(self, bgr: np.ndarray, input_size: int | None = None) -> tuple[np.ndarray, Letterbox]:
        """Fit the photo into the model input (aspect kept, centred, grey padding): a 1x3xHxW float RGB blob."""
        height, width = bgr.shape[:2]
        in_h, in_w = self.input_shape_for(height, width, input_size)
        ratio = min(in_h / height, in_w / width)
        new_w, new_h = max(1, round(width * ratio)), max(1, round(height * ratio))
        interpolation = cv2.INTER_AREA if ratio < 0.5 else cv2.INTER_LINEAR  # area averaging avoids aliasing
        resized = cv2.resize(bgr, (new_w, new_h), interpolation=interpolation) if (new_w, new_h) != (width, height) \
            else bgr
        pad_x, pad_y = (in_w - new_w) / 2, (in_h - new_h) / 2
        top, left = round(pad_y - 0.1), round(pad_x - 0.1)
        canvas = cv2.copyMakeBorder(resized, top, in_h - new_h - top, left, in_w - new_w - left,
                                    cv2.BORDER_CONSTANT, value=(LETTERBOX_FILL,) * 3)
        blob = cv2.dnn.blobFromImage(canvas, scalefactor=1 / 255.0, swapRB=True)
        return blob, Letterbox(ratio=ratio, pad_x=left, pad_y=top)

    # -- inference -------------------------------------------------------------------------------------------------

    def raw(self, bgr: np.ndarray, pixel_scale: float = 1.0, input_size: int | None = None,
            around: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Run the model: every anchor's box (x1 y1 x2 y2 in original photo pixels) and class scores (N x C).

        ``pixel_scale`` is pixels of ``bgr`` per original pixel (a photo decoded reduced); ``input_size`` the long
        side of the model's input, for a dynamic model (the detector's own by default). ``around`` (x1 y1 x2 y2 in
        original pixels), for a dynamic model: only the part of the input holding that rectangle is run, widened to
        the model's stride grid, so each anchor inside sees the input as the whole photo's reading would (the same
        pixels, the same grid) at the cost of that part alone.
        """
        blob, box = self.letterbox(bgr, input_size)
        left, top = 0, 0
        if around is not None and not self.fixed_shape:
            blob, left, top = _window(blob, box, around, pixel_scale)
        output = self.session.run(None, {self.input_name: blob})[0][0].T  # anchors x (4 + classes)
        cx, cy, w, h = output[:, 0] + left, output[:, 1] + top, output[:, 2], output[:, 3]
        factor = box.ratio * pixel_scale
        full_w, full_h = bgr.shape[1] / pixel_scale, bgr.shape[0] / pixel_scale
        boxes = np.stack([
            np.clip((cx - w / 2 - box.pad_x) / factor, 0, full_w),
            np.clip((cy - h / 2 - box.pad_y) / factor, 0, full_h),
            np.clip((cx + w / 2 - box.pad_x) / factor, 0, full_w),
            np.clip((cy + h / 2 - box.pad_y) / factor, 0, full_h),
        ], axis=1)
        return boxes, output[:, 4:]

    def detect(self, bgr: np.ndarray, pixel_scale: float = 1.0, *, conf: float | None = None) -> list[Detection]:
        """The tiles in a photo: one Detection per tile, best first, with runner-up readings as alternatives."""
        boxes, scores = self.raw(bgr, pixel_scale)
        return decode(boxes, scores, self.names, conf=self.conf if conf is None else conf,
                      nms_iou=self.nms_iou, merge_iou=self.merge_iou)

    def detect_for_eval(self, bgr: np.ndarray, low_conf: float = 0.001) -> tuple[list[Detection], list[Detection]]:
        """One inference, two readings: every candidate (per-class NMS only, for mAP) and the operating result."""
        boxes, scores = self.raw(bgr)
        candidates = decode(boxes, scores, self.names, conf=low_conf, nms_iou=self.nms_iou, merge_iou=None,
                            top_k=0, max_det=300)
        operating = decode(boxes, scores, self.names, conf=self.conf, nms_iou=self.nms_iou, merge_iou=self.merge_iou)
        return candidates, operating


def _window(blob: np.ndarray, box: Letterbox, around: Sequence[float], pixel_scale: float
            ) -> tuple[np.ndarray, int, int]:
    """The part of the input ``blob`` (1 x 3 x H x W) holding the rectangle ``around`` (original pixels), its edges
    moved out to the stride grid; with its left and top in input pixels. The whole input when the rectangle holds
    less than one stride of it."""
    factor = box.ratio * pixel_scale
    height, width = blob.shape[2:]
    x1, y1, x2, y2 = around
    left = max(0, math.floor((x1 * factor + box.pad_x) / STRIDE) * STRIDE)
    top = max(0, math.floor((y1 * factor + box.pad_y) / STRIDE) * STRIDE)
    right = min(width, math.ceil((x2 * factor + box.pad_x) / STRIDE) * STRIDE)
    bottom = min(height, math.ceil((y2 * factor + box.pad_y) / STRIDE) * STRIDE)
    if right - left < STRIDE or bottom - top < STRIDE:
        return blob, 0, 0
    return np.ascontiguousarray(blob[:, :, top:bottom, left:right]), left, top


def tile_scores(scores: np.ndarray) -> np.ndarray:
    """Each anchor's chance of lying on a tile, whatever its face: the noisy-OR of its independent class scores.

    A tile the detector cannot name (a flower of an art it saw little of, 0.05 for one code and 0.04 for two
    others) has a low best class score but is still plainly a tile; a reader that names tiles itself wants that."""
    return 1.0 - np.prod(1.0 - np.clip(scores, 0.0, 1.0), axis=1)


def decode(
    boxes: np.ndarray,
    scores: np.ndarray,
    names: Sequence[str],
    *,
    conf: float,
    nms_iou: float = NMS_IOU,
    merge_iou: float | None = MERGE_IOU,
    top_k: int = TOP_K,
    max_det: int = 300,
    box_scores: np.ndarray | None = None,
    covered: float | None = None,
) -> list[Detection]:
    """Anchors -> detections: threshold, per-class NMS, cross-class merge (unless ``merge_iou`` is None),
    alternatives from the anchors overlapping each kept box. Boxes are kept, ranked and reported by
    ``box_scores`` (one per anchor; by default the best class score). ``covered``: a box whose area the better
    boxes kept cover together this much is dropped too (``_suppress_across_classes``)."""
    best_class = scores.argmax(axis=1)
    best = scores[np.arange(len(scores)), best_class] if box_scores is None else box_scores
    floor = min(conf, ALT_FLOOR) if top_k else conf
    pool = np.flatnonzero(best >= floor)  # anchors that may vote for alternatives
    chosen = pool[best[pool] >= conf]
    chosen = chosen[box_area(boxes[chosen]) > 0]  # a box on the letterbox padding is clipped to nothing
    if len(chosen) == 0:
        return []
    xywh = np.concatenate([boxes[chosen, :2], boxes[chosen, 2:] - boxes[chosen, :2]], axis=1)
    keep = cv2.dnn.NMSBoxesBatched(xywh.tolist(), best[chosen].tolist(), best_class[chosen].tolist(), conf, nms_iou)
    kept = chosen[np.asarray(keep, dtype=int).reshape(-1)]
    kept = kept[np.argsort(-best[kept], kind="stable")]
    if merge_iou is not None and len(kept) > 1:
        kept = _suppress_across_classes(boxes[kept], kept, merge_iou, covered)
    kept = kept[:max_det]
    votes = box_iou(boxes[kept], boxes[pool]) >= ALT_IOU if top_k else None
    detections = []
    for row, anchor in enumerate(kept):
        alternatives: tuple[tuple[str, float], ...] = ()
        if votes is not None:
            per_class = scores[pool[votes[row]]].max(axis=0)
            per_class[best_class[anchor]] = -1
            order = np.argsort(-per_class)[:top_k]
            alternatives = tuple((names[c], float(per_class[c])) for c in order if per_class[c] >= ALT_FLOOR)
        detections.append(Detection(code=names[best_class[anchor]], box=tuple(float(v) for v in boxes[anchor]),
                                    confidence=float(best[anchor]), alternatives=alternatives))
    return detections


def _suppress_across_classes(kept_boxes: np.ndarray, kept: np.ndarray, merge_iou: float,
                             covered: float | None = None) -> np.ndarray:
    """Greedy class-agnostic suppression of boxes already sorted best first: one reading per tile. A box lying
    mostly inside a better one (``INSIDE_FRACTION`` of its area) is a piece of that tile, however small. With
    ``covered``, a box whose area the better boxes kept cover together that much (the sum of their overlaps: tiles
    hardly overlap each other) is two halves of neighbouring tiles, not a tile."""
    overlap, area = box_intersection(kept_boxes, kept_boxes), box_area(kept_boxes)
    iou = overlap / np.maximum(area[:, None] + area[None, :] - overlap, 1e-9)
    inside = overlap / np.maximum(area, 1e-9)[None, :]
    alive = np.ones(len(kept), dtype=bool)
    for i in range(len(kept)):
        if not alive[i]:
            continue
        if covered is not None and overlap[:i, i][alive[:i]].sum() >= covered * max(area[i], 1e-9):
            alive[i] = False
            continue
        alive[i + 1:] &= (iou[i, i + 1:] < merge_iou) & (inside[i, i + 1:] < INSIDE_FRACTION)
    return kept[alive]
