"""Crop classifier files side by side: time per photo reading the same boxes, interleaved photo by photo.

A change to the classifier's graph (another cascade member, the flower members) costs time only on some crops; the
recognizer's benchmark measures it among detector runs and the load of the machine. This one locates the boxes once
per photo with the shipped detector, then reads them with each file in turn, twice, so that both see the same
crops and the same load, and reports the median and p95 milliseconds per photo and the ratio to the first file.

    python benchmarks/bench_classifier.py OLD.onnx                     # against the shipped classifier
    python benchmarks/bench_classifier.py A.onnx B.onnx --limit 150
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parents[1]

from bench_recognizer import DEFAULT_DATA, percentile  # noqa: E402

from mjlens.vision.evaluate import read_dataset  # noqa: E402
from mjlens.vision.reading.reader import load_tile_reader  # noqa: E402
from mjlens.vision.runtime.classifier import DEFAULT_CLASSIFIER, CropClassifier  # noqa: E402

ROUNDS = 2  # readings of each photo by each file, in turn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("classifiers", type=Path, nargs="+", help="classifier .onnx files; one: against the shipped")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="a YOLO data.yaml (default: hk-photos)")
    parser.add_argument("--split", default="val")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=150, help="the first N photos (default 150)")
    args = parser.parse_args()
    files = args.classifiers if len(args.classifiers) > 1 else [args.classifiers[0], DEFAULT_CLASSIFIER]
    readers = [CropClassifier(path, threads=args.threads) for path in files]
    locator = load_tile_reader(threads=args.threads)
    _, pairs = read_dataset(Path(args.data), args.split)
    times: list[list[float]] = [[] for _ in readers]
    for image_path, _ in pairs[: args.limit]:
        bgr = cv2.imread(str(image_path))
        if bgr is None:
            continue
        boxes = [d.box for d in locator.locate(*locator.detector.raw(bgr))]
        for _ in range(ROUNDS):
            for reader, spent in zip(readers, times, strict=True):
                start = time.perf_counter()
                reader.probabilities(bgr, boxes)
                spent.append((time.perf_counter() - start) * 1000)
    first = statistics.median(times[0])
    print(f"{len(times[0]) // ROUNDS} photos of {args.data} [{args.split}], {args.threads} threads, {ROUNDS} rounds")
    print("| classifier | median ms per photo | p95 ms | ratio to the first |")
    print("|---|---:|---:|---:|")
    for path, spent in zip(files, times, strict=True):
        median = statistics.median(spent)
        print(f"| {Path(path).name} | {median:.1f} | {percentile(spent, 0.95):.1f} | {median / first:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
