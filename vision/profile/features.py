"""What the crop classifier sees in a tile: its probabilities and, from the same run, its embedding (the pooled
features its last layer reads, L2-normalised), which a profile compares with the set's own examples.

The embedding is exposed by adding the pooled tensor as an extra output of the shipped ONNX graph in memory
(``onnx``), so one run of the classifier answers both and reading with a profile costs no second model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES

from ..classifier import BATCH, CropClassifier
from ..sessions import session_options
from .errors import ProfileError


def classifier_digest(path: Path) -> str:
    """The SHA-256 of a classifier file: a profile holds the features of one classifier and is read with it only."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def embedding_output(graph) -> str:
    """The name of the pooled features of the (first) classifier in ``graph``: the output of its first Flatten,
    which feeds the linear layer of a YOLO classification head."""
    for node in graph.node:
        if node.op_type == "Flatten":
            return node.output[0]
    raise ProfileError("profile_classifier", "the crop classifier has no pooled features to compare tiles by")


@lru_cache(maxsize=4)
def _features_model(path: str) -> tuple[bytes, str]:
    """The classifier's graph with its embedding as a second output (serialised), and that output's name."""
    try:
        import onnx
    except ModuleNotFoundError:
        raise ProfileError("profile_classifier", "profiles need the onnx package: pip install onnx") from None
    model = onnx.load(path)
    name = embedding_output(model.graph)
    model.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    return model.SerializeToString(), name


class FeatureReader:
    """The crop classifier's probabilities and embeddings of crops, from one run."""

    def __init__(self, classifier: CropClassifier, threads: int | None = None):
        import onnxruntime as ort

        self.classifier = classifier
        data, self.output = _features_model(str(classifier.path))
        self.session = ort.InferenceSession(data, session_options(threads), providers=["CPUExecutionProvider"])
        self.digest = classifier_digest(classifier.path)
        self.dim = 0

    def read(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities (len(crops) x len(DETECTOR_CLASSES)) and unit embeddings (len(crops) x D) of BGR crops
        already cut at the classifier's size."""
        classifier = self.classifier
        probs = np.zeros((len(crops), len(DETECTOR_CLASSES)), np.float32)
        parts = []
        step = classifier.fixed_batch or BATCH
        for start in range(0, len(crops), step):
            chunk = list(crops[start:start + step])
            blob = cv2.dnn.blobFromImages(chunk, scalefactor=1 / 255.0, swapRB=True)
            if classifier.fixed_batch and len(chunk) < classifier.fixed_batch:
                blob = np.concatenate([blob, np.zeros((classifier.fixed_batch - len(chunk), *blob.shape[1:]),
                                                      blob.dtype)])
            out, features = self.session.run(None, {classifier.input_name: blob})
            probs[start:start + len(chunk)][:, classifier.columns] = out[: len(chunk)]
            parts.append(features[: len(chunk)].reshape(len(chunk), -1))
        if not parts:
            return probs, np.zeros((0, self.dim), np.float32)
        features = np.concatenate(parts).astype(np.float32)
        self.dim = features.shape[1]
        return probs, features / np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-9)
