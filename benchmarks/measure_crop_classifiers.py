"""Crop classifiers side by side on the labelled boxes of a folder of photos (no detector): top-1 of every tile, of
the flowers and seasons, of the upright tiles alone, and of each suit; of the flowers and seasons, too, the share
named some flower or season, and the share named one of their own group (the four seasons or the four flowers).

What a classifier names from a tile's own box bounds what the reader names: the figure that says whether a
classifier trained another way tells unseen art apart better (docs/experiments/printings.md).

    mjlens synth --n 300 --sets held-out --seed 9101 --out H
    python benchmarks/measure_crop_classifiers.py models/mjlens-tile-crops.onnx runs/new.onnx --data H/data.yaml
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

from mjlens.scoring.tiles import BACK_CODE, BONUS_CODES, DETECTOR_CLASSES, SEASON_CODES  # noqa: E402
from mjlens.vision import evaluate  # noqa: E402
from mjlens.vision.runtime.classifier import CropClassifier  # noqa: E402

#: The suits reported apart: characters, dots, bamboo, honours, flowers and seasons, face-down tiles.
SUIT_ORDER = ("m", "p", "s", "z", "f", BACK_CODE)


def _group(code: str) -> str | None:
    """A flower's or season's group: the seasons (1f-4f) or the flowers (5f-8f); None for any other tile."""
    if code not in BONUS_CODES:
        return None
    return "seasons" if code in SEASON_CODES else "flowers"


def labelled_tiles(data_yaml: Path, limit: int, keep_backs: bool = False):
    """(photo, labels) of the first ``limit`` photos of the ``val`` split, face-down tiles left out unless
    ``keep_backs``."""
    codes, pairs = evaluate.read_dataset(data_yaml, "val")
    for image_path, label_path in pairs[:limit]:
        image = evaluate.load_photo(image_path)
        labels = [label for label in evaluate.read_labels(label_path, codes, image.width, image.height)
                  if keep_backs or label.code != BACK_CODE]
        if labels:
            yield image, labels


def measure(classifiers: list[Path], data_yaml: Path, limit: int, keep_backs: bool = False) -> list[dict]:
    readers = [CropClassifier(path) for path in classifiers]
    truth: list[str] = []
    upright: list[bool] = []
    named: list[list[str]] = [[] for _ in readers]
    for image, labels in labelled_tiles(data_yaml, limit, keep_backs):
        boxes = [label.box for label in labels]
        truth += [label.code for label in labels]
        upright += [label.box[3] - label.box[1] >= label.box[2] - label.box[0] for label in labels]
        for reader, names in zip(readers, named, strict=True):
            names += [DETECTOR_CLASSES[i] for i in reader.probabilities(image.bgr, boxes).argmax(axis=1)]
    codes, standing = np.array(truth), np.array(upright)
    suits = np.array([code[-1] if code != BACK_CODE else BACK_CODE for code in truth])
    flowers = np.isin(codes, list(BONUS_CODES))
    rows = []
    for path, names in zip(classifiers, named, strict=True):
        right = np.array(names) == codes
        named_flower = np.isin(names, list(BONUS_CODES))
        same_group = named_flower & (np.array([_group(name) for name in names]) == np.array([_group(c) for c in truth]))
        rows.append({"classifier": str(path), "tiles": len(codes), "top1": round(float(right.mean()), 3),
                     "flowers": int(flowers.sum()),
                     "flowers_top1": round(float(right[flowers].mean()), 3) if flowers.any() else None,
                     "flowers_named_flower": round(float(named_flower[flowers].mean()), 3) if flowers.any() else None,
                     "flowers_group": round(float(same_group[flowers].mean()), 3) if flowers.any() else None,
                     "upright_top1": round(float(right[standing].mean()), 3),
                     "suits_top1": {suit: round(float(right[suits == suit].mean()), 3)
                                    for suit in SUIT_ORDER if (suits == suit).any()}})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("classifiers", type=Path, nargs="+", help="crop classifier .onnx files")
    parser.add_argument("--data", type=Path, required=True, help="a YOLO data.yaml (its val split is read)")
    parser.add_argument("--limit", type=int, default=80, help="the first N photos (default 80)")
    parser.add_argument("--backs", action="store_true", help="face-down tiles too")
    args = parser.parse_args()
    for row in measure(args.classifiers, args.data, args.limit, args.backs):
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
