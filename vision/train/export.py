"""Export a trained checkpoint to the ONNX file the runtime serves (``models/mjlens-tiles.onnx``, and the crop
classifier ``models/mjlens-tile-crops.onnx``).

The detector: fixed 640x640 input, batch 1, opset 17, simplified with onnxslim when it is installed: the runtime
(``vision.runtime.detector``) letterboxes every photo to that size and reads the class names from the ONNX metadata,
which ultralytics writes at export; its box decoding is rewritten to run faster, its boxes the same to within rounding
(``vision.train.dfl_rewrite``). The classifier: 64x64 crops with a dynamic batch (``--dynamic``), so one run
reads every tile of a photo. The checkpoint shipped beside it (``models/mjlens-tiles.pt``, the warm start
for further training) is stripped of its optimizer state. Neither file keeps the paths of the machine that trained
it: ultralytics records them in its arguments and in the ONNX description.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import tempfile
from pathlib import Path

from mjlens.vision.train.dfl_rewrite import rewrite_file

OPSET = 17
IMGSZ = 640
DESCRIPTIONS = {
    "detect": "mjlens tile detector: YOLO11n, 43 classes (see models/README.md)",
    "classify": "mjlens tile-crop classifier: YOLO11n-cls, 43 classes (see models/README.md)",
}


def _without_paths(args: dict) -> dict:
    """Training arguments with every absolute path cut to its last component."""
    return {k: Path(v).name if isinstance(v, str) and Path(v).is_absolute() else v for k, v in args.items()}


def package_checkpoint(checkpoint: Path, out: Path) -> Path:
    """A copy of ``checkpoint`` for the repository: EMA weights in FP16, no optimizer state, no machine paths."""
    import torch
    from ultralytics.utils.torch_utils import strip_optimizer

    out.parent.mkdir(parents=True, exist_ok=True)
    strip_optimizer(str(checkpoint), str(out))
    ckpt = torch.load(out, map_location="cpu", weights_only=False)
    ckpt["train_args"] = _without_paths(ckpt.get("train_args") or {})
    ckpt.pop("git", None)  # ultralytics records the git checkout it ran from: a path of the training machine
    model = ckpt["model"]
    if isinstance(getattr(model, "args", None), dict):
        model.args = _without_paths(model.args)
    for attr in ("pt_path", "yaml_file"):  # where the weights and the architecture were loaded from
        if isinstance(getattr(model, attr, None), str):
            setattr(model, attr, _without_paths({attr: getattr(model, attr)})[attr])
    torch.save(ckpt, out)
    return out


def _clean_metadata(path: Path) -> None:
    """Replace ultralytics' description (it names the dataset file by its absolute path)."""
    import onnx

    model = onnx.load(str(path))
    task = next((p.value for p in model.metadata_props if p.key == "task"), "detect")
    for prop in model.metadata_props:
        if prop.key == "description":
            prop.value = DESCRIPTIONS.get(task, DESCRIPTIONS["detect"])
    onnx.save(model, str(path))


def export(checkpoint: Path, out: Path, imgsz: int = IMGSZ, opset: int = OPSET, dynamic: bool = False) -> Path:
    """Write ``checkpoint`` as ONNX to ``out`` (ultralytics exports next to the .pt; the file is then moved).
    ``dynamic``: batch and input size left open."""
    from ultralytics import YOLO

    if not checkpoint.is_file():
        raise FileNotFoundError(f"no checkpoint at {checkpoint}")
    simplify = importlib.util.find_spec("onnxslim") is not None
    with tempfile.TemporaryDirectory() as work:  # ultralytics writes beside the .pt: never beside the shipped one
        source = Path(work) / checkpoint.name
        shutil.copyfile(checkpoint, source)
        written = YOLO(str(source)).export(
            format="onnx", imgsz=imgsz, opset=opset, dynamic=dynamic, simplify=simplify, half=False, batch=1,
            device="cpu"
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(written, out)
    _clean_metadata(out)
    rewrite_file(out)  # a detector's box decoding, made faster (a classifier has none to rewrite)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path, help="trained .pt (e.g. runs/train/tiles/weights/best.pt)")
    parser.add_argument("--out", type=Path, default=Path("models/mjlens-tiles.onnx"))
    parser.add_argument("--imgsz", type=int, default=IMGSZ)
    parser.add_argument("--opset", type=int, default=OPSET)
    parser.add_argument("--dynamic", action="store_true", help="dynamic batch and input size (the crop classifier)")
    parser.add_argument("--pt-out", type=Path, help="also write a stripped copy of the checkpoint here")
    args = parser.parse_args(argv)
    print(export(args.checkpoint, args.out, args.imgsz, args.opset, args.dynamic))
    if args.pt_out:
        print(package_checkpoint(args.checkpoint, args.pt_out))


if __name__ == "__main__":
    main()
