"""The box decoding rewrite: the same boxes as ultralytics' exported graph, on any logits, and nothing else touched."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from mjlens.vision.train.dfl_rewrite import rewrite_dfl, rewrite_file  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ANCHORS = 50


def exported_decoding(opset: int = 17) -> onnx.ModelProto:
    """The decoding as ultralytics exports it: (1, 64, A) logits -> (1, 4, A) expected bins."""
    initializers = [
        numpy_helper.from_array(np.array([1, 4, 16, ANCHORS], np.int64), "split_shape"),
        numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1), "bins"),
        numpy_helper.from_array(np.array([1, 4, ANCHORS], np.int64), "box_shape"),
    ]
    nodes = [
        helper.make_node("Reshape", ["logits", "split_shape"], ["split"], name="reshape"),
        helper.make_node("Transpose", ["split"], ["moved"], perm=[0, 2, 1, 3], name="transpose"),
        helper.make_node("Softmax", ["moved"], ["chances"], axis=1, name="softmax"),
        helper.make_node("Conv", ["chances", "bins"], ["expected"], name="conv"),
        helper.make_node("Reshape", ["expected", "box_shape"], ["sides"], name="reshape_back"),
    ]
    graph = helper.make_graph(nodes, "dfl", [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                                                          [1, 64, ANCHORS])],
                              [helper.make_tensor_value_info("sides", TensorProto.FLOAT, [1, 4, ANCHORS])],
                              initializer=initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run(model: onnx.ModelProto, logits: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"logits": logits})[0]


@pytest.mark.parametrize("opset", [17, 18])
def test_the_rewritten_decoding_gives_the_same_sides(opset):
    before = exported_decoding(opset)
    after = exported_decoding(opset)
    assert rewrite_dfl(after) == 1
    onnx.checker.check_model(after)
    assert not [n for n in after.graph.node if n.op_type in ("Softmax", "Transpose", "Conv")]
    assert "bins" not in {t.name for t in after.graph.initializer}  # the Conv's weights went with it
    rng = np.random.default_rng(0)
    for scale in (1.0, 10.0, 1000.0):  # large logits: the max is taken off before exp, nothing overflows
        logits = (rng.standard_normal((1, 64, ANCHORS)) * scale).astype(np.float32)
        expected, got = run(before, logits), run(after, logits)
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, expected, atol=1e-4)


def test_a_graph_without_the_exported_decoding_is_left_alone():
    model = exported_decoding()
    assert rewrite_dfl(model) == 1
    rewritten = model.SerializeToString()
    assert rewrite_dfl(model) == 0 and model.SerializeToString() == rewritten  # a second pass finds nothing
    other = exported_decoding()
    for node in other.graph.node:
        if node.op_type == "Transpose":
            node.attribute[0].ints[:] = [0, 1, 2, 3]  # not the exported layout: not ours to rewrite
    assert rewrite_dfl(other) == 0


def test_rewrite_file_writes_the_copy_asked_for(tmp_path):
    source, out = tmp_path / "exported.onnx", tmp_path / "rewritten.onnx"
    onnx.save(exported_decoding(), str(source))
    assert rewrite_file(source, out) == 1
    assert [n.op_type for n in onnx.load(str(source)).graph.node].count("Softmax") == 1  # the source untouched
    assert rewrite_file(out) == 0


def test_the_shipped_detector_is_rewritten():
    path = REPO / "models" / "mjlens-tiles.onnx"
    if not path.is_file():
        pytest.skip("models/mjlens-tiles.onnx is not present")
    model = onnx.load(str(path))
    assert rewrite_dfl(model) == 0  # nothing left to rewrite
    assert any(n.name.endswith("_without_transpose_mean") for n in model.graph.node)
