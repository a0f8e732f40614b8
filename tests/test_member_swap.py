"""A member of the shipped crop classifier's cascade replaced by another of the same architecture
(vision.train.member_swap)."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from conftest import REPO
from onnx import helper, numpy_helper

from mjlens.vision.train.member_swap import CASCADE_CONSTANTS, FIRST_MEMBER, all_graphs, swap_member

CASCADE = REPO / "models" / "mjlens-tile-crops.onnx"


def _first_member(path, scale_linear=1.0, extra=None, reshape=None, prefix=FIRST_MEMBER):
    """An exported member holding the cascade's own member's weights (float32, names as exported): by default the
    first member's."""
    tensors = []
    for tensor in (t for graph in all_graphs(onnx.load(str(CASCADE)).graph) for t in graph.initializer):
        name = tensor.name[len(prefix):]
        if not tensor.name.startswith(prefix) or name.endswith("resize_scales") or name.startswith(CASCADE_CONSTANTS):
            continue
        name = name.removesuffix("_half")
        array = numpy_helper.to_array(tensor)
        array = array.astype(np.float32) if array.dtype == np.float16 else array
        if name == "model.10.linear.weight":
            array = array * scale_linear
        if name == reshape:
            array = array[:1]
        tensors.append(numpy_helper.from_array(array, name))
    if extra:
        tensors.append(numpy_helper.from_array(np.zeros(3, np.float32), extra))
    onnx.save(helper.make_model(helper.make_graph([], "member", [], [], tensors)), str(path))
    return path


def _outputs(path, crops):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: crops})[0]


@pytest.fixture(scope="module")
def crops():
    return np.random.default_rng(0).random((6, 3, 96, 96), dtype=np.float32)


def test_the_member_put_back_as_it_was_reads_as_the_cascade(tmp_path, crops):
    count = swap_member(CASCADE, _first_member(tmp_path / "member.onnx"), tmp_path / "out.onnx")
    assert count > 80
    assert np.allclose(_outputs(tmp_path / "out.onnx", crops), _outputs(CASCADE, crops), atol=1e-6)


def test_a_flower_member_put_back_as_it_was_reads_as_the_cascade(tmp_path, crops):
    member = _first_member(tmp_path / "flowers.onnx", prefix="m0_f0_")
    assert swap_member(CASCADE, member, tmp_path / "out.onnx", prefix="m0_f0_") > 80
    assert np.allclose(_outputs(tmp_path / "out.onnx", crops), _outputs(CASCADE, crops), atol=1e-6)


def test_another_member_changes_what_the_cascade_reads(tmp_path, crops):
    swap_member(CASCADE, _first_member(tmp_path / "member.onnx", scale_linear=0.0), tmp_path / "out.onnx")
    assert not np.allclose(_outputs(tmp_path / "out.onnx", crops), _outputs(CASCADE, crops), atol=1e-3)


@pytest.mark.parametrize("kind", ["extra", "reshape"])
def test_a_member_of_another_architecture_is_refused_and_nothing_written(tmp_path, kind):
    member = _first_member(tmp_path / "member.onnx", extra="model.11.weight" if kind == "extra" else None,
                           reshape="model.0.conv.weight" if kind == "reshape" else None)
    with pytest.raises(ValueError):
        swap_member(CASCADE, member, tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()
