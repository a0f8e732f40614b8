"""What the crop classifier sees in a tile: its probabilities and, from the same run, its embedding (the pooled
features of the features classifier, L2-normalised), which a profile compares with the set's own examples.

The features classifier joins the crop classifier's graph in memory (``onnx``), reading the same crops, and its
pooled tensor is added as an extra output, so one run answers both; without a profile the crop classifier runs
alone, as shipped.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from mjlens.i18n import msg
from mjlens.models import shipped
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.profile.errors import ProfileError
from mjlens.vision.runtime.classifier import CropClassifier
from mjlens.vision.runtime.sessions import session_options

#: The classifier whose pooled features profiles compare tiles by, shipped beside the crop classifier: trained on
#: more art sets, it tells the codes of a set it never saw apart better than the crop classifier's own features do
#: (docs/experiments/profiles.md). ``FEATURES_ENV``: another file, or "classifier" for the crop classifier's own.
FEATURES_FILE = "mjlens-tile-features.onnx"
FEATURES_ENV = "MJLENS_PROFILE_FEATURES"
#: Names given to the features classifier's tensors where it joins the crop classifier's graph.
FEATURES_PREFIX = "features_"
#: The output of a features file of several classifiers: their pooled features, each of unit length, side by side.
FEATURES_OUTPUT = "features"


def features_model_path() -> Path | None:
    """The features classifier profiles use, or None for the crop classifier's own features."""
    named = os.environ.get(FEATURES_ENV)
    if named:
        return None if named.lower() == "classifier" else Path(named)
    path = shipped(FEATURES_FILE)
    return path if path.is_file() else None


def has_own_features() -> bool:
    """Whether profiles compare tiles by a features classifier of their own (not the crop classifier's)."""
    return features_model_path() is not None


def classifier_digest(path: Path) -> str:
    """The SHA-256 of a classifier file and of the features classifier read with it: a profile holds the features
    of one pair and is read with it only."""
    digest = hashlib.sha256()
    for part in (path, features_model_path()):
        if part is None:
            continue
        with Path(part).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def embedding_output(model) -> str:
    """The features ``model`` offers: its output named :data:`FEATURES_OUTPUT` where it has one (a features file
    of several classifiers, ``vision.train.embedding``), else the pooled features of its (first) classifier: the
    output of its first Flatten, which feeds the linear layer of a YOLO classification head."""
    if any(output.name == FEATURES_OUTPUT for output in model.graph.output):
        return FEATURES_OUTPUT
    for node in model.graph.node:
        if node.op_type == "Flatten":
            return node.output[0]
    raise ProfileError("profile_classifier", msg("the crop classifier has no pooled features to compare tiles by"))


@lru_cache(maxsize=4)
def _classifier_graph(path: str):
    try:
        import onnx
    except ModuleNotFoundError:
        raise ProfileError("profile_classifier", msg("profiles need the onnx package: pip install onnx")) from None
    return onnx.load(path)


def _features_model(path: str, examples: np.ndarray | None, features_only: bool = False) -> bytes:
    """The classifier's graph with its embedding as a second output (serialised); with ``examples`` (unit rows),
    a third: the embedding times each example (a matrix product in onnxruntime's threads, which numpy's would fight
    for the cores: 40 crops took 40 ms there on two loaded cores). ``features_only``: the features classifier
    alone (no probabilities), reading the classifier's crops as it does when joined."""
    import onnx

    model = onnx.ModelProto()
    model.CopyFrom(_classifier_graph(path))
    features = features_model_path()
    if features_only:
        if features is None:
            raise ValueError("no features classifier of its own to read alone")
        classifier_input = model.graph.input[0]
        del model.graph.node[:], model.graph.initializer[:], model.graph.output[:], model.graph.value_info[:]
        del model.graph.input[:]
        model.graph.input.append(classifier_input)
    name = _join_features(model, _classifier_graph(str(features))) if features else embedding_output(model)
    model.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    if examples is not None:
        model.graph.initializer.append(onnx.numpy_helper.from_array(
            np.ascontiguousarray(examples.T, dtype=np.float32), "profile_examples"))
        model.graph.node.append(onnx.helper.make_node("MatMul", [name, "profile_examples"], ["profile_similarity"]))
        model.graph.output.append(onnx.helper.make_tensor_value_info("profile_similarity", onnx.TensorProto.FLOAT,
                                                                     None))
    return model.SerializeToString()


def _join_features(model, features) -> str:
    """Add the ``features`` classifier to ``model``'s graph, reading its crops (resized in the graph to its own
    size); returns the name of its pooled features."""
    from mjlens.vision.train.average import crop_size, prefixed

    nodes, initializers, _ = prefixed(features, FEATURES_PREFIX, features.graph.input[0].name,
                                       model.graph.input[0].name, crop_size(features) / crop_size(model))
    model.graph.initializer.extend(initializers)
    model.graph.node.extend(nodes)
    return FEATURES_PREFIX + embedding_output(features)


class FeatureReader:
    """The crop classifier's probabilities and embeddings of crops, from one run."""

    def __init__(self, classifier: CropClassifier, threads: int | None = None, examples: np.ndarray | None = None,
                 features_only: bool = False):
        """``examples``: unit features to compare every crop with (``similar``); ``features_only``: the features
        classifier alone (``has_own_features``), the probabilities answered as zeros."""
        import onnxruntime as ort

        self.classifier = classifier
        self.features_only = features_only
        data = _features_model(str(classifier.path), examples, features_only)
        self.session = ort.InferenceSession(data, session_options(threads), providers=["CPUExecutionProvider"])
        self.digest = classifier_digest(classifier.path)
        self.dim = 0

    def read(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities (len(crops) x len(DETECTOR_CLASSES)) and unit embeddings (len(crops) x D) of BGR crops
        already cut at the classifier's size."""
        probs, features, _ = self._run(crops)
        return probs, features / np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-9)

    def similar(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities and the cosine of each crop's embedding with each of the reader's ``examples``."""
        probs, features, products = self._run(crops)
        return probs, products / np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-9)

    def _run(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        classifier = self.classifier
        probs = np.zeros((len(crops), len(DETECTOR_CLASSES)), np.float32)
        parts, products = [], []
        for start, count, blob in classifier.batches(crops):
            outputs = self.session.run(None, {classifier.input_name: blob})
            if not self.features_only:
                probs[start:start + count][:, classifier.columns] = outputs.pop(0)[:count]
            features, *rest = outputs
            parts.append(features[:count].reshape(count, -1))
            products.extend(part[:count] for part in rest)
        if not parts:
            return probs, np.zeros((0, self.dim), np.float32), np.zeros((0, 0), np.float32)
        features = np.concatenate(parts).astype(np.float32)
        self.dim = features.shape[1]
        return probs, features, (np.concatenate(products) if products else np.zeros((len(crops), 0), np.float32))
