"""Weights moved into the If branch that alone reads them: the same answers, and nothing shared moved."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from mjlens.vision.train.branch_weights import rewrite_file, weights_into_branches  # noqa: E402


def branching_model() -> onnx.ModelProto:
    """y = x @ W + B + S where x sums above 0, else x + S: W stored in half precision and widened in the main graph,
    B read by the branch alone, S by the branch and the main graph."""
    rng = np.random.default_rng(0)
    initializers = [
        numpy_helper.from_array(rng.normal(size=(4, 4)).astype(np.float16), "w_half"),
        numpy_helper.from_array(rng.normal(size=(4,)).astype(np.float32), "b"),
        numpy_helper.from_array(rng.normal(size=(4,)).astype(np.float32), "s"),
        numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
    ]
    then_branch = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["xwb"]),
         helper.make_node("Add", ["xwb", "s"], ["then_y"])],
        "then", [], [helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [1, 4])])
    else_branch = helper.make_graph(
        [helper.make_node("Add", ["x", "s"], ["else_y"])],
        "else", [], [helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [1, 4])])
    nodes = [
        helper.make_node("Cast", ["w_half"], ["w"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["positive"]),
        helper.make_node("If", ["positive"], ["y"], then_branch=then_branch, else_branch=else_branch),
    ]
    graph = helper.make_graph(nodes, "branching", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def answers(model: onnx.ModelProto) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [np.array([[1, 2, 3, 4]], np.float32), np.array([[-1, -2, -3, -4]], np.float32)]
    return [session.run(None, {"x": x})[0] for x in inputs]


def test_weights_read_by_one_branch_alone_move_into_it_and_the_answers_stay():
    model = branching_model()
    before = answers(model)
    assert weights_into_branches(model.graph) == 2  # w_half (with its Cast) and b
    onnx.checker.check_model(model)
    then_branch = next(a.g for a in model.graph.node[-1].attribute if a.name == "then_branch")
    assert {t.name for t in model.graph.initializer} == {"s", "zero"}
    assert {t.name for t in then_branch.initializer} == {"w_half", "b"}
    assert [n.op_type for n in model.graph.node] == ["ReduceSum", "Greater", "If"]
    assert then_branch.node[0].op_type == "Cast"
    for old, new in zip(before, answers(model), strict=True):
        np.testing.assert_array_equal(old, new)


def test_a_file_is_rewritten_once(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(branching_model(), str(path))
    assert rewrite_file(path) == 2
    assert rewrite_file(path) == 0  # nothing left to move
    assert {t.name for t in onnx.load(str(path)).graph.initializer} == {"s", "zero"}
