"""Tile crops for the crop classifier: a YOLO detection dataset -> an image-folder classification dataset.

The second stage of the recognizer reads one tile at a time from a crop around the detector's box. Its training
crops are cut the same way the runtime cuts them (:func:`vision.runtime.crops.crop_tiles`), from the labelled boxes,
with the boxes jittered a little on the training side because the detector's boxes are never exactly the label's.

Layout written (ultralytics' classification format): ``OUT/train/<code>/*.png`` and ``OUT/val/<code>/*.png``.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Collection, Mapping
from pathlib import Path

import cv2
import numpy as np

from mjlens.vision.evaluate import images_of, label_path, read_labels
from mjlens.vision.reading.second.squeezed import rescaled, squash_for_boxes
from mjlens.vision.runtime.crops import CROP_SIZE, crop_tiles
from mjlens.vision.synth.restyle import OPENCV_HUE_TURN, hues_turned

JITTER = 0.08  # box edges moved by up to this fraction of the box's size: about how far the detector's boxes stray
#: How tiles lie in players' photos, for ``--turn``: (share of the turned crops, angles in degrees it lies about,
#: degrees either side). Mostly square to the camera or along a diagonal row; a fifth upside down (a tile
#: pushed out from the far side of the table); a few sideways.
TURNS: tuple[tuple[float, tuple[int, ...], float], ...] = (
    (0.4, (0,), 10.0),
    (0.3, (0,), 50.0),
    (0.2, (180,), 30.0),
    (0.1, (-90, 90), 15.0),
)


def jittered(box: tuple[float, float, float, float], rng: np.random.Generator, amount: float = JITTER
             ) -> tuple[float, float, float, float]:
    """The box with each edge moved independently by up to ``amount`` of the box's width or height."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    dx1, dx2 = rng.uniform(-amount, amount, 2) * w
    dy1, dy2 = rng.uniform(-amount, amount, 2) * h
    return x1 + dx1, y1 + dy1, x2 + dx2, y2 + dy2


def hue_turned(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop with every hue turned by one random angle (a sixth of a turn at least).

    For teaching a classifier to read a numeral whatever its ink: a tile set may print blue what the training
    photos' set prints red. The ivory face has almost no saturation, so it stays ivory; the inks and the table
    change colour. (On hk-photos it did not pay: the flowers are told apart by colour too;
    docs/experiments/crop-classifier.md.)
    """
    turn = int(rng.integers(OPENCV_HUE_TURN // 6, OPENCV_HUE_TURN - OPENCV_HUE_TURN // 6 + 1))
    return hues_turned(bgr, turn)


def turned(bgr: np.ndarray, box: tuple[float, float, float, float], rng: np.random.Generator
           ) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """The photo turned about the box's centre by an angle drawn from :data:`TURNS`, and the box that bounds the
    turned tile, as a detector boxes a tile lying at that angle (with the corners of its neighbours)."""
    shares, centres, spreads = zip(*TURNS, strict=True)
    kind = rng.choice(len(TURNS), p=np.array(shares) / sum(shares))
    angle = float(rng.choice(centres[kind]) + rng.uniform(-spreads[kind], spreads[kind]))
    x1, y1, x2, y2 = box
    turn = cv2.getRotationMatrix2D(((x1 + x2) / 2, (y1 + y2) / 2), angle, 1.0)
    image = cv2.warpAffine(bgr, turn, (bgr.shape[1], bgr.shape[0]), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    corners = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]]) @ turn.T
    (left, top), (right, bottom) = corners.min(axis=0), corners.max(axis=0)
    return image, (float(left), float(top), float(right), float(bottom))


def write_crops(images: list[Path], codes: list[str], out: Path, copies: int = 1, jitter: float = 0.0,
                seed: int = 0, prefix: str = "", size: int = CROP_SIZE,
                class_copies: Mapping[str, int] | None = None, recolour: float = 0.0,
                only: Collection[str] | None = None, turn: float = 0.0) -> Counter:
    """Cut every labelled tile of ``images`` into ``out/<code>/``; ``copies`` jittered crops per tile, or
    ``class_copies[code]`` for the codes it names (rare classes cut more often); a fraction ``recolour`` of
    the crops, drawn at random, written with their hues turned (:func:`hue_turned`); ``only``: these codes
    alone; ``turn``: a fraction of the copies of a tile, the first never, drawn at random, cut from the photo
    turned about it (:func:`turned`).

    A photo squeezed out of its aspect ratio is squashed back first, as the reader does
    (``vision.reading.second.squeezed``).
    """
    rng = np.random.default_rng(seed)
    counts: Counter = Counter()
    for image_path in images:
        bgr = cv2.imread(str(image_path))
        if bgr is None:
            continue
        height, width = bgr.shape[:2]
        labels = read_labels(label_path(image_path), codes, width, height)
        squash = squash_for_boxes([label.box for label in labels])
        if squash is not None:
            squashed = squash.apply(bgr)
            scale_x, scale_y = squash.scales(bgr, squashed)
            bgr = squashed
            labels = rescaled(labels, 1 / scale_x, 1 / scale_y)
        wanted = [0 if only is not None and label.code not in only else (class_copies or {}).get(label.code, copies)
                  for label in labels]
        for copy in range(max(wanted, default=0)):
            chosen = [i for i, n in enumerate(wanted) if copy < n]
            cut = []
            for i in chosen:
                # no draw without --turn, so the recipes before it cut the same crops from the same seed
                to_turn = turn and copy and rng.random() < turn
                image, box = turned(bgr, labels[i].box, rng) if to_turn else (bgr, labels[i].box)
                cut += crop_tiles(image, [jittered(box, rng, jitter) if jitter else box], size)
            for index, crop in zip(chosen, cut, strict=True):
                label = labels[index]
                if recolour and rng.random() < recolour:
                    crop = hue_turned(crop, rng)
                folder = out / label.code
                folder.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(folder / f"{prefix}{image_path.stem}-{index}-{copy}.png"), crop)
                counts[label.code] += 1
    return counts


def balanced_copies(images: list[Path], codes: list[str], copies: int, target: int) -> dict[str, int]:
    """Crops per tile for each class with fewer than ``target`` labelled tiles in ``images``: enough copies that
    the class gets about ``target x copies`` crops (flowers and seasons are about a third as common as suits)."""
    counts = Counter(label.code for image in images for label in read_labels(label_path(image), codes, 1, 1))
    return {code: math.ceil(copies * target / n) for code, n in counts.items() if n < target}


def main(argv: list[str] | None = None) -> None:
    from mjlens.vision.evaluate import read_dataset

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="YOLO data.yaml of the real photos (train and val splits)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--extra-train", type=Path, action="append", default=[],
                        help="more training images (an images/ folder with labels/ beside it); repeatable")
    parser.add_argument("--extra-skip", type=int, default=0, help="leave out the first N extra images (sorted)")
    parser.add_argument("--extra-limit", type=int, default=0, help="use at most this many extra images (0: all)")
    parser.add_argument("--copies", type=int, default=3, help="jittered crops per training tile")
    parser.add_argument("--balance", type=int, default=0, metavar="N",
                        help="cut the tiles of classes with fewer than N real training tiles more often, up to about "
                             "N x copies crops (0: off)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=CROP_SIZE, help="crop side in pixels (the classifier's imgsz)")
    parser.add_argument("--recolour", type=float, default=0.0, metavar="P",
                        help="turn the hues of this fraction of the training crops by a random angle (0: none)")
    parser.add_argument("--only", nargs="+", metavar="CODE",
                        help="cut the tiles of these codes alone (a classifier of a few codes, such as the flowers)")
    parser.add_argument("--turn", type=float, default=0.0, metavar="P",
                        help="cut this fraction of the copies of a real training tile (never the first) from the "
                             "photo turned about it: upright, diagonal, upside down, sideways (TURNS; 0: none)")
    args = parser.parse_args(argv)

    codes, train_pairs = read_dataset(args.data, "train")
    _, val_pairs = read_dataset(args.data, "val")
    train_images = [image for image, _ in train_pairs]
    class_copies = balanced_copies(train_images, codes, args.copies, args.balance) if args.balance else None
    train = write_crops(train_images, codes, args.out / "train", args.copies, JITTER, args.seed, size=args.size,
                        class_copies=class_copies, recolour=args.recolour, only=args.only, turn=args.turn)
    for extra in args.extra_train:
        images = images_of(extra)[args.extra_skip:]
        if args.extra_limit:
            images = images[: args.extra_limit]
        train += write_crops(images, codes, args.out / "train", 1, JITTER, args.seed + 1,
                             prefix=f"{extra.parent.name}-", size=args.size, recolour=args.recolour, only=args.only)
    val = write_crops([image for image, _ in val_pairs], codes, args.out / "val", size=args.size, only=args.only)
    print(f"train crops {sum(train.values())} ({len(train)} classes), val crops {sum(val.values())}")


if __name__ == "__main__":
    main()
