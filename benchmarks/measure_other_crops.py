"""How the reader names real tiles of tile sets no training photo shows: the crops of ``other-crops`` (two sets, one
tile a photo, the face filling the frame), each read three ways:

- **classifier**: the crop classifier on the whole crop, its top code;
- **profile**: the same with a profile of the set made from the set's *other* crops, as a player's corrections make
  one (each crop one example of its code, ``vision.profile.sources``); a crop whose code has no other crop is left
  out of this column;
- **reader**: the whole reader on the crop as a photo (a close-up), with no profile and with that profile: read
  **right** when a tile of its code is among the tiles read, **wrong** when tiles are read but none of its code,
  **nothing** when no tile is read.

The sets are small (84 and 72 crops): a check beside the synthetic held-out figures, not a measure on its own.

``--rows OUT`` also writes, per set, the crops laid as hands on a table, for ``mjlens eval`` and ``mjlens profile``:
``OUT/<set>/teach``, one photo of the first crop of each code in rows (labelled), and ``OUT/<set>/rows``, ``--photos``
photos of a row of ``ROW_TILES`` crops drawn from the set's *other* crops, so a profile taught on the first never
sees the second (codes with one crop only are not in the rows):

    python benchmarks/measure_other_crops.py
    python benchmarks/measure_other_crops.py --rows R --photos 40
    mjlens eval R/justinchan/rows/data.yaml
    mjlens profile create --from-labels R/justinchan/teach --out justinchan.profile
    mjlens eval R/justinchan/rows/data.yaml --profile justinchan.profile
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from mjlens.scoring.tiles import DETECTOR_CLASSES  # noqa: E402
from mjlens.vision.profile.features import FeatureReader  # noqa: E402
from mjlens.vision.profile.store import Profile, reliance_of  # noqa: E402
from mjlens.vision.reading.reader import load_tile_reader  # noqa: E402
from mjlens.vision.runtime.crops import crop_tiles  # noqa: E402
from mjlens.vision.runtime.decode import load_image  # noqa: E402
from mjlens.vision.synth import photo  # noqa: E402
from mjlens.vision.synth.generate import write_data_yaml, yolo_label_text  # noqa: E402
from mjlens.vision.synth.textures import surface  # noqa: E402

CROPS = REPO.parent / "shared" / "datasets" / "other-crops"
FLOWERS = {f"{n}f" for n in range(1, 9)}
#: Tiles in a row photo: a hand with a flower or two.
ROW_TILES = 14
#: The photo's size, and a tile's height as a share of it (hand photos from the player's side).
PHOTO_SIZE = (1280, 960)
TILE_HEIGHT = (0.08, 0.14)


@dataclass
class CropResult:
    path: str
    code: str
    classifier: str
    profile: str | None
    reader: str
    reader_profile: str | None


def outcome(code: str, tiles) -> str:
    if not tiles:
        return "nothing"
    return "right" if any(t.code == code for t in tiles) else "wrong"


def crops_of(folder: Path) -> list[tuple[str, Path]]:
    return [(code.name, path) for code in sorted(folder.iterdir()) if code.name in DETECTOR_CLASSES
            for path in sorted(code.glob("*.jpg"))]


def measure_set(folder: Path, reader) -> list[CropResult]:
    classifier = reader.classifier
    features = FeatureReader(classifier)
    items = crops_of(folder)
    images = [load_image(path.read_bytes(), target_side=reader.decode_side) for _, path in items]
    boxes = [(0.0, 0.0, float(image.bgr.shape[1]), float(image.bgr.shape[0])) for image in images]
    crops = [crop_tiles(image.bgr, [box], classifier.size)[0] for image, box in zip(images, boxes, strict=True)]
    probs, unit = features.read(crops)
    codes = np.array([code for code, _ in items])
    results = []
    for i, ((code, path), image, box) in enumerate(zip(items, images, boxes, strict=True)):
        others = np.flatnonzero(np.arange(len(items)) != i)
        plain = DETECTOR_CLASSES[int(probs[i].argmax())]
        tiles = reader.detect(image.bgr, image.scale)
        profiled = profiled_reader = None
        if code in codes[others]:  # a profile of the set's other crops, as corrections make one
            profile = Profile.of_examples(list(codes[others]), unit[others], features.digest, "corrections",
                                          reliance=reliance_of(probs[others], list(codes[others])))
            reader_with_profile = load_tile_reader(profile=profile)
            profiled = DETECTOR_CLASSES[int(reader_with_profile.classifier.probabilities(image.bgr, [box])[0].argmax())]
            profiled_reader = outcome(code, reader_with_profile.detect(image.bgr, image.scale))
        results.append(CropResult(str(path.relative_to(CROPS)), code, plain, profiled, outcome(code, tiles),
                                  profiled_reader))
    return results


def summary(results: list[CropResult]) -> dict:
    def share(values):
        values = [v for v in values if v is not None]
        return {"right": sum(v == "right" for v in values), "of": len(values),
                **{k: n for k, n in Counter(values).items() if k != "right"}}

    def named(rows, column):
        values = [(getattr(r, column), r.code) for r in rows if getattr(r, column) is not None]
        return {"right": sum(a == b for a, b in values), "of": len(values)}

    parts = {"all": results, "flowers": [r for r in results if r.code in FLOWERS]}
    return {name: {"classifier": named(rows, "classifier"), "profile": named(rows, "profile"),
                   "reader": share([r.reader for r in rows]),
                   "reader_profile": share([r.reader_profile for r in rows])}
            for name, rows in parts.items() if rows}


def _paste(canvas: np.ndarray, crop: np.ndarray, x: float, y: float, height: float) -> tuple[float, ...]:
    """``crop`` scaled to ``height`` pixels (its aspect kept) with its top-left at (x, y); its box."""
    width = height * crop.shape[1] / crop.shape[0]
    x1, y1 = int(round(x)), int(round(y))
    x2, y2 = min(int(round(x + width)), canvas.shape[1]), min(int(round(y + height)), canvas.shape[0])
    canvas[y1:y2, x1:x2] = cv2.resize(crop, (x2 - x1, y2 - y1), interpolation=cv2.INTER_AREA).astype(np.float32)
    return float(x1), float(y1), float(x2), float(y2)


def _write(out: Path, stem: str, image: np.ndarray, tiles: list[tuple[str, tuple[float, ...]]]) -> None:
    height, width = image.shape[:2]
    cv2.imwrite(str(out / "images" / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (out / "labels" / f"{stem}.txt").write_text(yolo_label_text([(code, *box) for code, box in tiles], width, height))


def _folder(out: Path, made_by: str) -> Path:
    for sub in ("images", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    write_data_yaml(out.resolve(), made_by)
    return out


def write_rows(folder: Path, out: Path, photos: int, seed: int) -> tuple[int, int]:
    """The set's teach photo and row photos under ``out`` (module docstring); (crops taught, crops in rows)."""
    items = [(code, cv2.imread(str(path))) for code, path in crops_of(folder)]
    first: dict[str, np.ndarray] = {}
    others = []
    for code, crop in items:
        if code in first:
            others.append((code, crop))
        else:
            first[code] = crop
    made_by = f"benchmarks/measure_other_crops.py --rows (seed {seed})"
    rng = np.random.default_rng(seed)
    width, height = PHOTO_SIZE
    tile = 0.09 * height
    canvas = surface(rng, width, height, tile).astype(np.float32)
    rows: dict[str, list[str]] = {}
    for code in first:  # the layout's rows: characters, circles, bamboo, honours, flowers
        rows.setdefault(code[-1], []).append(code)
    labelled = []
    for r, suit in enumerate(sorted(rows, key="mpszf".index)):
        x = 0.04 * width
        for code in rows[suit]:
            box = _paste(canvas, first[code], x, 0.05 * height + r * 1.4 * tile, tile)
            labelled.append((code, box))
            x = box[2] + 0.1 * tile
    _write(_folder(out / "teach", made_by), "teach", np.clip(canvas, 0, 255).astype(np.uint8), labelled)
    rows_out = _folder(out / "rows", made_by)
    for index in range(photos if others else 0):
        rng = np.random.default_rng([seed, index])
        drawn = [others[int(i)] for i in rng.integers(len(others), size=ROW_TILES)]
        gap_share = float(rng.uniform(0.0, 0.06))
        row_share = sum(crop.shape[1] / crop.shape[0] + gap_share for _, crop in drawn)  # in tile heights
        tile = min(float(rng.uniform(*TILE_HEIGHT)) * height, 0.94 * width / row_share)
        canvas = surface(rng, width, height, tile).astype(np.float32)
        widths = [tile * crop.shape[1] / crop.shape[0] for _, crop in drawn]
        gap = gap_share * tile
        x = (width - sum(widths) - gap * (len(drawn) - 1)) / 2 + float(rng.normal(0, 0.03)) * width
        x = min(max(x, 2.0), width - sum(widths) - gap * (len(drawn) - 1) - 2)
        y = float(rng.uniform(0.3, 0.6)) * height
        labelled = []
        for code, crop in drawn:
            box = _paste(canvas, crop, x, y + float(rng.normal(0, 0.01)) * tile, tile)
            labelled.append((code, box))
            x = box[2] + gap
        image = photo.degrade(rng, photo.lighting(rng, canvas))
        _write(rows_out, f"{folder.name}_{index:03d}", image, labelled)
    return len(first), len(others)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crops", type=Path, default=CROPS, help="the other-crops folder")
    parser.add_argument("--json", type=Path, help="write every crop's readings here")
    parser.add_argument("--rows", type=Path, help="also write each set's teach and row photos under this folder")
    parser.add_argument("--photos", type=int, default=40, help="row photos of each set")
    parser.add_argument("--seed", type=int, default=700)
    args = parser.parse_args()
    if not args.crops.is_dir():
        print(f"no crops at {args.crops}", file=sys.stderr)
        return 2
    if args.rows:
        for folder in sorted(p for p in args.crops.iterdir() if p.is_dir()):
            taught, rest = write_rows(folder, args.rows / folder.name, args.photos, args.seed)
            print(f"{folder.name}: teach photo of {taught} crops, row photos of the other {rest}")
        return 0
    reader = load_tile_reader()
    everything = {}
    for folder in sorted(p for p in args.crops.iterdir() if p.is_dir()):
        results = measure_set(folder, reader)
        everything[folder.name] = results
        print(folder.name, json.dumps(summary(results)))
        wrong = Counter((r.code, r.classifier) for r in results if r.classifier != r.code)
        print("  misnamed (code, read):", dict(wrong.most_common(12)))
    if args.json:
        args.json.write_text(json.dumps({k: [asdict(r) for r in v] for k, v in everything.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
