"""Recognizer speed and accuracy, side by side with the peer package ``mahjong-detector``, on the same photos.

For each photo (bytes already in memory, so disk speed is not measured) it times our three stages, decode,
detect and layout, then the peer's own pipeline (``PIL.Image.open`` + its ``preprocess_image`` + its
``predict``), interleaved photo by photo so that both see the same machine load. Accuracy is tile accuracy as
``mjlens eval`` defines it, on the 34 playing-tile classes the peer knows (labels and predictions of bonus tiles
and backs are dropped for both).

    python benchmarks/bench_recognizer.py                       # hk-photos valid, 2 threads
    python benchmarks/bench_recognizer.py --limit 50 --json out.json
    python benchmarks/bench_recognizer.py --model dynamic.onnx --compare-rect   # square letterbox vs rectangle

``--tile-size`` reads every photo shrunk to 100 %, 60 %, 45 % and 30 % of its size (in a grey frame of its own
size, as a hand photographed from farther away) and reports the product reader's tile accuracy against the tiles'
median width in detector-input pixels, with and without the second reading of photos whose tiles are small
(``vision.reading.second.small_tiles``): how small a tile the reader still reads.

``--compare-rect`` needs a model exported with a dynamic input (``dynamic=True``). It crops every labelled photo to
the band holding its tiles (a wide photo, as of a single row) and reads it twice, letterboxed into the 640x640
square and into the smallest 32-aligned rectangle with the same 640 long side: the tiles have the same size in
pixels either way, so the comparison shows what the rectangle saves in time and whether it costs accuracy.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from mjlens.scoring.tiles import PLAYING_CODES  # noqa: E402
from mjlens.vision.detection import Detection  # noqa: E402
from mjlens.vision.evaluate import Sample, evaluate_samples, read_dataset, read_labels  # noqa: E402
from mjlens.vision.reading.reader import load_tile_reader  # noqa: E402
from mjlens.vision.recognize import Recognizer, reading_order  # noqa: E402
from mjlens.vision.runtime.detector import NAME_ALIASES, Detector  # noqa: E402
from mjlens.vision.runtime.sessions import SPIN_ENV, session_options, should_spin  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "datasets" / "hk-photos" / "data.yaml"
WARMUP = 3


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Peer:
    """mahjong-detector's own code path, returning boxes so its accuracy can be measured the same way."""

    def __init__(self):
        import importlib

        predict = importlib.import_module("mahjong_detector.predict")  # the package re-exports a function by that name
        self._predict = predict
        self._preprocess = importlib.import_module("mahjong_detector.preprocess")
        self.codes = [NAME_ALIASES.get(n, n) for n in predict.CLASS_NAMES]

    def __call__(self, data: bytes) -> list[Detection]:
        from PIL import Image

        image = Image.open(io.BytesIO(data))
        padded, padding = self._preprocess.preprocess_image(image)
        found = self._predict.predict(padded, padding)
        return [Detection(self.codes[d.class_id], (d.x1, d.y1, d.x2, d.y2), d.confidence) for d in found]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="a YOLO data.yaml (default: hk-photos)")
    parser.add_argument("--split", default="val")
    parser.add_argument("--model", help="our ONNX model (default: $MJLENS_MODEL, else models/mjlens-tiles.onnx)")
    parser.add_argument("--classifier", help="our crop classifier, or none (default: the shipped pair)")
    parser.add_argument("--input-size", type=int, help="detector input side for a dynamic model (default: tuned)")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime threads for both models (default 2)")
    parser.add_argument("--limit", type=int, help="only the first N photos")
    parser.add_argument("--no-peer", action="store_true", help="time our recognizer only")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--compare-rect", action="store_true",
                        help="square letterbox vs rectangular input on photos cropped to their tiles (dynamic model)")
    parser.add_argument("--tile-size", action="store_true", help="tile accuracy against tile width in input pixels")
    args = parser.parse_args()
    if args.compare_rect:
        return compare_rect(args)
    if args.tile_size:
        return tile_size(args)

    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    codes, pairs = read_dataset(args.data, args.split)
    pairs = pairs[: args.limit] if args.limit else pairs
    photos = [(image.name, image.read_bytes(), label) for image, label in pairs]
    spinning = should_spin(args.threads)  # decided once, before this run loads the cores: both readers alike
    os.environ[SPIN_ENV] = "1" if spinning else "0"
    recognizer = Recognizer(detector=load_tile_reader(args.model, classifier=args.classifier, threads=args.threads,
                                                      input_size=args.input_size))
    peer = None if args.no_peer else Peer()
    if peer is not None:  # the peer makes its session lazily with onnxruntime's defaults; give it our settings
        import onnxruntime as ort

        peer_predict = peer._predict
        options = session_options(args.threads)
        peer_predict.threadlocal.session = ort.InferenceSession(str(peer_predict.model_path), options,
                                                                providers=["CPUExecutionProvider"])

    stages: dict[str, list[float]] = {"decode": [], "detect": [], "layout": [], "total": [], "peer": []}
    ours, theirs = [], []
    for n, (name, data, label_path) in enumerate([photos[0]] * WARMUP + photos):
        t0 = time.perf_counter()
        image = recognizer.decode(data)
        t1 = time.perf_counter()
        detections = reading_order(recognizer.detector.detect(image.bgr, image.scale))
        t2 = time.perf_counter()
        recognizer.assemble(detections, image.width, image.height, name)
        t3 = time.perf_counter()
        peer_found = peer(data) if peer else []
        t4 = time.perf_counter()
        if n < WARMUP:
            continue
        for key, value in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t3 - t0, t4 - t3), strict=True):
            stages[key].append(value * 1000)
        labels = read_labels(label_path, codes, image.width, image.height)
        ours.append(Sample(name, labels, [], detections))
        theirs.append(Sample(name, labels, [], peer_found))

    playing = list(PLAYING_CODES)
    accuracy = {"ours": evaluate_samples(ours, classes=playing)}
    if peer:
        accuracy["peer"] = evaluate_samples(theirs, classes=playing)
    figures = {
        "photos": len(ours), "threads": args.threads, "spinning": spinning,
        "model": str(recognizer.detector.path),
        "classifier": str(getattr(getattr(recognizer.detector, "classifier", None), "path", None)),
        "input_size": recognizer.detector.input_size, "conf": recognizer.detector.conf,
        "bonus_conf": getattr(recognizer.detector, "bonus_conf", recognizer.detector.conf),
        "back_conf": getattr(recognizer.detector, "back_conf", recognizer.detector.conf),
        "layout": recognizer._assemble is not None,
        "ms": {k: {"median": round(statistics.median(v), 1), "p95": round(percentile(v, 0.95), 1),
                   "mean": round(statistics.fmean(v), 1)}
               for k, v in stages.items() if v and (peer or k != "peer")},
        "accuracy_34": {who: {k: r[k] for k in ("labels", "predictions", "tile_accuracy", "tile_precision",
                                                "exact_rate", "hand_exact_rate")} for who, r in accuracy.items()},
    }
    print(f"{figures['photos']} photos of {args.data} [{args.split}], {args.threads} threads "
          f"({'spinning' if figures['spinning'] else 'asleep'} between operators), "
          f"model {figures['model']} (input {figures['input_size']}, conf {figures['conf']}, flowers "
          f"{figures['bonus_conf']}, backs {figures['back_conf']}), classifier "
          f"{figures['classifier']}, layout {'on' if figures['layout'] else 'absent'}")
    print("| stage | median ms | p95 ms | mean ms |\n|---|---:|---:|---:|")
    for key, row in figures["ms"].items():
        label = "mahjong-detector (its own pipeline)" if key == "peer" else f"mjlens {key}"
        label = "mjlens detect (+ classify)" if key == "detect" else label
        print(f"| {label} | {row['median']} | {row['p95']} | {row['mean']} |")
    print("\n| model (34 playing-tile classes) | tile accuracy | tile precision | photos exactly right | 13-18 tiles |")
    print("|---|---:|---:|---:|---:|")
    for who, row in figures["accuracy_34"].items():
        print(f"| {'mjlens' if who == 'ours' else 'mahjong-detector'} | {row['tile_accuracy']} | "
              f"{row['tile_precision']} | {row['exact_rate']} | {row['hand_exact_rate']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


def tile_size(args, scales: tuple[float, ...] = (1.0, 0.6, 0.45, 0.3)) -> int:
    """Tile accuracy of photos shrunk by each scale, read with and without the second reading (module docstring)."""
    import cv2
    import numpy as np

    from mjlens.vision.evaluate import Label
    from mjlens.vision.runtime.decode import load_image

    reader = load_tile_reader(args.model, classifier=args.classifier, threads=args.threads,
                              input_size=args.input_size)
    codes, pairs = read_dataset(args.data, args.split)
    pairs = pairs[: args.limit] if args.limit else pairs
    photos = []
    for image_path, label_path in pairs:
        image = load_image(image_path.read_bytes())
        photos.append((image_path.name, image.bgr, read_labels(label_path, codes, image.width, image.height)))
    zoom = getattr(reader, "zoom_input", None)
    print(f"{len(photos)} photos, model {reader.path} (input {reader.input_size}, second reading at {zoom})")
    print("| scale | median tile width (input px) | second reading | photos read twice | tile accuracy "
          "| tile precision | 13-18 tiles exactly right |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for scale in scales:
        shrunk_photos, widths = [], []
        for name, bgr, labels in photos:
            canvas = bgr
            if scale < 1:  # the photo shrunk into the top-left corner of a grey frame of its own size
                small = cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
                canvas = np.full_like(bgr, 114)
                canvas[: small.shape[0], : small.shape[1]] = small
            shrunk = [Label(lb.code, tuple(v * scale for v in lb.box)) for lb in labels]
            widths.extend((lb.box[2] - lb.box[0]) * reader.input_size / max(bgr.shape[:2]) for lb in shrunk)
            shrunk_photos.append((name, canvas, shrunk))
        for setting in ([zoom, None] if zoom else [None]):
            if zoom:
                reader.zoom_input = setting
            samples, twice = [], 0
            for name, canvas, shrunk in shrunk_photos:
                samples.append(Sample(name, shrunk, [], reader.detect(canvas)))
                if setting and hasattr(reader, "find"):
                    twice += reader.zoom_for(reader.find(canvas), canvas) is not None
            report = evaluate_samples(samples)
            print(f"| {scale:.2f} | {float(np.median(widths)):.1f} | {'at ' + str(setting) if setting else 'none'} "
                  f"| {twice} | {report['tile_accuracy']} | {report['tile_precision']} | {report['hand_exact_rate']} |")
        if zoom:
            reader.zoom_input = zoom
    return 0


def compare_rect(args) -> int:
    """Square vs rectangular input on wide crops (module docstring)."""
    import numpy as np

    from mjlens.vision.evaluate import Label
    from mjlens.vision.runtime.decode import load_image

    detector = Detector(args.model, threads=args.threads)
    if detector.fixed_shape:
        print(f"{detector.path} has a fixed {detector.fixed_shape} input: export it with dynamic=True to compare")
        return 2
    codes, pairs = read_dataset(args.data, args.split)
    pairs = pairs[: args.limit] if args.limit else pairs
    crops = []
    for image_path, label_path in pairs:
        image = load_image(image_path.read_bytes())
        labels = read_labels(label_path, codes, image.width, image.height)
        if not labels:
            continue
        boxes = np.array([lb.box for lb in labels])
        margin = 0.5 * float(np.median(boxes[:, 3] - boxes[:, 1]))
        top = int(max(0, boxes[:, 1].min() - margin))
        bottom = int(min(image.height, boxes[:, 3].max() + margin))
        if bottom - top > 0.6 * image.height:  # not a wide band: leave it out
            continue
        shifted = [Label(lb.code, (lb.box[0], lb.box[1] - top, lb.box[2], lb.box[3] - top)) for lb in labels]
        crops.append((image_path.name, np.ascontiguousarray(image.bgr[top:bottom]), shifted))
    results = {}
    for mode in ("square", "rect"):
        detector.fixed_shape = (detector.input_size, detector.input_size) if mode == "square" else None
        times, samples = [], []
        for name, bgr, labels in [crops[0]] * WARMUP + crops:
            t0 = time.perf_counter()
            found = detector.detect(bgr)
            times.append((time.perf_counter() - t0) * 1000)
            samples.append(Sample(name, labels, [], found))
        report = evaluate_samples(samples[WARMUP:])
        results[mode] = {"median_ms": round(statistics.median(times[WARMUP:]), 1),
                         "tile_accuracy": report["tile_accuracy"], "tile_precision": report["tile_precision"],
                         "exact_rate": report["exact_rate"]}
    heights = [bgr.shape[0] / bgr.shape[1] for _, bgr, _ in crops]
    print(f"{len(crops)} photos cropped to their tiles (median height/width {statistics.median(heights):.2f}), "
          f"{args.threads} threads, model {detector.path}")
    print("| input | detect median ms | tile accuracy | tile precision | photos exactly right |")
    print("|---|---:|---:|---:|---:|")
    for mode, row in results.items():
        print(f"| {mode} | {row['median_ms']} | {row['tile_accuracy']} | {row['tile_precision']} "
              f"| {row['exact_rate']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
