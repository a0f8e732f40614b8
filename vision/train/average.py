"""Average the class probabilities of several crop classifiers in one ONNX file (an ensemble the runtime serves
as if it were one model).

Two YOLO11n-cls classifiers trained on different crop mixes make different mistakes; their mean probability
reads more tiles right than either (docs/experiments/crop-classifier.md). The runtime needs no change: the file
has one input, one
``output0`` (the mean), and the first member's metadata (class names). Members may be trained at different crop
sizes: the file takes crops of the largest, and each smaller member reads them resized to its own size (in the
graph, linear), which reads as well as crops cut at that size.

With ``unsure_below`` the mean is taken only where it matters: the first member reads every crop, and the others
read only the crops whose top probability from the first is below that level (an ONNX ``If`` over the gathered
crops), so a photo of clearly read tiles costs one member, not all of them. Further, lower levels make a deeper
cascade: each adds one more member (the last ones), reading only the crops whose mean so far is still below it,
so a costly member is paid for on the few crops that the others leave in doubt.

Flower members (``flowers``) are classifiers of the eight flowers and seasons alone. The seasons of one set share
a picture and differ by a numeral and a character, small on a tile that often lies diagonal or upside down; a
classifier that spends all of its capacity on the eight, trained on their faces turned every way, reads the
numeral where the cascade is torn between two of them. They read only the crops the cascade reads as a flower,
and its share of flowers is split among the eight by the mean of the cascade's split and theirs: a flower never
becomes another kind of tile, nor another kind of tile a flower.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from pathlib import Path

from mjlens.vision.train.branch_weights import weights_into_branches

OUTPUT = "output0"


def average(members: list[Path], out: Path, unsure_below: float | Sequence[float] | None = None,
            half_weights: bool = False, flowers: Sequence[Path] = (), first_counts: int = 1,
            leave_flowers: float | None = None) -> Path:
    """Write to ``out`` one ONNX graph answering the mean of the members' probabilities: for every crop, or with
    ``unsure_below`` only for the crops the first member's top probability leaves below it (the others keep the
    first member's answer). Several levels, highest first, make a deeper cascade: the members after the first
    join at the first level but for one per further level, the last members, each averaged in only for the crops
    whose mean so far is still below its level. ``flowers``: flower members, reading the crops the result names a
    flower (module docstring). ``first_counts``: how many members the first weighs as in every mean (a cascade
    joined by one more classifier stands for its own members). ``leave_flowers``: in a cascade, the members that
    join do not read the crops the mean so far names a flower or season, however unsurely, or gives the eight
    together at least this share (a member that reads suits better may read those worse; 1: named ones only)."""
    import onnx
    from onnx import helper

    if len(members) < (1 if flowers else 2):
        raise ValueError("averaging needs at least two classifiers (or one and flower members)")
    levels = _levels(unsure_below, len(members))
    if first_counts < 1:
        raise ValueError(f"the first member must count as one member or more, not {first_counts}")
    if leave_flowers is not None and not levels:
        raise ValueError("only a cascade's members can leave the flowers: give the levels below which they read")
    models = [onnx.load(str(m)) for m in members]
    first = models[0]
    names = [{p.key: p.value for p in m.metadata_props}.get("names") for m in models]
    if len(set(names)) != 1:
        raise ValueError("the classifiers do not name the same classes in the same order")
    input_name = first.graph.input[0].name
    joins = _joining_level(levels, len(models))
    sizes = [crop_size(model) for model in models]
    size = max(sizes)
    parts = [prefixed(model, f"m{index}_", input_name,
                       input_name if index == 0 or not levels else f"level{joins[index]}_crops", member_size / size)
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
    read = "cascade_output" if flowers else OUTPUT
    if not levels:
        nodes = nodes + [node for part in parts[1:] for node in part[0]]
        nodes += _mean_nodes([first_output] * first_counts + [part[2] for part in parts[1:]], read, initializers)
    else:
        nodes, so_far, counted = list(nodes), first_output, first_counts
        for level, below in enumerate(levels):
            joining = [part for part, join in zip(parts[1:], joins[1:], strict=True) if join == level]
            result = read if level == len(levels) - 1 else f"level{level}_output"
            nodes += _cascade_nodes(so_far, counted, input_name, joining, output, below, initializers, level, result,
                                    None if leave_flowers is None else (_class_names(first), leave_flowers))
            so_far, counted = result, counted + len(joining)
    if flowers:
        nodes += _flower_nodes(read, input_name, size, _class_names(first), flowers, output, initializers)
    if half_weights:
        initializers, widen = half_stored(initializers)
        nodes = widen + nodes
    graph = helper.make_graph(nodes, "mean-of-classifiers", [graph_input], [output], initializers)
    model = helper.make_model(graph, opset_imports=first.opset_import)
    model.ir_version = first.ir_version
    properties = {prop.key: prop.value for prop in first.metadata_props} | {"imgsz": str([size, size])}
    # a first member that is itself a cascade keeps its own description beside the one written below
    properties |= {f"first_{key}": value for key, value in properties.items() if key.startswith("ensemble")}
    if len(models) > 1:  # one member with flower members keeps what it says of itself
        properties["ensemble"] = str(len(models))
    if first_counts > 1:
        properties["ensemble_first_counts"] = str(first_counts)
    if leave_flowers is not None:
        properties["ensemble_leaves_flowers"] = str(leave_flowers)
    if levels:
        properties["ensemble_unsure_below"] = " ".join(str(level) for level in levels)
    if flowers:
        properties["flower_members"] = str(len(flowers))
    onnx.helper.set_model_props(model, properties)
    weights_into_branches(model.graph)
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return out


def _class_names(model) -> list[str]:
    """A classifier's classes as tile codes, in the order of its output's columns."""
    from mjlens.vision.runtime.detector import class_names_from_metadata

    metadata = {p.key: p.value for p in model.metadata_props}
    width = model.graph.output[0].type.tensor_type.shape.dim[1].dim_value
    return list(class_names_from_metadata(metadata, width))


def _flower_nodes(so_far: str, input_name: str, size: int, names: list[str], flowers: Sequence[Path], output,
                  initializers: list) -> list:
    """Gather the crops whose answer ``so_far`` (columns in ``names``' order) tops at a flower or season; if there are
    any, let the ``flowers`` members read them (resized from ``size`` to their own crops) and scatter back rows whose
    share of flowers is split by the mean of ``so_far``'s split and the members' (module docstring)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    from mjlens.scoring.tiles import BONUS_CODES

    is_flower = np.array([code in BONUS_CODES for code in names])
    constants = {
        "flowers_columns": is_flower,
        "flowers_mask": is_flower.astype(np.float32)[None, :],  # 1 x C
        "flowers_others": (~is_flower).astype(np.float32)[None, :],
        "flowers_column_sum": is_flower.astype(np.float32)[:, None],  # C x 1: a row's share of flowers
        "flowers_scale": np.array(1.0 / (len(flowers) + 1), dtype=np.float32),
    }
    reading, spreads = [], []
    for index, path in enumerate(flowers):
        model = onnx.load(str(path))
        codes = _class_names(model)
        if not codes or not set(codes) <= set(BONUS_CODES):
            raise ValueError(f"{path.name} is not a classifier of flowers and seasons alone: {codes}")
        prefix = f"f{index}_"
        nodes, member_inits, member_output = prefixed(model, prefix, model.graph.input[0].name, "flowers_crops",
                                                       crop_size(model) / size)
        spread = np.zeros((len(codes), len(names)), np.float32)  # member column -> output column
        spread[range(len(codes)), [names.index(code) for code in codes]] = 1.0
        constants[f"{prefix}spread"] = spread
        reading += [*nodes, helper.make_node("MatMul", [member_output, f"{prefix}spread"], [f"{prefix}read"])]
        initializers += member_inits
        spreads.append(f"{prefix}read")
    initializers += [numpy_helper.from_array(value, name) for name, value in constants.items()]
    choose = [
        helper.make_node("ArgMax", [so_far], ["flowers_top"], axis=1, keepdims=0),
        helper.make_node("Gather", ["flowers_columns", "flowers_top"], ["flowers_chosen"], axis=0),
    ]
    reading += [
        helper.make_node("MatMul", ["flowers_so_far", "flowers_column_sum"], ["flowers_share"]),
        helper.make_node("Sum", spreads, ["flowers_members"]),
        helper.make_node("Mul", ["flowers_share", "flowers_members"], ["flowers_members_share"]),
        helper.make_node("Mul", ["flowers_so_far", "flowers_mask"], ["flowers_own"]),
        helper.make_node("Add", ["flowers_own", "flowers_members_share"], ["flowers_sum"]),
        helper.make_node("Mul", ["flowers_sum", "flowers_scale"], ["flowers_split"]),
        helper.make_node("Mul", ["flowers_so_far", "flowers_others"], ["flowers_not_flowers"]),
        helper.make_node("Add", ["flowers_not_flowers", "flowers_split"], ["flowers_rows_read"]),
    ]
    return _read_again("flowers", choose, reading, so_far, input_name, output, initializers, OUTPUT)


def _levels(unsure_below: float | Sequence[float] | None, n_members: int) -> list[float]:
    """The cascade's levels as a list (empty: a plain mean), checked: highest first, at most one per member after
    the first. Falling levels keep the sum exact: a crop below a level was below every level before it, so the
    answer it carries is the mean of every member that joined so far."""
    if unsure_below is None:
        return []
    levels = [float(unsure_below)] if isinstance(unsure_below, int | float) else [float(x) for x in unsure_below]
    if not levels or len(levels) > n_members - 1:
        raise ValueError(f"{n_members} classifiers make a cascade of 1 to {n_members - 1} levels")
    if any(later > earlier for earlier, later in itertools.pairwise(levels)):
        raise ValueError("a cascade's levels must not rise: each reads only crops that the one before left unsure")
    return levels


def _joining_level(levels: list[float], n_members: int) -> list[int]:
    """The level at which each member joins: the first member reads all (0), the last ``len(levels) - 1`` join
    one per deeper level, the others at the first."""
    deeper = max(len(levels) - 1, 0)
    return [0] * (n_members - deeper) + list(range(1, deeper + 1))


def crop_size(model) -> int:
    """The crop side a member was trained at: its fixed input height, else what its metadata says (as the runtime
    reads it, ``vision.runtime.classifier.trained_size``)."""
    from mjlens.vision.runtime.classifier import trained_size

    height = model.graph.input[0].type.tensor_type.shape.dim[2]
    if height.HasField("dim_value"):
        return height.dim_value
    return trained_size({p.key: p.value for p in model.metadata_props})


def prefixed(model, prefix: str, input_name: str, feed: str, scale: float = 1.0) -> tuple[list, list, str]:
    """A member's nodes and initializers with ``prefix`` on every name, reading ``feed`` (resized by ``scale``
    when it is not 1) as its input, and the name of its output."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    nodes, initializers = [], []
    if scale != 1.0:
        scales = numpy_helper.from_array(np.array([1, 1, scale, scale], dtype=np.float32), f"{prefix}resize_scales")
        initializers.append(scales)
        nodes.append(helper.make_node("Resize", [feed, "", scales.name], [f"{prefix}resized"], mode="linear"))
        feed = f"{prefix}resized"
    renamed = onnx.ModelProto()
    renamed.CopyFrom(model)
    _prefix_graph(renamed.graph, prefix, {input_name: feed})
    initializers += renamed.graph.initializer
    nodes += renamed.graph.node
    return nodes, initializers, renamed.graph.output[0].name


def _prefix_graph(graph, prefix: str, feeds: dict[str, str]) -> None:
    """Put ``prefix`` on every name in ``graph`` and in the graphs of its ``If`` nodes, which read names of the
    graph around them (``onnx.compose.add_prefix`` leaves those unrenamed, so a cascade could not be a member);
    a name in ``feeds`` (the member's input) becomes what it maps to instead."""
    from onnx import AttributeProto

    def named(name: str) -> str:
        return feeds.get(name, prefix + name) if name else name

    for value in [*graph.input, *graph.output, *graph.value_info, *graph.initializer]:
        value.name = named(value.name)
    for node in graph.node:
        node.name = named(node.name)
        node.input[:] = [named(name) for name in node.input]
        node.output[:] = [named(name) for name in node.output]
        for attribute in node.attribute:
            if attribute.type == AttributeProto.GRAPH:
                _prefix_graph(attribute.g, prefix, feeds)


def half_stored(initializers: list) -> tuple[list, list]:
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


def _cascade_nodes(so_far: str, counted: int, input_name: str, joining: list, output, unsure_below: float,
                   initializers: list, level: int, result: str,
                   leave_flowers: tuple[list[str], float] | None = None) -> list:
    """Gather the crops whose answer ``so_far`` (a mean of ``counted`` members) tops below ``unsure_below``, and,
    given the columns' names and a share (``leave_flowers``), not at a flower or season nor giving the eight that
    share; if there are any, let the ``joining`` members read them and scatter the mean of all back over
    ``so_far``."""
    import numpy as np
    from onnx import helper, numpy_helper

    from mjlens.scoring.tiles import BONUS_CODES

    name = f"level{level}"
    initializers.append(numpy_helper.from_array(np.array(unsure_below, dtype=np.float32), f"{name}_below"))
    unsure = f"{name}_unsure" if leave_flowers else f"{name}_chosen"
    choose = [
        helper.make_node("ReduceMax", [so_far], [f"{name}_top"], axes=[1], keepdims=0),
        helper.make_node("Less", [f"{name}_top", f"{name}_below"], [unsure]),
    ]
    if leave_flowers:
        names, share = leave_flowers
        is_flower = np.array([code in BONUS_CODES for code in names])
        initializers += [numpy_helper.from_array(~is_flower, f"{name}_not_flowers"),
                         numpy_helper.from_array(is_flower.astype(np.float32)[:, None], f"{name}_flower_columns"),
                         numpy_helper.from_array(np.array([share], dtype=np.float32), f"{name}_flower_share")]
        choose += [
            helper.make_node("ArgMax", [so_far], [f"{name}_top_column"], axis=1, keepdims=0),
            helper.make_node("Gather", [f"{name}_not_flowers", f"{name}_top_column"], [f"{name}_not_flower"],
                             axis=0),
            helper.make_node("MatMul", [so_far, f"{name}_flower_columns"], [f"{name}_flowers_2d"]),
            helper.make_node("Squeeze", [f"{name}_flowers_2d", "axis_one"], [f"{name}_flowers"]),
            helper.make_node("Less", [f"{name}_flowers", f"{name}_flower_share"], [f"{name}_few_flowers"]),
            helper.make_node("And", [unsure, f"{name}_not_flower"], [f"{name}_not_named_flower"]),
            helper.make_node("And", [f"{name}_not_named_flower", f"{name}_few_flowers"], [f"{name}_chosen"]),
        ]
    reading = [
        *[node for part in joining for node in part[0]],
        # the mean so far stands for its ``counted`` members: summed that many times, it weighs as they do
        *_mean_nodes([f"{name}_so_far"] * counted + [part[2] for part in joining], f"{name}_rows_read", initializers,
                     name),
    ]
    return _read_again(name, choose, reading, so_far, input_name, output, initializers, result)


def _read_again(name: str, choose: list, reading: list, so_far: str, input_name: str, output, initializers: list,
                result: str) -> list:
    """The rows of ``so_far`` for which the ``choose`` nodes' boolean ``{name}_chosen`` holds, read again:
    gathered with their crops (``{name}_so_far``, ``{name}_crops``), the ``reading`` nodes computing
    ``{name}_rows_read`` from them, scattered back over ``so_far`` as ``result``. An ``If`` keeps a batch with no
    row chosen from running the members at all."""
    import numpy as np
    from onnx import helper, numpy_helper

    present = {tensor.name for tensor in initializers}
    for constant, value in (("axis_one", np.array([1], dtype=np.int64)), ("none", np.array(0, dtype=np.int64))):
        if constant not in present:
            initializers.append(numpy_helper.from_array(value, constant))
    nodes = [
        *choose,
        helper.make_node("NonZero", [f"{name}_chosen"], [f"{name}_where"]),
        helper.make_node("Transpose", [f"{name}_where"], [f"{name}_index"], perm=[1, 0]),  # K x 1, for ScatterND
        helper.make_node("Size", [f"{name}_where"], [f"{name}_count"]),
        helper.make_node("Greater", [f"{name}_count", "none"], [f"{name}_any"]),
    ]
    branch = [
        helper.make_node("Squeeze", [f"{name}_index", "axis_one"], [f"{name}_rows"]),
        helper.make_node("Gather", [input_name, f"{name}_rows"], [f"{name}_crops"], axis=0),
        helper.make_node("Gather", [so_far, f"{name}_rows"], [f"{name}_so_far"], axis=0),
        *reading,
        helper.make_node("ScatterND", [so_far, f"{name}_index", f"{name}_rows_read"], [f"{name}_mixed"]),
    ]
    mixed = helper.make_tensor_value_info(f"{name}_mixed", output.type.tensor_type.elem_type, None)
    kept = helper.make_tensor_value_info(f"{name}_kept", output.type.tensor_type.elem_type, None)
    then_branch = helper.make_graph(branch, f"{name}_read_again", [], [mixed])
    else_branch = helper.make_graph([helper.make_node("Identity", [so_far], [f"{name}_kept"])], f"{name}_as_it_was",
                                    [], [kept])
    return nodes + [helper.make_node("If", [f"{name}_any"], [result], then_branch=then_branch,
                                     else_branch=else_branch)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("members", type=Path, nargs="+", help="exported classifier .onnx files")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--unsure-below", type=float, metavar="P", nargs="+",
                        help="the others read only the crops whose top probability from the first is below P; "
                             "each further, lower P adds one of the last members for the crops still below it")
    parser.add_argument("--flowers", type=Path, nargs="+", default=[], metavar="ONNX",
                        help="classifiers of the eight flowers and seasons alone, reading again the crops read as one")
    parser.add_argument("--first-counts", type=int, default=1, metavar="N",
                        help="the first member weighs as N members in every mean (default 1)")
    parser.add_argument("--half-weights", action="store_true",
                        help="store the weights as float16 (half the file; arithmetic stays float32)")
    parser.add_argument("--leave-flowers", type=float, metavar="SHARE",
                        help="the members after the first do not read crops the cascade names a flower or season, "
                             "or gives the eight together this share (1: named ones only)")
    args = parser.parse_args(argv)
    print(average(args.members, args.out, args.unsure_below, args.half_weights, args.flowers, args.first_counts,
                  args.leave_flowers))


if __name__ == "__main__":
    main()
