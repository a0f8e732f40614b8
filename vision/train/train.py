"""Fine-tune the 43-class tile detector from the warm start on real photos (optionally plus synthetic ones).

Ultralytics does the training; this module only pins the recipe so that ``mjlens train`` reproduces the shipped
model: the dataset file it needs (ultralytics wants an absolute ``path:``, so it is written next to the run, never
into the dataset or the repository), the warm start, and the hyper-parameters below.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import yaml

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.train.turned import TURNS, write_kind

#: The recipe. Why each value:
#: - nbs 16 = the batch: one optimizer step per batch (ultralytics' default 64 accumulates 4 batches, leaving
#:   only 7 steps per epoch on 450 photos: far too few when an epoch takes minutes of CPU).
#: - AdamW at a small rate with no warm-up: the network already detects tiles, a warm-up's large bias rate
#:   (ultralytics' default 0.1) would wreck the warm start before the rate comes down.
#: - fliplr 0: a mirrored tile face is not what a camera sees; the few mirrored source photos are enough.
#: - scale 0.3 and few degrees: tiles are small already (trays of ~36 in 640 px); shrinking them further hurts.
#: - plots off, CPU, 2 workers: the machine this runs on has two cores and no display (``--device``, ``--workers``
#:   for another).
#: Run settings shared with the crop classifier's recipe (vision.train.classifier): checkpoint every epoch, CPU.
RUN_SETTINGS: dict[str, object] = {
    "patience": 100,
    "plots": False,
    "device": "cpu",
    "workers": 2,
    "cache": "ram",
    "save_period": 1,
    "seed": 0,
    "deterministic": False,
}
HYPERPARAMETERS: dict[str, object] = {
    "imgsz": 640,
    "batch": 16,
    "nbs": 16,
    "optimizer": "AdamW",
    "lr0": 0.0005,
    "lrf": 0.1,
    "momentum": 0.9,
    "weight_decay": 0.0005,
    "warmup_epochs": 0,
    "cos_lr": False,
    "fliplr": 0.0,
    "flipud": 0.0,
    "degrees": 5.0,
    "scale": 0.3,
    "translate": 0.1,
    "mosaic": 1.0,
    "close_mosaic": 2,
    "hsv_h": 0.015,
    "hsv_s": 0.5,
    "hsv_v": 0.4,
    **RUN_SETTINGS,
}


def write_data_yaml(dataset: Path, out: Path, extra_train: list[Path] | None = None) -> Path:
    """A dataset file for ultralytics: ``dataset``'s train/valid split with absolute paths, plus extra train folders.

    Only training images are ever added; validation stays the real ``valid`` split.
    """
    dataset = dataset.resolve()
    for split in ("train/images", "valid/images"):
        if not (dataset / split).is_dir():
            raise FileNotFoundError(f"{dataset} has no {split} folder")
    train = [str(dataset / "train/images")] + [str(p.resolve()) for p in extra_train or []]
    data = {
        "path": str(dataset),
        "train": train if len(train) > 1 else train[0],
        "val": str(dataset / "valid/images"),
        "nc": len(DETECTOR_CLASSES),
        "names": dict(enumerate(DETECTOR_CLASSES)),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(data, sort_keys=False))
    return out


def train(
    dataset: Path,
    project: Path,
    name: str = "tiles",
    epochs: int = 13,
    warm: Path | None = None,
    extra_train: list[Path] | None = None,
    turned: Sequence[str] = (),
    **overrides: object,
) -> Path:
    """Train from the warm start (built first when missing); returns the run folder (weights/best.pt, last.pt).
    ``turned``: kinds of ``vision.train.turned.TURNS`` ("upside_down", "quarter_turned"): the real training photos
    turned so are trained on too (written next to the run)."""
    from ultralytics import YOLO

    from mjlens.vision.train.warm_start import build

    project = project.resolve()
    warm = warm or project / "warm.pt"
    if not warm.exists():
        build(dataset / "train/images", warm)
    turned_folders = [write_kind(dataset / "train", project / f"{name}-{kind}", kind) for kind in turned]
    extra_train = [*turned_folders, *(extra_train or [])]
    data = write_data_yaml(dataset, project / f"{name}-data.yaml", extra_train)
    args = {**HYPERPARAMETERS, **overrides}
    YOLO(str(warm)).train(data=str(data), epochs=epochs, project=str(project), name=name, exist_ok=True, **args)
    return project / name


def resume(last: Path) -> Path:
    """Continue an interrupted run from its ``weights/last.pt`` (ultralytics restores every setting)."""
    from ultralytics import YOLO

    YOLO(str(last)).train(resume=True)
    return last.parent.parent


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options shared by ``python -m mjlens.vision.train.train`` and ``mjlens train``."""
    parser.add_argument("--data", type=Path, help="YOLO dataset folder with train/ and valid/ (real photos)")
    parser.add_argument("--extra-train", type=Path, action="append", default=[],
                        help="more training images (e.g. synthetic): an images/ folder with labels/ beside it, "
                        "or a .txt list of image paths; repeatable")
    parser.add_argument("--project", type=Path, default=Path("runs/train"), help="where runs and checkpoints go")
    parser.add_argument("--name", default="tiles", help="run name under --project")
    parser.add_argument("--epochs", type=int, default=13, help="passes over the training photos")
    parser.add_argument("--batch", type=int, default=HYPERPARAMETERS["batch"], help="photos per training step")
    parser.add_argument("--imgsz", type=int, default=HYPERPARAMETERS["imgsz"], help="training input size (px)")
    parser.add_argument("--lr0", type=float, default=HYPERPARAMETERS["lr0"], help="initial learning rate")
    parser.add_argument("--close-mosaic", type=int, default=HYPERPARAMETERS["close_mosaic"],
                        help="last epochs trained without mosaic")
    parser.add_argument("--degrees", type=float, default=HYPERPARAMETERS["degrees"],
                        help="photos turned at random by up to this many degrees either way")
    parser.add_argument("--upside-down", action="store_true",
                        help="also train on the real training photos turned half round (as taken from across the "
                        "table)")
    parser.add_argument("--quarter-turned", action="store_true",
                        help="also train on the real training photos turned a quarter, each way in turn (as a photo "
                        "whose EXIF orientation was lost)")
    parser.add_argument("--warm", type=Path, help="warm-start .pt (built from mahjong-detector when missing)")
    parser.add_argument("--resume", type=Path, metavar="LAST_PT", help="continue a run from its weights/last.pt")
    add_machine_arguments(parser)


def add_machine_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a run trains, shared with the crop classifier's trainer: the recipe's CPU by default."""
    parser.add_argument("--device", default=RUN_SETTINGS["device"],
                        help="what to train on: cpu, or a GPU's index (0), as ultralytics takes it")
    parser.add_argument("--workers", type=int, default=RUN_SETTINGS["workers"], help="processes loading the data")


def run_from_args(args: argparse.Namespace) -> Path:
    """Dispatch parsed options to :func:`resume` or :func:`train`."""
    if args.resume:
        if not args.resume.is_file():
            raise FileNotFoundError(f"no checkpoint at {args.resume}")
        return resume(args.resume)
    if args.data is None:
        raise ValueError("--data is required unless --resume is given")
    return train(args.data, args.project, args.name, args.epochs, args.warm, args.extra_train,
                 turned=[kind for kind in TURNS if getattr(args, kind)], batch=args.batch, lr0=args.lr0,
                 close_mosaic=args.close_mosaic, imgsz=args.imgsz, degrees=args.degrees, device=args.device,
                 workers=args.workers)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    print(run_from_args(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
