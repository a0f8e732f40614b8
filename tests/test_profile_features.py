"""The features profiles compare tiles by: the features classifier joined to the crop classifier in memory, and the
other views of a layout's tiles."""

from pathlib import Path

import numpy as np
import pytest

from mjlens.models import shipped
from mjlens.vision.profile import features as profile_features
from mjlens.vision.profile.features import FEATURES_ENV, FEATURES_FILE, FeatureReader, classifier_digest
from mjlens.vision.profile.views import tile_views
from mjlens.vision.runtime.classifier import CropClassifier
from mjlens.vision.runtime.crops import crop_tiles
from mjlens.vision.runtime.decode import load_image

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "hand.jpg"
CLASSIFIER = shipped("mjlens-tile-crops.onnx")
BOXES = [[40.0 + 60 * i, 120.0, 92.0 + 60 * i, 190.0] for i in range(6)]

needs_models = pytest.mark.skipif(not CLASSIFIER.is_file() or not shipped(FEATURES_FILE).is_file(),
                                  reason="the shipped classifiers are not here")


@pytest.fixture(scope="module")
def photo():
    return load_image(EXAMPLE.read_bytes()).bgr


def test_views_are_seeded_and_cut_as_the_reader_cuts(photo):
    first = tile_views(photo, BOXES, 96, 3, seed=5)
    again = tile_views(photo, BOXES, 96, 3, seed=5)
    assert len(first) == 3 and all(len(view) == len(BOXES) for view in first)
    assert all(crop.shape == (96, 96, 3) for view in first for crop in view)
    assert all(np.array_equal(a, b) for va, vb in zip(first, again, strict=True) for a, b in zip(va, vb, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first[0], tile_views(photo, BOXES, 96, 1, seed=6)[0],
                                                        strict=True))
    assert tile_views(photo, [], 96, 3) == []


@needs_models
def test_the_features_classifier_leaves_the_reading_as_shipped(photo):
    classifier = CropClassifier(CLASSIFIER)
    probs, unit = FeatureReader(classifier).read(crop_tiles(photo, BOXES, classifier.size))
    assert np.allclose(probs, classifier.probabilities(photo, BOXES), atol=1e-5)
    assert unit.shape[0] == len(BOXES)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-4)


@needs_models
def test_a_profile_is_bound_to_the_features_classifier_too(monkeypatch, photo):
    with_features = classifier_digest(CLASSIFIER)
    monkeypatch.setenv(FEATURES_ENV, "classifier")
    assert profile_features.features_model_path() is None
    assert classifier_digest(CLASSIFIER) != with_features
    classifier = CropClassifier(CLASSIFIER)
    _, own = FeatureReader(classifier).read(crop_tiles(photo, BOXES, classifier.size))
    monkeypatch.delenv(FEATURES_ENV)
    _, joined = FeatureReader(classifier).read(crop_tiles(photo, BOXES, classifier.size))
    assert not np.allclose(own[:, : joined.shape[1]], joined[:, : own.shape[1]])


def test_half_weights_read_as_the_full_ones(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from mjlens.vision.train.embedding import half_weights

    weight = numpy_helper.from_array(np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], [weight])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "full.onnx"))
    half_weights(tmp_path / "full.onnx", tmp_path / "half.onnx")
    import onnxruntime as ort

    x = np.ones((1, 4), np.float32)
    full = ort.InferenceSession(str(tmp_path / "full.onnx")).run(None, {"x": x})[0]
    half = ort.InferenceSession(str(tmp_path / "half.onnx")).run(None, {"x": x})[0]
    assert np.allclose(full, half, atol=1e-2)
    stored = onnx.load(str(tmp_path / "half.onnx")).graph.initializer
    assert [t.data_type for t in stored] == [TensorProto.FLOAT16]


@needs_models
def test_the_features_read_alone_are_those_read_joined(photo):
    classifier = CropClassifier(CLASSIFIER)
    crops = crop_tiles(photo, BOXES, classifier.size)
    _, joined = FeatureReader(classifier).read(crops)
    probs, alone = FeatureReader(classifier, features_only=True).read(crops)
    assert np.allclose(joined, alone, atol=1e-4)
    assert not probs.any()


@needs_models
def test_a_features_file_of_two_classifiers_sets_their_unit_features_side_by_side(tmp_path, monkeypatch, photo):
    pytest.importorskip("onnx")
    from mjlens.vision.train.embedding import joined

    classifier = CropClassifier(CLASSIFIER)
    crops = crop_tiles(photo, BOXES, classifier.size)
    _, one = FeatureReader(classifier, features_only=True).read(crops)
    monkeypatch.setenv(FEATURES_ENV, str(joined([shipped(FEATURES_FILE)] * 2, tmp_path / "two.onnx")))
    probs, two = FeatureReader(classifier, features_only=True).read(crops)
    assert np.allclose(two, np.hstack([one, one]) / np.sqrt(2), atol=1e-3)
    assert not probs.any()
    _, read_joined = FeatureReader(classifier).read(crops)
    assert np.allclose(read_joined, two, atol=1e-4)
