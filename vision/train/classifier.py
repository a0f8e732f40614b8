"""Train the crop classifier, the recognizer's second stage, from the tile detector's own backbone.

Why a second stage: on hk-photos valid the detector finds about 93 % of the tiles (any class, IoU >= 0.5) but
names only about 65 % of them right; the class head shares its small capacity with finding boxes. A YOLO11n-cls
reading one 64 px crop at a time spends all of its capacity on the face.

Warm start: YOLO11n-cls layers 0-8 have the detector's names and shapes, so they are copied from a trained tile
detector (its C2PSA block, layer 10 there, is layer 9 here); the classification head starts fresh. A classifier of
a few codes (the flower members, ``vision.train.average --flowers``) starts instead from a trained crop classifier
(``--start``), all but its head. Training data:
``python -m mjlens.vision.train.crops`` (real train photos, jittered, plus synthetic ones); valid crops choose the
epoch.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mjlens.vision.train.train import RUN_SETTINGS, add_machine_arguments

#: The recipe. Why each value:
#: - imgsz 64: the crop size (vision.runtime.crops.CROP_SIZE).
#: - scale 0.15: a random crop keeps at least 85 % of the tile; ultralytics' default 0.5 can cut a numeral off.
#: - fliplr 0: a mirrored face is not a tile; erasing 0.1: light occlusion (a finger, a neighbour's shadow).
#: - AdamW 0.001 with one warm-up epoch: the head is new, the backbone already knows tiles.
#: - colour: RandAugment (brightness, contrast, colour, posterize...), with which ultralytics skips its HSV jitter;
#:   inks of another hue can be had where the crops are cut (``vision.train.crops --recolour``, not in the recipe).
HYPERPARAMETERS: dict[str, object] = {
    "imgsz": 64,
    "batch": 128,
    "optimizer": "AdamW",
    "lr0": 0.001,
    "lrf": 0.05,
    "cos_lr": True,
    "warmup_epochs": 1,
    "weight_decay": 0.0005,
    "scale": 0.15,
    "fliplr": 0.0,
    "flipud": 0.0,
    "erasing": 0.1,
    "auto_augment": "randaugment",
    "dropout": 0.1,
    **RUN_SETTINGS,
}

#: detector layer -> classifier layer for the blocks they share (layers 0-8 have equal names); the detector's SPPF
#: (its layer 9) and heads have no counterpart.
LAYER_RENAMES = {"model.10.": "model.9."}
SHARED_LAYERS = tuple(f"model.{i}." for i in range(9))


def build_warm_start(detector_pt: Path, out: Path, nc: int) -> Path:
    """A YOLO11n-cls checkpoint whose backbone is the detector's; returns ``out``."""
    import torch
    import ultralytics
    from ultralytics.nn.tasks import ClassificationModel

    detector = torch.load(detector_pt, map_location="cpu", weights_only=False)
    detector = (detector.get("ema") or detector["model"]).float()
    model = ClassificationModel("yolo11n-cls.yaml", nc=nc, verbose=False)
    target = model.state_dict()
    copied = 0
    for name, tensor in detector.state_dict().items():
        for old, new in LAYER_RENAMES.items():
            if name.startswith(old):
                name = new + name[len(old):]
                break
        else:
            if not name.startswith(SHARED_LAYERS):
                continue
        if name in target and target[name].shape == tensor.shape:
            target[name] = tensor.clone()
            copied += 1
    model.load_state_dict(target)
    print(f"warm start: {copied} of {len(target)} tensors from {detector_pt.name}")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "epoch": -1, "train_args": {"task": "classify", "imgsz": 64},
                "version": ultralytics.__version__}, out)
    return out


def train(crops: Path, project: Path, name: str, epochs: int, warm: Path, **overrides: object) -> Path:
    """Fine-tune ``warm`` on the crop folders; returns the run folder (weights/best.pt chosen on ``val``)."""
    from ultralytics import YOLO

    args = {**HYPERPARAMETERS, **overrides}
    YOLO(str(warm)).train(data=str(crops.resolve()), epochs=epochs, project=str(project.resolve()), name=name,
                          exist_ok=True, **args)
    return project / name


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crops", type=Path, help="folder with train/<code>/ and val/<code>/ crops")
    parser.add_argument("--detector", type=Path, help="trained tile detector .pt whose backbone starts the classifier")
    parser.add_argument("--start", type=Path, metavar="CLASSIFIER_PT",
                        help="or a trained crop classifier to start from: all but its last layer, the head rebuilt "
                             "for the crop folders' classes (a classifier of the flowers alone starts from the "
                             "shipped one)")
    parser.add_argument("--project", type=Path, default=Path("runs/classify"))
    parser.add_argument("--name", default="tile-crops")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--lr0", type=float, default=HYPERPARAMETERS["lr0"])
    parser.add_argument("--imgsz", type=int, default=HYPERPARAMETERS["imgsz"])
    parser.add_argument("--batch", type=int, default=HYPERPARAMETERS["batch"])
    add_machine_arguments(parser)
    parser.add_argument("--resume", type=Path, metavar="LAST_PT", help="continue a run from its weights/last.pt")
    args = parser.parse_args(argv)
    if args.resume:
        from ultralytics import YOLO

        YOLO(str(args.resume)).train(resume=True)
        return
    nc = len([p for p in (args.crops / "train").iterdir() if p.is_dir()])
    warm = args.start or args.project / f"{args.name}-warm.pt"
    if args.detector and not args.start:
        build_warm_start(args.detector, warm, nc)
    print(train(args.crops, args.project, args.name, args.epochs, warm, lr0=args.lr0, imgsz=args.imgsz,
                batch=args.batch, device=args.device, workers=args.workers))


if __name__ == "__main__":
    main()
