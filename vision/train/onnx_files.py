"""A rewrite of an ONNX model applied to a file, in place or into another, and its command line: the shape every
graph rewrite of the shipped models takes (``vision.train.dfl_rewrite``, ``vision.train.branch_weights``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def rewrite_file(path: Path, out: Path | None, rewrite: Callable[[object], int]) -> int:
    """Apply ``rewrite`` (a model in, the changes made out) to the model at ``path`` and write it to ``out``
    (``path`` itself by default), checked; a file left unchanged in place is not written again."""
    import onnx

    model = onnx.load(str(path))
    count = rewrite(model)
    if count:
        onnx.checker.check_model(model)
    if count or (out is not None and Path(out) != Path(path)):
        onnx.save(model, str(out or path))
    return count


def rewrite_command(argv: list[str] | None, description: str, model_help: str,
                    rewrite_path: Callable[[Path, Path | None], int], done: str) -> None:
    """``python -m MODULE MODEL.onnx [--out OUT.onnx]``: print ``done`` (formatted with the count) and the file."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("model", type=Path, help=model_help)
    parser.add_argument("--out", type=Path, help="where to write it (default: in place)")
    args = parser.parse_args(argv)
    count = rewrite_path(args.model, args.out)
    print(f"{done.format(count=count)}: {args.out or args.model}")
