"""Average the class probabilities of several crop classifiers in one ONNX file (an ensemble the runtime serves
as if it were one model).

Two YOLO11n-cls classifiers trained on different crop mixes make different mistakes; their mean probability
reads more tiles right than either (models/README.md). The runtime needs no change: the file has the members'
input, one ``output0`` (the mean), and the first member's metadata (class names, crop size).
"""

from __future__ import annotations

import argparse
from pathlib import Path

OUTPUT = "output0"


def average(members: list[Path], out: Path) -> Path:
    """Write to ``out`` one ONNX graph feeding the same input to every member and answering their mean."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    if len(members) < 2:
        raise ValueError("averaging needs at least two classifiers")
    models = [onnx.load(str(m)) for m in members]
    first = models[0]
    names = [{p.key: p.value for p in m.metadata_props}.get("names") for m in models]
    if len(set(names)) != 1:
        raise ValueError("the classifiers do not name the same classes in the same order")
    input_name = first.graph.input[0].name
    nodes, initializers, outputs = [], [], []
    for index, model in enumerate(models):
        prefixed = onnx.compose.add_prefix(model, f"m{index}_")
        renamed = {f"m{index}_{input_name}": input_name}
        for node in prefixed.graph.node:
            node.input[:] = [renamed.get(name, name) for name in node.input]
            nodes.append(node)
        initializers.extend(prefixed.graph.initializer)
        outputs.append(prefixed.graph.output[0].name)
    scale = numpy_helper.from_array(np.array(1.0 / len(models), dtype=np.float32), "ensemble_scale")
    nodes.append(helper.make_node("Sum", outputs, ["ensemble_sum"]))
    nodes.append(helper.make_node("Mul", ["ensemble_sum", "ensemble_scale"], [OUTPUT]))
    output = onnx.ValueInfoProto()
    output.CopyFrom(first.graph.output[0])
    output.name = OUTPUT
    graph = helper.make_graph(nodes, "mean-of-classifiers", [first.graph.input[0]], [output],
                              initializers + [scale])
    model = helper.make_model(graph, opset_imports=first.opset_import)
    model.ir_version = first.ir_version
    for prop in first.metadata_props:
        entry = model.metadata_props.add()
        entry.key, entry.value = prop.key, prop.value
    entry = model.metadata_props.add()
    entry.key, entry.value = "ensemble", str(len(models))
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("members", type=Path, nargs="+", help="exported classifier .onnx files")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print(average(args.members, args.out))


if __name__ == "__main__":
    main()
