"""Write the features classifier profiles compare tiles by (``vision.profile.features.FEATURES_FILE``): an exported
crop classifier with its weights stored as float16 (half the file; arithmetic stays float32); or several, joined in
one graph reading the same crops, whose pooled features, each of unit length, stand side by side in its output
``features`` (a crop's cosine with an example is then the mean of the classifiers' cosines).

    python -m mjlens.vision.train.embedding runs/general.onnx --out models/mjlens-tile-features.onnx
    python -m mjlens.vision.train.embedding runs/general.onnx runs/printings.onnx --out models/mjlens-tile-features.onnx
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mjlens.vision.train.average import crop_size, half_stored, prefixed


def half_weights(model_path: Path, out: Path) -> Path:
    """``model_path`` with its weight tensors stored as float16, written to ``out``."""
    import onnx

    return _save_half(onnx.load(str(model_path)), out)


def joined(model_paths: list[Path], out: Path) -> Path:
    """The classifiers of ``model_paths`` in one graph reading the first one's crops (each resized in the graph to
    its own size), its outputs the first one's probabilities and ``features``; weights as float16."""
    import onnx
    from onnx import TensorProto, helper

    from mjlens.vision.profile.features import FEATURES_OUTPUT, embedding_output

    models = [onnx.load(str(path)) for path in model_paths]
    first = models[0]
    graph_input = first.graph.input[0]
    nodes, initializers, unit_parts, probabilities = [], [], [], None
    for index, model in enumerate(models):
        prefix = f"m{index}_"
        member_nodes, member_initializers, output = prefixed(model, prefix, model.graph.input[0].name,
                                                             graph_input.name, crop_size(model) / crop_size(first))
        nodes += member_nodes
        initializers += member_initializers
        pooled = prefix + embedding_output(model)
        unit_parts.append(f"{prefix}unit_features")
        nodes.append(helper.make_node("LpNormalization", [pooled], [unit_parts[-1]], axis=1, p=2))
        probabilities = probabilities or output
    nodes.append(helper.make_node("Concat", unit_parts, [FEATURES_OUTPUT], axis=1))
    graph = helper.make_graph(nodes, "joined_features", [graph_input], [
        helper.make_tensor_value_info(probabilities, TensorProto.FLOAT, ["batch", None]),
        helper.make_tensor_value_info(FEATURES_OUTPUT, TensorProto.FLOAT, ["batch", None])], initializers)
    model = helper.make_model(graph, opset_imports=first.opset_import, ir_version=first.ir_version)
    model.metadata_props.extend(first.metadata_props)
    return _save_half(model, out)


def _save_half(model, out: Path) -> Path:
    import onnx

    stored, widen = half_stored(list(model.graph.initializer))
    del model.graph.initializer[:]
    model.graph.initializer.extend(stored)
    nodes = [*widen, *model.graph.node]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", type=Path, nargs="+", help="exported crop classifier .onnx files "
                                                             "(vision.train.export); several: joined")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print(half_weights(args.models[0], args.out) if len(args.models) == 1 else joined(args.models, args.out))


if __name__ == "__main__":
    main()
