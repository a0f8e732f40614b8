"""Tiles read where there is none (docs/experiments/hard-negatives.md).

Reads every photo of a folder written by ``mjlens synth --negatives empty|with-hand`` as ``mjlens recognize`` reads
a photo, and counts the tiles read on no labelled tile (every tile read, in an empty photo), each put to the
distractor whose box holds its centre (the smallest such box), else to the table; and which codes they were read as.

    mjlens synth --negatives empty --n 220 --seed 1 --out /tmp/neg/e1
    python benchmarks/measure_negatives.py /tmp/neg/e1
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

import numpy as np  # noqa: E402

from mjlens.scoring.tiles import DETECTOR_CLASSES  # noqa: E402
from mjlens.vision.boxes import box_iou  # noqa: E402
from mjlens.vision.reading.reader import load_tile_reader  # noqa: E402
from mjlens.vision.runtime.decode import load_image  # noqa: E402

MATCH_IOU = 0.5  # a tile read on a labelled tile is no false tile, whatever its code


def labelled_boxes(path: Path, width: int, height: int) -> np.ndarray:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
    out = []
    for _cls, cx, cy, w, h in rows:
        cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        out.append((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
    return np.array(out, float).reshape(-1, 4)


def where(centre: tuple[float, float], distractors: list[dict]) -> str:
    x, y = centre
    holding = [d for d in distractors if d["box"][0] <= x <= d["box"][2] and d["box"][1] <= y <= d["box"][3]]
    if not holding:
        return "table"
    return min(holding, key=lambda d: (d["box"][2] - d["box"][0]) * (d["box"][3] - d["box"][1]))["kind"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder written by mjlens synth --negatives")
    parser.add_argument("--json", type=Path, help="write every false tile (photo, code, box, where) here")
    args = parser.parse_args()
    reader = load_tile_reader()
    photos = sorted((args.folder / "distractors").glob("*.json"))
    false_tiles, per_photo = [], []
    shown: Counter[str] = Counter()
    for meta_path in photos:
        meta = json.loads(meta_path.read_text())
        image = load_image((args.folder / meta["image"]).read_bytes(), target_side=reader.decode_side)
        tiles = reader.detect(image.bgr, image.scale)
        labels = labelled_boxes(args.folder / "labels" / f"{meta_path.stem}.txt", meta["width"], meta["height"])
        shown.update({d["kind"] for d in meta["distractors"]})
        extra = [t for t in tiles if not len(labels) or box_iou(np.array([t.box]), labels).max() < MATCH_IOU]
        per_photo.append(len(extra))
        for t in extra:
            false_tiles.append({"photo": meta_path.stem, "code": t.code, "confidence": round(t.confidence, 3),
                                "box": [round(v, 1) for v in t.box], "where": where(t.center, meta["distractors"])})
    n = len(photos)
    print(f"{n} photos, {sum(per_photo)} tiles read on no tile; photos with any: {sum(c > 0 for c in per_photo)}")
    print("codes:", dict(Counter(f["code"] for f in false_tiles).most_common()))
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for f in false_tiles:
        by_kind[f["where"]].append(f)
    print("kind            photos  false tiles  codes")
    for kind in sorted(set(shown) | set(by_kind), key=lambda k: -len(by_kind[k])):
        codes = dict(Counter(f["code"] for f in by_kind[kind]).most_common(4))
        print(f"{kind:15s} {shown.get(kind, 0):6d}  {len(by_kind[kind]):11d}  {codes}")
    assert all(f["code"] in DETECTOR_CLASSES for f in false_tiles)
    if args.json:
        args.json.write_text(json.dumps(false_tiles, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
