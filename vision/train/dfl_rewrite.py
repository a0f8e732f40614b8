"""Rewrite an exported YOLO detector's box decoding (DFL) so that onnxruntime runs it faster, with the same numbers.

ultralytics exports the distribution focal loss decoding as Reshape (B, 4, 16, A) -> Transpose to (B, 16, 4, A) ->
Softmax over axis 1 -> a 1x1 Conv whose weights are the bin values 0..15: each box side is the expected bin under
the softmax. onnxruntime computes a softmax over an axis other than the last by transposing the tensor there and
back, and at a 448 px input that node alone took 2.9 of the detector's 31 ms on two cores, more than any
convolution. The rewrite takes the same expectation on the (B, 4, 16, A) logits where they lie, with no transpose:
sum(exp(x - max) * bin) / sum(exp(x - max)) over the bins axis, seven elementwise and reducing nodes costing about
0.3 ms in all. The boxes move by at most 2e-4 input pixels (floating-point rounding), the readings not at all
(docs/experiments/runtime-speed.md).

``python -m mjlens.vision.train.dfl_rewrite MODEL.onnx [--out OUT.onnx]`` rewrites a file (in place by default);
``vision.train.export`` applies it to every detector it exports.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mjlens.vision.train import onnx_files

BINS_AXIS = 2  # of the (B, 4, bins, A) logits the exported Reshape gives


def _attribute(node, name: str, default=None):
    from onnx import helper

    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


def _reduce(op: str, source: str, result: str, axes: str, opset: int):
    """A keep-dims reduction over the bins axis: ``axes`` is an attribute before opset 18 (ReduceSum: 13), an input
    from then on."""
    from onnx import helper

    if opset >= (13 if op == "ReduceSum" else 18):
        return helper.make_node(op, [source, axes], [result], keepdims=1, name=result)
    return helper.make_node(op, [source], [result], axes=[BINS_AXIS], keepdims=1, name=result)


def rewrite_dfl(model) -> int:
    """Rewrite in ``model`` (an ``onnx.ModelProto``) every softmax over axis 1 of a (B, bins, 4, A) transpose
    followed by a bias-free 1x1 Conv of one output channel; returns how many were rewritten (0: nothing matched)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 17)
    producer = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    removed, replacements, rewritten = set(), {}, 0
    for softmax in [n for n in graph.node if n.op_type == "Softmax" and _attribute(n, "axis", -1) == 1]:
        transpose = producer.get(softmax.input[0])
        after = consumers.get(softmax.output[0], [])
        if (transpose is None or transpose.op_type != "Transpose"
                or list(_attribute(transpose, "perm", [])) != [0, 2, 1, 3]
                or len(consumers.get(transpose.output[0], [])) != 1 or len(after) != 1):
            continue
        conv = after[0]
        weights = initializers.get(conv.input[1]) if conv.op_type == "Conv" and len(conv.input) == 2 else None
        if weights is None or list(weights.dims[:1]) + list(weights.dims[2:]) != [1, 1, 1]:
            continue
        bins = numpy_helper.to_array(weights).reshape(1, 1, -1, 1).astype(np.float32)
        prefix = f"{softmax.name or softmax.output[0]}_without_transpose"
        graph.initializer.append(numpy_helper.from_array(bins, f"{prefix}_bins"))
        graph.initializer.append(numpy_helper.from_array(np.array([BINS_AXIS], np.int64), f"{prefix}_axes"))
        logits = transpose.input[0]  # (B, 4, bins, A)
        replacements[id(transpose)] = [
            _reduce("ReduceMax", logits, f"{prefix}_max", f"{prefix}_axes", opset),
            helper.make_node("Sub", [logits, f"{prefix}_max"], [f"{prefix}_shifted"], name=f"{prefix}_shifted"),
            helper.make_node("Exp", [f"{prefix}_shifted"], [f"{prefix}_exp"], name=f"{prefix}_exp"),
            helper.make_node("Mul", [f"{prefix}_exp", f"{prefix}_bins"], [f"{prefix}_weighted"],
                             name=f"{prefix}_weighted"),
            _reduce("ReduceSum", f"{prefix}_weighted", f"{prefix}_sum", f"{prefix}_axes", opset),
            _reduce("ReduceSum", f"{prefix}_exp", f"{prefix}_total", f"{prefix}_axes", opset),
            # (B, 4, 1, A): the Conv's (B, 1, 4, A) in the same element order, which the Reshape after it reads
            helper.make_node("Div", [f"{prefix}_sum", f"{prefix}_total"], [conv.output[0]], name=f"{prefix}_mean"),
        ]
        removed |= {id(softmax), id(conv)}
        stale = {conv.output[0]}
        kept_info = [v for v in graph.value_info if v.name not in stale]
        del graph.value_info[:]
        graph.value_info.extend(kept_info)
        rewritten += 1
    if not rewritten:
        return 0
    nodes = []
    for node in graph.node:
        if id(node) in replacements:
            nodes.extend(replacements[id(node)])
        elif id(node) not in removed:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in graph.node for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return rewritten


def rewrite_file(path: Path, out: Path | None = None) -> int:
    """Rewrite the detector at ``path`` into ``out`` (``path`` itself by default); returns the rewrites made."""
    return onnx_files.rewrite_file(path, out, rewrite_dfl)


def main(argv: list[str] | None = None) -> None:
    onnx_files.rewrite_command(argv, __doc__.splitlines()[0], "an exported YOLO detector (.onnx)", rewrite_file,
                               "{count} box decoding(s) rewritten")


if __name__ == "__main__":
    main()
