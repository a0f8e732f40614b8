"""Blend two checkpoints of one network: every weight the weighted mean of the two.

Why: a detector fine-tuned further on synthetic photos reads other tile sets far better, but some of the real
photos' hand rows worse. Two checkpoints of the same lineage (one trained on from the other) lie in one basin,
and a point between them keeps much of what each knows: on hk-photos ``valid`` the mean of the shipped detector
and its synthetic-trained descendant read more photos exactly right than either
(docs/experiments/detector-trained-further.md). Batch-norm
running statistics are blended like the weights; integer buffers (batch counters) are the second checkpoint's.

    python -m mjlens.vision.train.blend A.pt B.pt --weight 0.5 --out blended.pt
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def blended_state(first: Mapping[str, Any], second: Mapping[str, Any], weight: float) -> dict[str, Any]:
    """``(1 - weight) * first + weight * second`` for every floating-point tensor; the two must hold the same
    names and shapes (one architecture)."""
    if set(first) != set(second):
        missing = sorted(set(first) ^ set(second))[:3]
        raise ValueError(f"the checkpoints are not of one network: {missing} in only one of them")
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the weight must lie in [0, 1], not {weight}")
    out = {}
    for name, a in first.items():
        b = second[name]
        if a.shape != b.shape:
            raise ValueError(f"{name}: shape {tuple(a.shape)} against {tuple(b.shape)}")
        out[name] = a.float() * (1.0 - weight) + b.float() * weight if a.is_floating_point() else b.clone()
    return out


def blend_checkpoints(first: Path, second: Path, weight: float, out: Path) -> Path:
    """Write an ultralytics checkpoint (FP16, no optimizer state, as ``vision.train.export`` ships) whose model is
    the blend of the two checkpoints' models (their EMA weights where they have them)."""
    import torch

    checkpoints = [torch.load(path, map_location="cpu", weights_only=False) for path in (first, second)]
    models = [(ckpt.get("ema") or ckpt["model"]).float() for ckpt in checkpoints]
    model = models[0]
    model.load_state_dict(blended_state(models[0].state_dict(), models[1].state_dict(), weight))
    # the first checkpoint's training record (arguments, metrics) describes a model this one no longer is
    record = {key: value for key, value in checkpoints[0].items() if key not in ("train_metrics", "train_results")}
    result = {**record, "model": model.half(), "ema": None, "optimizer": None, "updates": None,
              "blend": {"first": first.name, "second": second.name, "weight": weight}}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(result, out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="checkpoint A (.pt)")
    parser.add_argument("second", type=Path, help="checkpoint B (.pt) of the same network")
    parser.add_argument("--weight", type=float, default=0.5, help="B's share of every weight (default 0.5)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print(blend_checkpoints(args.first, args.second, args.weight, args.out))


if __name__ == "__main__":
    main()
