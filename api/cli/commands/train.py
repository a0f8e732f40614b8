"""`mjlens train`: reproduce the shipped tile detector (warm start, fine-tuning, optional ONNX export).

Training needs the ``train`` extra (``pip install -e .[train]``); without it the command says so and exits 2.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from mjlens.i18n import msg, say, tr

from ..lang import add_lang_flag
from ..main import UsageError

TRAIN_MODULES = ("ultralytics", "torch", "onnx", "mahjong_detector")


class DefaultsShown(argparse.HelpFormatter):
    """Help that gives each flag's default, where it has one (not for a flag off by default or a path not given)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if text and action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS) \
                and "%(default)" not in text:
            text += say(msg(" (default: {default})", default="%(default)s"), getattr(self, "lang", "en"))
        return text


def register(sub) -> None:
    parser = sub.add_parser(
        "train",
        help=msg("train the tile detector (needs the train extra)"),
        description=msg("Fine-tune the 43-class YOLO11n tile detector from the mahjong-detector warm start. Example: "
                        "{example}", example="mjlens train --data ../shared/datasets/hk-photos --project runs/train "
                                             "--epochs 16 --export models/mjlens-tiles.onnx"),
        formatter_class=DefaultsShown,
    )
    from mjlens.vision.train.train import add_arguments

    add_arguments(parser)
    parser.add_argument("--export", type=Path, metavar="ONNX",
                        help=msg("after training, export best.pt to this ONNX path"))
    add_lang_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    missing = [m for m in TRAIN_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(msg("training needs {modules}: pip install -e '.[train]'", modules=", ".join(missing)))
    if args.resume is None and args.data is None:
        raise UsageError(msg("--data is required (a YOLO dataset folder with train/ and valid/) unless --resume is "
                             "given"))
    if args.data is not None and not (args.data / "train" / "images").is_dir():
        raise UsageError(msg("{folder} is not a dataset folder with train/images and valid/images",
                             folder=str(args.data)))
    if args.resume is not None and not args.resume.is_file():
        raise UsageError(msg("no checkpoint at {path}", path=str(args.resume)))
    for extra in args.extra_train:
        if not (extra.is_dir() or extra.suffix == ".txt" and extra.is_file()):
            raise UsageError(msg("--extra-train {path} is neither an images folder nor a .txt list of images",
                                 path=str(extra)))
    if args.epochs < 1 or args.batch < 1:
        raise UsageError(msg("--epochs and --batch must be positive"))

    from mjlens.vision.train.train import run_from_args

    run_dir = run_from_args(args)
    print(tr(args.lang, "run: {folder}", folder=str(run_dir)))
    if args.export is not None:
        from mjlens.vision.train.export import export

        print(tr(args.lang, "onnx: {path}", path=str(export(run_dir / "weights" / "best.pt", args.export))))
    return 0
