"""Put a classifier trained anew in the place of one member of a crop classifier's cascade, the others kept.

A cascade (``vision.train.average``) holds its members' weights under a prefix each: in the shipped file
``m0_m0_m0_`` is the first member (*drawn*, reading every crop), ``m0_m0_m1_`` and ``m0_m0_m2_`` the members reading
the unsure crops (G, H), ``m0_f0_`` and ``m0_f1_`` the flower members, ``m1_`` the features classifier joining the
crops that cascade leaves unsure. A member retrained in the same architecture takes the place
of one of them weight for weight (a weight stored as float16 stays so), so the cascade's other members, whose
checkpoints need not be kept, stay exactly as they were.

    python -m mjlens.vision.train.member_swap models/mjlens-tile-crops.onnx runs/drawn.onnx --out runs/cascade.onnx
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mjlens.vision.train import onnx_files
from mjlens.vision.train.branch_weights import subgraphs

#: The prefix of the cascade's first member, the one that reads every crop.
FIRST_MEMBER = "m0_m0_m0_"
#: Constants the cascade keeps under a member's prefix that are not the member's weights: a flower member's map
#: from its eight outputs to the cascade's codes (``vision.train.average``).
CASCADE_CONSTANTS = ("spread",)


def all_graphs(graph) -> list:
    """``graph`` and every graph inside it (the branches of ``If`` nodes), however deep."""
    return [graph] + [inner for node in graph.node for sub in subgraphs(node) for inner in all_graphs(sub)]


def swap_member(cascade: Path, member: Path, out: Path, prefix: str = FIRST_MEMBER) -> int:
    """Write to ``out`` the ``cascade`` with the weights under ``prefix`` replaced by ``member``'s (an exported
    classifier of the same architecture); the number of tensors replaced. Raises ``ValueError`` when a weight of
    ``member`` has no place, or a place of another shape, or some weight of the member under ``prefix`` is left."""
    import onnx

    replacement = onnx.load(str(member))
    out.parent.mkdir(parents=True, exist_ok=True)
    return onnx_files.rewrite_file(cascade, out, lambda model: _replace(model, replacement, prefix))


def _replace(model, member, prefix: str) -> int:
    """Put ``member``'s weights in the places under ``prefix`` in ``model``; the number replaced."""
    import numpy as np
    from onnx import numpy_helper

    places = {tensor.name: tensor for graph in all_graphs(model.graph) for tensor in graph.initializer
              if tensor.name.startswith(prefix)}
    replaced = set()
    for tensor in member.graph.initializer:
        name = next((n for n in (f"{prefix}{tensor.name}_half", f"{prefix}{tensor.name}") if n in places), None)
        if name is None:
            raise ValueError(f"{tensor.name!r} of the new member has no place under {prefix!r} in the cascade")
        old, new = numpy_helper.to_array(places[name]), numpy_helper.to_array(tensor)
        if old.shape != new.shape:
            raise ValueError(f"{tensor.name!r}: shape {new.shape} in the new member, {old.shape} in the cascade")
        places[name].CopyFrom(numpy_helper.from_array(new.astype(old.dtype) if old.dtype != np.int64 else new, name))
        replaced.add(name)
    own = tuple(f"{prefix}{name}" for name in CASCADE_CONSTANTS)
    left = sorted(name for name in places if name not in replaced and not name.startswith(own)
                  and (name.endswith("_half") or ".weight" in name))
    if left:
        raise ValueError(f"{len(left)} weights under {prefix!r} were not replaced, e.g. {left[0]!r}")
    return len(replaced)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cascade", type=Path, help="the cascade's ONNX file")
    parser.add_argument("member", type=Path, help="the new member, exported (vision.train.export)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--prefix", default=FIRST_MEMBER, help=f"the member replaced (default {FIRST_MEMBER}: the "
                        "first)")
    args = parser.parse_args(argv)
    count = swap_member(args.cascade, args.member, args.out, args.prefix)
    print(f"{count} tensors replaced: {args.out}")


if __name__ == "__main__":
    main()
