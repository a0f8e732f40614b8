"""Export a trained checkpoint to the ONNX file the runtime serves (``models/mjlens-tiles.onnx``).

Fixed 640x640 input, batch 1, opset 17, simplified with onnxslim when it is installed: the runtime
(``vision.detector``) letterboxes every photo to that size and reads the class names from the ONNX metadata,
which ultralytics writes at export.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
from pathlib import Path

OPSET = 17
IMGSZ = 640


def export(checkpoint: Path, out: Path, imgsz: int = IMGSZ, opset: int = OPSET) -> Path:
    """Write ``checkpoint`` as ONNX to ``out`` (ultralytics exports next to the .pt; the file is then moved)."""
    from ultralytics import YOLO

    if not checkpoint.is_file():
        raise FileNotFoundError(f"no checkpoint at {checkpoint}")
    simplify = importlib.util.find_spec("onnxslim") is not None
    written = YOLO(str(checkpoint)).export(
        format="onnx", imgsz=imgsz, opset=opset, dynamic=False, simplify=simplify, half=False, batch=1, device="cpu"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    if Path(written).resolve() != out.resolve():
        shutil.move(written, out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path, help="trained .pt (e.g. runs/train/tiles/weights/best.pt)")
    parser.add_argument("--out", type=Path, default=Path("models/mjlens-tiles.onnx"))
    parser.add_argument("--imgsz", type=int, default=IMGSZ)
    parser.add_argument("--opset", type=int, default=OPSET)
    args = parser.parse_args(argv)
    print(export(args.checkpoint, args.out, args.imgsz, args.opset))


if __name__ == "__main__":
    main()
