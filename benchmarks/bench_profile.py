"""Speed of profiles: making one from a calibration photo, and reading photos with one beside reading without.

The sheet is synthetic (``mjlens synth --sheet``, the vendored art set), each also turned a quarter (taken from a
side of the table, no EXIF orientation: its tiles are found a second time); the photos are hk-photos ``valid`` (bytes
in memory), each read without and with the profile in turn so both see the same machine load. Made with the shipped
models, 2 inference threads unless ``MJLENS_THREADS`` says otherwise.

    python benchmarks/bench_profile.py                  # 5 sheets, 60 photos
    python benchmarks/bench_profile.py --photos 100 --sheets 10 --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from mjlens.vision.evaluate import read_dataset  # noqa: E402
from mjlens.vision.profile import ProfiledClassifier  # noqa: E402
from mjlens.vision.profile.calibration import profile_from_sheets  # noqa: E402
from mjlens.vision.profile.features import FeatureReader  # noqa: E402
from mjlens.vision.reading.reader import TwoStageDetector, load_tile_reader  # noqa: E402
from mjlens.vision.recognize import Recognizer  # noqa: E402
from mjlens.vision.runtime.decode import load_image  # noqa: E402
from mjlens.vision.synth.sheet import write_sheets  # noqa: E402

HK = REPO.parent / "shared" / "datasets" / "hk-photos" / "data.yaml"
ART = REPO / "datasets" / "tile-art"
ART_SET = "xhokir_regular_flowers"
WARMUP = 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60)
    parser.add_argument("--sheets", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    reader = load_tile_reader(threads=2)
    features = FeatureReader(reader.classifier, threads=2)
    with tempfile.TemporaryDirectory() as work:
        write_sheets(Path(work), args.sheets, 0, ART, ART_SET)
        sheets = [p.read_bytes() for p in sorted(Path(work, "images").glob("*.jpg"))]
    sideways = [cv2.imencode(".jpg", cv2.rotate(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR),
                                                cv2.ROTATE_90_CLOCKWISE), [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
                for data in sheets]
    create: dict[str, list[float]] = {"upright": [], "sideways": []}
    profile = None
    pairs = list(zip(sheets, sideways, strict=True))
    for i, pair in enumerate(pairs[:1] * WARMUP + pairs):
        for way, data in zip(create, pair, strict=True):  # each sheet upright, then sideways
            start = time.perf_counter()
            made = profile_from_sheets(reader, [load_image(data, target_side=reader.decode_side)], features)
            if i >= WARMUP:
                create[way].append(time.perf_counter() - start)
            profile = made if way == "upright" else profile
    plain = Recognizer(detector=reader)
    profiled = Recognizer(detector=TwoStageDetector(reader.detector, ProfiledClassifier(reader.classifier, profile,
                                                                                        threads=2)))
    _, labelled = read_dataset(HK, "val")
    photos = [image.read_bytes() for image, _ in labelled[:args.photos]]
    times: dict[str, list[float]] = {"without": [], "with": []}
    for i, data in enumerate(photos[:WARMUP] + photos):
        for name, recognizer in (("without", plain), ("with", profiled)):
            start = time.perf_counter()
            recognizer.recognize(data)
            if i >= WARMUP:
                times[name].append(time.perf_counter() - start)
    result = {
        "profile_create_median_s": round(statistics.median(create["upright"]), 3),
        "profile_create_max_s": round(max(create["upright"]), 3),
        "profile_create_sideways_median_s": round(statistics.median(create["sideways"]), 3),
        "sheets": len(sheets), "photos": len(photos),
        "read_without_median_ms": round(1000 * statistics.median(times["without"]), 1),
        "read_with_median_ms": round(1000 * statistics.median(times["with"]), 1),
    }
    result["read_ratio"] = round(result["read_with_median_ms"] / result["read_without_median_ms"], 3)
    print(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
