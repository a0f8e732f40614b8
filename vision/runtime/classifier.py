"""The crop classifier at run time: a YOLO classification model exported to ONNX, run with onnxruntime.

It reads one tile per crop (``vision.runtime.crops``) and answers a probability per class. Class names come from the
ONNX metadata and are mapped onto the detector's class order, so both stages speak the same codes.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from mjlens.i18n import msg
from mjlens.models import CLASSIFIER_FILE, shipped
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.runtime.crops import CROP_SIZE, crop_tiles
from mjlens.vision.runtime.detector import Detector, ModelError, class_names_from_metadata, open_session

CLASSIFIER_ENV = "MJLENS_CLASSIFIER"  # a path, or "none" to read tiles with the detector alone
DEFAULT_CLASSIFIER = shipped(CLASSIFIER_FILE)
#: cv2.rotate's codes for one, two and three quarter turns clockwise.
QUARTER_TURNS = {1: cv2.ROTATE_90_CLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_COUNTERCLOCKWISE}
BATCH = 32  # crops per run: a table photo can hold 140 tiles, a batch this size keeps memory flat


#: ONNX metadata key naming the pair a model was trained in; a detector and a classifier that both carry it must agree.
PAIR_KEY = "mjlens_pair"


def shipped_classifier_for(detector: Detector) -> Path:
    """The crop classifier for ``detector`` when none is named (``--classifier``, ``MJLENS_CLASSIFIER``): the
    shipped one, which fits any detector of the project's 43 classes (it names crops, wherever the boxes come
    from). A detector of other classes has no classifier that fits: that is an error that says what to set, never
    a quiet fall back to the detector alone, which reads far fewer tiles (no flowers at the shipped thresholds)."""
    if set(detector.names) != set(DETECTOR_CLASSES):
        raise ModelError("model_mismatch", msg("the detector {name} reads {n_names} classes, not the "
                                               "{n_DETECTOR_CLASSES} the shipped crop classifier names; set "
                                               "{CLASSIFIER_ENV} to a classifier trained for it, or to none "
                                               "to read with the detector alone",
                                               name=detector.path.name, n_names=len(set(detector.names)),
                                               n_DETECTOR_CLASSES=len(DETECTOR_CLASSES), CLASSIFIER_ENV=CLASSIFIER_ENV))
    if not DEFAULT_CLASSIFIER.is_file():
        raise ModelError("model_missing", msg("the shipped crop classifier {DEFAULT_CLASSIFIER} is missing; "
                                              "reinstall mjlens, or set {CLASSIFIER_ENV} to a classifier, or "
                                              "to none",
                                              DEFAULT_CLASSIFIER=DEFAULT_CLASSIFIER, CLASSIFIER_ENV=CLASSIFIER_ENV))
    return DEFAULT_CLASSIFIER


def check_pair(detector: Detector, classifier: CropClassifier) -> None:
    """A detector and a classifier read together must speak the same codes and, where both say which pair they
    were trained in (``PAIR_KEY``), the same pair."""
    missing = set(detector.names) - {DETECTOR_CLASSES[c] for c in classifier.columns}
    if missing:
        raise ModelError("model_mismatch", msg("the crop classifier {name} cannot name {missing}, which the "
                                               "detector {name2} finds",
                                               name=classifier.path.name, missing=sorted(missing)[:5],
                                               name2=detector.path.name))
    ours, theirs = detector.metadata.get(PAIR_KEY), classifier.metadata.get(PAIR_KEY)
    if ours and theirs and ours != theirs:
        raise ModelError("model_mismatch", msg("the detector {name} is of pair {ours} and the crop classifier "
                                               "{name2} of pair {theirs}; set {CLASSIFIER_ENV} to the "
                                               "classifier trained with this detector",
                                               name=detector.path.name, ours=repr(ours), name2=classifier.path.name,
                                               theirs=repr(theirs), CLASSIFIER_ENV=CLASSIFIER_ENV))


class CropClassifier:
    """One ONNX tile-crop classifier. Thread-safe like the detector."""

    def __init__(self, model_path: str | os.PathLike, *, threads: int | None = None):
        path = Path(model_path)
        if not path.is_file():
            raise ModelError("model_missing", msg("the crop classifier {path} is missing; set "
                                                  "{CLASSIFIER_ENV} to its path, or to none",
                                                  path=path, CLASSIFIER_ENV=CLASSIFIER_ENV))
        self.session = open_session(path, threads)
        model_input, output = self.session.get_inputs()[0], self.session.get_outputs()[0]
        if (len(model_input.shape) != 4 or model_input.shape[1] not in (3, "channels") or len(output.shape) != 2
                or not isinstance(output.shape[1], int)):
            raise ModelError("model_invalid", msg("{path} is not a YOLO classifier (output {shape})",
                                                  path=path, shape=output.shape))
        self.path = path
        self.input_name = model_input.name
        self.metadata = metadata = self.session.get_modelmeta().custom_metadata_map
        size = model_input.shape[2]
        self.size = size if isinstance(size, int) else trained_size(metadata)
        self.fixed_batch = model_input.shape[0] if isinstance(model_input.shape[0], int) else None
        names = class_names_from_metadata(metadata, output.shape[1])
        # column j of the model's output is class column[j] of the detector's order
        self.columns = np.array([DETECTOR_CLASSES.index(code) for code in names])

    def probabilities(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
        """Class probabilities (len(boxes) x len(DETECTOR_CLASSES)) of the tiles at ``boxes`` (pixels of ``bgr``)."""
        return self.turned_probabilities(bgr, boxes, (0,))[0]

    def turned_probabilities(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], turns: Sequence[int]
                             ) -> np.ndarray:
        """The class probabilities of the tiles at ``boxes`` with their crops turned by each of ``turns`` quarter
        turns clockwise (0: as they are): len(turns) x len(boxes) x len(DETECTOR_CLASSES), read in one batch."""
        if not len(boxes):
            return np.zeros((len(turns), 0, len(DETECTOR_CLASSES)), dtype=np.float32)
        return self.crop_probabilities(self.turned_crops(bgr, boxes, turns)).reshape(len(turns), len(boxes), -1)

    def turned_crops(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], turns: Sequence[int]
                     ) -> list[np.ndarray]:
        """The crops ``turned_probabilities`` reads: every box's crop turned by the first of ``turns``, then by the
        next..."""
        cut = crop_tiles(bgr, boxes, self.size)
        return [crop if turn % 4 == 0 else cv2.rotate(crop, QUARTER_TURNS[turn % 4]) for turn in turns for crop in cut]

    def crop_probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """The class probabilities (len(crops) x len(DETECTOR_CLASSES)) of crops already cut at ``size``."""
        result = np.zeros((len(crops), len(DETECTOR_CLASSES)), dtype=np.float32)
        for start, count, blob in self.batches(crops):
            result[start:start + count][:, self.columns] = self.session.run(None, {self.input_name: blob})[0][:count]
        return result

    def batches(self, crops: Sequence[np.ndarray]) -> Iterator[tuple[int, int, np.ndarray]]:
        """``crops`` as the model takes them, ``BATCH`` at a time: (first crop's index, crops in the batch, input
        blob), a model of a fixed batch given zeros after the last crop."""
        step = self.fixed_batch or BATCH
        for start in range(0, len(crops), step):
            chunk = list(crops[start:start + step])
            blob = cv2.dnn.blobFromImages(chunk, scalefactor=1 / 255.0, swapRB=True)
            if self.fixed_batch and len(chunk) < self.fixed_batch:
                blob = np.concatenate([blob, np.zeros((self.fixed_batch - len(chunk), *blob.shape[1:]), blob.dtype)])
            yield start, len(chunk), blob


def trained_size(metadata: dict[str, str]) -> int:
    """The crop size a model with a dynamic input was trained at (ultralytics writes ``imgsz`` as "[64, 64]")."""
    try:
        return int(ast.literal_eval(metadata.get("imgsz", "None"))[0])
    except (ValueError, SyntaxError, TypeError, IndexError):
        return CROP_SIZE
