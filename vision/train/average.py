"""Average the class probabilities of several crop classifiers in one ONNX file (an ensemble the runtime serves
as if it were one model).

Two YOLO11n-cls classifiers trained on different crop mixes make different mistakes; their mean probability
reads more tiles right than either (models/README.md). The runtime needs no change: the file has one input, one
``output0`` (the mean), and the first member's metadata (class names). Members may be trained at different crop
sizes: the file takes crops of the largest, and each smaller member reads them resized to its own size (in the
graph, linear), which reads as well as crops cut at that size.

With ``unsure_below`` the mean is taken only where it matters: the first member reads every crop, and the others
read only the crops whose top probability from the first is below that level (an ONNX ``If`` over the gathered
crops), so a photo of clearly read tiles costs one member, not all of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

OUTPUT = "output0"


def average(members: list[Path], out: Path, unsure_below: float | None = None, half_weights: bool = False) -> Path:
    """Write to ``out`` one ONNX graph answering the mean of the members' probabilities: for every crop, or with
    ``unsure_below`` only for the crops the first member's top probability leaves below it (the others keep the
    first member's answer)."""
    import onnx
    from onnx import helper

    if len(members) < 2:
        raise ValueError("averaging needs at least two classifiers")
    models = [onnx.load(str(m)) for m in members]
    first = models[0]
    names = [{p.key: p.value for p in m.metadata_props}.get("names") for m in models]
    if len(set(names)) != 1:
        raise ValueError("the classifiers do not name the same classes in the same order")
    input_name = first.graph.input[0].name
    members_input = input_name if unsure_below is None else "unsure_crops"
    sizes = [_crop_size(model) for model in models]
    size = max(sizes)
    parts = [_prefixed(model, f"m{index}_", input_name, input_name if index == 0 else members_input,
                       member_size / size)
             for index, (model, member_size) in enumerate(zip(models, sizes, strict=True))]
    initializers = [init for _, inits, _ in parts for init in inits]
    graph_input = onnx.ValueInfoProto()
    graph_input.CopyFrom(first.graph.input[0])
    for dim in graph_input.type.tensor_type.shape.dim[2:]:
        if dim.HasField("dim_value"):
            dim.dim_value = size
    nodes, _, first_output = parts[0]
    output = onnx.ValueInfoProto()
    output.CopyFrom(first.graph.output[0])
    output.name = OUTPUT
    if unsure_below is None:
        nodes = nodes + [node for part in parts[1:] for node in part[0]]
        nodes += _mean_nodes([first_output] + [part[2] for part in parts[1:]], OUTPUT, initializers)
    else:
        nodes = nodes + _cascade_nodes(first_output, input_name, parts[1:], output, unsure_below, initializers)
    if half_weights:
        initializers, widen = _half_stored(initializers)
        nodes = widen + nodes
    graph = helper.make_graph(nodes, "mean-of-classifiers", [graph_input], [output], initializers)
    model = helper.make_model(graph, opset_imports=first.opset_import)
    model.ir_version = first.ir_version
    for prop in first.metadata_props:
        entry = model.metadata_props.add()
        entry.key, entry.value = prop.key, prop.value if prop.key != "imgsz" else str([size, size])
    entry = model.metadata_props.add()
    entry.key, entry.value = "ensemble", str(len(models))
    if unsure_below is not None:
        entry = model.metadata_props.add()
        entry.key, entry.value = "ensemble_unsure_below", str(unsure_below)
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return out


def _crop_size(model) -> int:
    """The crop side a member was trained at: its fixed input height, else what its metadata says (as the runtime
    reads it, ``vision.classifier.trained_size``)."""
    from vision.classifier import trained_size

    height = model.graph.input[0].type.tensor_type.shape.dim[2]
    if height.HasField("dim_value"):
        return height.dim_value
    return trained_size({p.key: p.value for p in model.metadata_props})


def _prefixed(model, prefix: str, input_name: str, feed: str, scale: float = 1.0) -> tuple[list, list, str]:
    """A member's nodes and initializers with ``prefix`` on every name, reading ``feed`` (resized by ``scale``
    when it is not 1) as its input, and the name of its output."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    prefixed = onnx.compose.add_prefix(model, prefix)
    initializers = list(prefixed.graph.initializer)
    nodes = []
    if scale != 1.0:
        scales = numpy_helper.from_array(np.array([1, 1, scale, scale], dtype=np.float32), f"{prefix}resize_scales")
        initializers.append(scales)
        nodes.append(helper.make_node("Resize", [feed, "", scales.name], [f"{prefix}resized"], mode="linear"))
        feed = f"{prefix}resized"
    renamed = {prefix + input_name: feed}
    for node in prefixed.graph.node:
        node.input[:] = [renamed.get(name, name) for name in node.input]
        nodes.append(node)
    return nodes, initializers, prefixed.graph.output[0].name


def _half_stored(initializers: list) -> tuple[list, list]:
    """Every float32 weight tensor (two or more dimensions) stored as float16, and the ``Cast`` nodes giving the
    graph its float32 value; biases and constants (a resize's scales) stay exact."""
    from onnx import TensorProto, helper, numpy_helper

    stored, widen = [], []
    for tensor in initializers:
        if tensor.data_type != TensorProto.FLOAT or len(tensor.dims) < 2:
            stored.append(tensor)
            continue
        half = numpy_helper.from_array(numpy_helper.to_array(tensor).astype("float16"), f"{tensor.name}_half")
        stored.append(half)
        widen.append(helper.make_node("Cast", [half.name], [tensor.name], to=TensorProto.FLOAT))
    return stored, widen


def _mean_nodes(outputs: list[str], result: str, initializers: list, prefix: str = "ensemble") -> list:
    import numpy as np
    from onnx import helper, numpy_helper

    initializers.append(numpy_helper.from_array(np.array(1.0 / len(outputs), dtype=np.float32), f"{prefix}_scale"))
    return [helper.make_node("Sum", outputs, [f"{prefix}_sum"]),
            helper.make_node("Mul", [f"{prefix}_sum", f"{prefix}_scale"], [result])]


def _cascade_nodes(first_output: str, input_name: str, others: list, output, unsure_below: float,
                   initializers: list) -> list:
    """Gather the crops the first member is unsure of; if there are any, let the other members read them and
    scatter the mean back over the first member's answer (the ``If`` keeps an all-sure batch from running them)."""
    import numpy as np
    from onnx import helper, numpy_helper

    initializers += [numpy_helper.from_array(np.array(unsure_below, dtype=np.float32), "unsure_below"),
                     numpy_helper.from_array(np.array([1], dtype=np.int64), "axis_one"),
                     numpy_helper.from_array(np.array(0, dtype=np.int64), "none")]
    nodes = [
        helper.make_node("ReduceMax", [first_output], ["first_top"], axes=[1], keepdims=0),
        helper.make_node("Less", ["first_top", "unsure_below"], ["unsure"]),
        helper.make_node("NonZero", ["unsure"], ["unsure_where"]),
        helper.make_node("Transpose", ["unsure_where"], ["unsure_index"], perm=[1, 0]),  # K x 1, as ScatterND takes
        helper.make_node("Size", ["unsure_where"], ["unsure_count"]),
        helper.make_node("Greater", ["unsure_count", "none"], ["any_unsure"]),
    ]
    rows = helper.make_node("Squeeze", ["unsure_index", "axis_one"], ["unsure_rows"])
    crops = helper.make_node("Gather", [input_name, "unsure_rows"], ["unsure_crops"], axis=0)
    first_rows = helper.make_node("Gather", [first_output, "unsure_rows"], ["unsure_first"], axis=0)
    member_nodes = [node for part in others for node in part[0]]
    mean = _mean_nodes(["unsure_first"] + [part[2] for part in others], "unsure_mean", initializers, "unsure")
    scatter = helper.make_node("ScatterND", [first_output, "unsure_index", "unsure_mean"], ["mixed"])
    mixed = helper.make_tensor_value_info("mixed", output.type.tensor_type.elem_type, None)
    kept = helper.make_tensor_value_info("kept", output.type.tensor_type.elem_type, None)
    then_branch = helper.make_graph([rows, crops, first_rows, *member_nodes, *mean, scatter], "mean_of_unsure",
                                    [], [mixed])
    else_branch = helper.make_graph([helper.make_node("Identity", [first_output], ["kept"])], "first_alone",
                                    [], [kept])
    nodes.append(helper.make_node("If", ["any_unsure"], [OUTPUT], then_branch=then_branch, else_branch=else_branch))
    return nodes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("members", type=Path, nargs="+", help="exported classifier .onnx files")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--unsure-below", type=float, metavar="P",
                        help="the others read only the crops whose top probability from the first is below P")
    parser.add_argument("--half-weights", action="store_true",
                        help="store the weights as float16 (half the file; arithmetic stays float32)")
    args = parser.parse_args(argv)
    print(average(args.members, args.out, args.unsure_below, args.half_weights))


if __name__ == "__main__":
    main()
