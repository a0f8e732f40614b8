"""Tile accuracy of an exported detector on a labelled split: the figure of ``docs/experiments/detector-training.md``.

A labelled tile counts as read when some detection (at the runtime's operating threshold, through the same
``vision.runtime.detector.Detector`` the service uses) overlaps it with IoU >= 0.5 AND carries its code. Also reported:
how many detections match no labelled tile (spurious reads) and the share of photos read without any miss or
spurious read. ``mjlens eval`` is the full evaluation; this is the quick check run after each export.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.boxes import box_iou
from mjlens.vision.runtime.detector import Detector

MATCH_IOU = 0.5
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


@dataclass
class TileAccuracy:
    """Counts over a split; ``tile_accuracy`` = read / labelled."""

    photos: int = 0
    labelled: int = 0
    read: int = 0
    detections: int = 0
    spurious: int = 0
    perfect_photos: int = 0
    detect_seconds: float = 0.0  # wall time inside Detector.detect (preprocessing, inference, decoding)

    @property
    def tile_accuracy(self) -> float:
        return self.read / self.labelled if self.labelled else 0.0

    def to_json(self) -> dict:
        ms = 1000 * self.detect_seconds / self.photos if self.photos else 0.0
        return {**asdict(self), "tile_accuracy": round(self.tile_accuracy, 4), "ms_per_photo": round(ms, 1)}


def read_labels(path: Path, width: int, height: int) -> tuple[list[str], np.ndarray]:
    """YOLO label rows -> tile codes and x1 y1 x2 y2 boxes in pixels."""
    codes, boxes = [], []
    text = path.read_text() if path.is_file() else ""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        cls, cx, cy, w, h = int(parts[0]), *map(float, parts[1:5])
        codes.append(DETECTOR_CLASSES[cls])
        boxes.append([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height])
    return codes, np.asarray(boxes, dtype=np.float32).reshape(-1, 4)


def score_photo(label_codes: list[str], label_boxes: np.ndarray, detections) -> tuple[int, int]:
    """(labelled tiles read correctly, detections matching no labelled tile of their code)."""
    if not detections:
        return 0, 0
    det_boxes = np.asarray([d.box for d in detections], dtype=np.float32)
    det_codes = [d.code for d in detections]
    same = np.asarray([[lc == dc for dc in det_codes] for lc in label_codes], dtype=bool).reshape(len(label_codes), -1)
    hit = (box_iou(label_boxes, det_boxes) >= MATCH_IOU) & same if len(label_codes) else same
    return int(hit.any(axis=1).sum()), int((~hit.any(axis=0)).sum())


def measure(model: Path, split: Path, conf: float | None = None) -> TileAccuracy:
    """Run ``model`` over ``split``/images and compare with ``split``/labels."""
    detector = Detector(model) if conf is None else Detector(model, conf=conf)
    result = TileAccuracy()
    for image in sorted(p for p in (split / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        bgr = cv2.imread(str(image))
        if bgr is None:
            continue
        codes, boxes = read_labels(split / "labels" / f"{image.stem}.txt", bgr.shape[1], bgr.shape[0])
        start = time.perf_counter()
        detections = detector.detect(bgr)
        result.detect_seconds += time.perf_counter() - start
        read, spurious = score_photo(codes, boxes, detections)
        result.photos += 1
        result.labelled += len(codes)
        result.read += read
        result.detections += len(detections)
        result.spurious += spurious
        result.perfect_photos += int(read == len(codes) and spurious == 0)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="exported ONNX detector")
    parser.add_argument("split", type=Path, help="split folder with images/ and labels/ (e.g. hk-photos/valid)")
    parser.add_argument("--conf", type=float, help="confidence threshold (default: the runtime's)")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.model, args.split, args.conf).to_json(), indent=2))


if __name__ == "__main__":
    main()
