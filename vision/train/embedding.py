"""Write the features classifier profiles compare tiles by (``vision.profile.features.FEATURES_FILE``): an exported
crop classifier with its weights stored as float16 (half the file; arithmetic stays float32).

    python -m mjlens.vision.train.embedding runs/general.onnx --out models/mjlens-tile-features.onnx
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mjlens.vision.train.average import half_stored


def half_weights(model_path: Path, out: Path) -> Path:
    """``model_path`` with its weight tensors stored as float16, written to ``out``."""
    import onnx

    model = onnx.load(str(model_path))
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
    parser.add_argument("model", type=Path, help="an exported crop classifier .onnx (vision.train.export)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print(half_weights(args.model, args.out))


if __name__ == "__main__":
    main()
