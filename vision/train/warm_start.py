"""Build a warm-start checkpoint for the 43-class detector from the MIT-licensed ``mahjong-detector`` model.

Training a YOLO11n from scratch on a few hundred photos on a CPU gets nowhere, so training starts from a network
that already reads mahjong tiles. ``mahjong-detector`` ships a 34-class YOLO11n as ONNX whose initializers keep
ultralytics' parameter names with every BatchNorm folded into its conv (``model.N....conv.weight`` + ``.bias``).

The builder loads those tensors into an ultralytics YOLO11n built from ``yolo11n.yaml`` with our 43 classes:

* the 34 class rows of the last classification convs go to our class order; the 9 others (flowers, back)
  keep a fresh initialisation;
* each folded BN is unfolded and its statistics RE-ESTIMATED on real photos: for every conv the per-channel mean
  and variance of its output over the calibration photos become the BN running stats, with
  ``gamma = sqrt(var + eps)`` and ``beta = mean + folded bias``. The network computes exactly the ONNX function
  in eval mode, and in train mode (batch statistics close to those running stats) it still does, so fine-tuning
  starts from a working detector instead of normalising every layer into noise.
"""

from __future__ import annotations

import argparse
import ast
import random
from pathlib import Path

import cv2
import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from mjlens.scoring.tiles import DETECTOR_CLASSES

#: The peer model's honour tiles are named the Japanese way; number tiles already use our codes.
PEER_HONOUR_CODES = {"tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z", "hatsu": "6z", "chun": "7z"}

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def peer_onnx_path() -> Path:
    """The ONNX file shipped inside the installed ``mahjong-detector`` package."""
    import mahjong_detector

    return Path(mahjong_detector.__file__).parent / "model.onnx"


def load_peer(path: Path) -> tuple[dict[str, np.ndarray], list[str]]:
    """The peer's named initializers and its class names (from the ONNX metadata), in its class order."""
    model = onnx.load(str(path))
    tensors = {t.name: numpy_helper.to_array(t).copy() for t in model.graph.initializer if t.name.startswith("model.")}
    meta = {p.key: p.value for p in model.metadata_props}
    names = ast.literal_eval(meta["names"])
    return tensors, [names[i] for i in sorted(names)]


def class_map(peer_names: list[str]) -> dict[int, int]:
    """Our class index for each peer class index."""
    ours = {code: i for i, code in enumerate(DETECTOR_CLASSES)}
    mapping = {}
    for j, name in enumerate(peer_names):
        code = PEER_HONOUR_CODES.get(name, name)
        if code not in ours:
            raise ValueError(f"peer class {name!r} has no code in the detector classes")
        mapping[j] = ours[code]
    return mapping


def build_model(nc: int = len(DETECTOR_CLASSES)) -> nn.Module:
    """A fresh ultralytics YOLO11n detection model (from its yaml, never a downloaded .pt) with our class names."""
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel("yolo11n.yaml", nc=nc, verbose=False)
    model.names = dict(enumerate(DETECTOR_CLASSES))
    return model


def _conv_bn_pairs(model: nn.Module) -> dict[str, tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """Every ultralytics ``Conv`` block (conv + bn + act), keyed by its module path."""
    pairs = {}
    for name, module in model.named_modules():
        conv, bn = getattr(module, "conv", None), getattr(module, "bn", None)
        if isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d):
            pairs[name] = (conv, bn)
    return pairs


def load_peer_weights(
    model: nn.Module, tensors: dict[str, np.ndarray], mapping: dict[int, int]
) -> dict[str, np.ndarray]:
    """Copy the folded weights into ``model``; returns the folded bias of every conv+bn block (for the BN rebuild).

    Until the statistics are re-estimated each BN is set to the identity plus the folded bias, so the model in eval
    mode already computes the peer's function.
    """
    used: set[str] = set()
    folded_bias: dict[str, np.ndarray] = {}
    pairs = _conv_bn_pairs(model)
    for name, (conv, bn) in pairs.items():
        w, b = tensors[f"{name}.conv.weight"], tensors[f"{name}.conv.bias"]
        if tuple(w.shape) != tuple(conv.weight.shape):
            raise ValueError(f"{name}: peer weight {w.shape} != model {tuple(conv.weight.shape)}")
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        folded_bias[name] = b
        used |= {f"{name}.conv.weight", f"{name}.conv.bias"}

    # Plain convs with a bias: the box and class outputs of the head, and the fixed DFL conv.
    for name, module in model.named_modules():
        if not isinstance(module, nn.Conv2d) or module.bias is None or f"{name}.weight" not in tensors:
            continue
        w, b = tensors[f"{name}.weight"], tensors[f"{name}.bias"]
        with torch.no_grad():
            if tuple(w.shape) == tuple(module.weight.shape):
                module.weight.copy_(torch.from_numpy(w))
                module.bias.copy_(torch.from_numpy(b))
            elif w.shape[0] == len(mapping):  # a classification output: rows go to our class order
                for j, i in mapping.items():
                    module.weight[i].copy_(torch.from_numpy(w[j]))
                    module.bias[i] = float(b[j])
            else:
                raise ValueError(f"{name}: peer weight {w.shape} != model {tuple(module.weight.shape)}")
        used |= {f"{name}.weight", f"{name}.bias"}
    unused = [k for k in tensors if k not in used and not k.endswith("dfl.conv.weight")]  # DFL: fixed, not learnt
    if unused:
        raise ValueError(f"peer tensors left unused: {unused[:5]}")
    return folded_bias


def calibration_images(image_dir: Path, count: int, imgsz: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` photos, letterboxed to ``imgsz`` and scaled to 0..1 RGB exactly as ultralytics feeds them."""
    files = sorted(p for p in image_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise FileNotFoundError(f"no images in {image_dir}")
    random.Random(seed).shuffle(files)
    out = []
    for path in files[:count]:
        img = cv2.imread(str(path))
        if img is None:
            continue
        h, w = img.shape[:2]
        r = imgsz / max(h, w)
        img = cv2.resize(img, (round(w * r), round(h * r)), interpolation=cv2.INTER_LINEAR)
        canvas = np.full((imgsz, imgsz, 3), 114, np.uint8)
        top, left = (imgsz - img.shape[0]) // 2, (imgsz - img.shape[1]) // 2
        canvas[top : top + img.shape[0], left : left + img.shape[1]] = img
        out.append(canvas[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0)
    return out


def reestimate_bn(model: nn.Module, folded_bias: dict[str, np.ndarray], images: list[np.ndarray]) -> None:
    """Set every BN from the per-channel statistics of its conv's output over ``images`` (function unchanged)."""
    pairs = _conv_bn_pairs(model)
    sums: dict[str, torch.Tensor] = {}
    squares: dict[str, torch.Tensor] = {}
    counts: dict[str, int] = {}

    def hook(name: str):
        def record(_module, _inputs, output):
            x = output.detach().double()
            sums[name] = sums.get(name, 0) + x.sum(dim=(0, 2, 3))
            squares[name] = squares.get(name, 0) + (x * x).sum(dim=(0, 2, 3))
            counts[name] = counts.get(name, 0) + x.numel() // x.shape[1]

        return record

    handles = [conv.register_forward_hook(hook(name)) for name, (conv, _bn) in pairs.items()]
    model.eval()
    with torch.no_grad():
        for start in range(0, len(images), 8):
            model(torch.from_numpy(np.stack(images[start : start + 8])))
    for handle in handles:
        handle.remove()

    with torch.no_grad():
        for name, (_conv, bn) in pairs.items():
            mean = sums[name] / counts[name]
            var = (squares[name] / counts[name] - mean * mean).clamp_min(1e-8)
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((mean + torch.from_numpy(folded_bias[name]).double()).float())


def save_checkpoint(model: nn.Module, out: Path) -> None:
    """An ultralytics-style checkpoint (``YOLO(out)`` loads it, ``model.train`` starts from it)."""
    import ultralytics

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "model": model,
            "epoch": -1,
            "train_args": {"task": "detect", "imgsz": 640},
            "version": ultralytics.__version__,
            "license": "AGPL-3.0 (ultralytics); weights derived from mahjong-detector (MIT)",
        },
        out,
    )


def build(image_dir: Path, out: Path, count: int = 100, imgsz: int = 640, peer: Path | None = None) -> Path:
    """The whole recipe: peer weights -> 43-class YOLO11n -> BN statistics from real photos -> checkpoint."""
    tensors, peer_names = load_peer(peer or peer_onnx_path())
    model = build_model()
    folded_bias = load_peer_weights(model, tensors, class_map(peer_names))
    reestimate_bn(model, folded_bias, calibration_images(image_dir, count, imgsz))
    save_checkpoint(model, out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=Path, required=True, help="folder of real TRAIN photos for the BN statistics")
    parser.add_argument("--out", type=Path, required=True, help="where to write the warm-start .pt")
    parser.add_argument("--count", type=int, default=100, help="how many photos to estimate the statistics on")
    args = parser.parse_args(argv)
    print(build(args.images, args.out, args.count))


if __name__ == "__main__":
    main()
