"""Tile accuracy without and with a profile, on tile sets the shipped reader never learnt (docs/experiments/
profiles.md).

For each art set: synthetic calibration sheets (``mjlens synth --sheet``) and synthetic hand photos of that set alone
(``mjlens synth --set``); a profile from the first sheet that reads as one, then every hand photo read without and
with it, scored as ``mjlens eval`` scores tiles (operating readings only, no mAP). ``--matching T,U`` tries other
``Matching`` constants (temperature, unmatched similarity); ``--heights`` other example heights.

    python benchmarks/measure_profiles.py --sets kmj_jade,kmj_classic --photos 50 --work /tmp/profile-sets
    python benchmarks/measure_profiles.py --hk --work /tmp/profile-sets   # hk-photos valid, a sheet of train crops
    python benchmarks/measure_profiles.py --features --sets kmj_classic,xmj_dorwhite,kmj_jade   # which features
    python benchmarks/measure_profiles.py --sets kmj_classic,kmj_jade --timing 40   # and the time of a read
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from mjlens.scoring.tiles import DETECTOR_CLASSES  # noqa: E402
from mjlens.vision import evaluate  # noqa: E402
from mjlens.vision.profile import (  # noqa: E402
    Profile,
    ProfiledClassifier,
    ProfileError,
    calibration,  # noqa: E402
)
from mjlens.vision.profile.classifier import Matching  # noqa: E402
from mjlens.vision.profile.features import FeatureReader  # noqa: E402
from mjlens.vision.reading.reader import TwoStageDetector, load_tile_reader  # noqa: E402
from mjlens.vision.runtime.decode import load_image  # noqa: E402
from mjlens.vision.synth.generate import write_dataset  # noqa: E402
from mjlens.vision.synth.sheet import write_sheets  # noqa: E402
from mjlens.vision.train.member_swap import FIRST_MEMBER  # noqa: E402

ART = REPO.parent / "shared" / "datasets" / "tile-art"
HK = REPO.parent / "shared" / "datasets" / "hk-photos" / "data.yaml"
SETS = "kmj_classic,xshisen_s2,xmj_thick,bradfield_numbered,kmj_jade"  # held out; gnome_postmodern lacks 白
FIGURES = ("tile_accuracy", "tile_precision", "exact_rate", "bonus_recall")


def read_all(reader, data_yaml: Path, split: str = "val", fixes: tuple = (None,)) -> list[dict]:
    """``mjlens eval``'s tile figures of ``reader``'s operating readings over a split, once per entry of ``fixes``
    (label corrections, None for the labels as given), the photos read once."""
    codes, pairs = evaluate.read_dataset(data_yaml, split)
    readings = []
    for image_path, label_path in pairs:
        image = evaluate.load_photo(image_path)
        readings.append((image_path, label_path, image.width, image.height, reader.detect(image.bgr, image.scale)))
    figures = []
    for fix in fixes:
        samples = [evaluate.Sample(path.name, evaluate.read_labels(labels, codes, width, height,
                                                                   (fix or {}).get(path.name)), [], found,
                                   (width, height)) for path, labels, width, height, found in readings]
        figures.append(_figures(samples))
    return figures


def _figures(samples: list) -> dict:
    report = evaluate.evaluate_samples(samples)
    matches = [evaluate.match_tiles(sample.labels, sample.operating) for sample in samples]
    correct, wrong = sum(len(m.correct) for m in matches), sum(len(m.wrong) for m in matches)
    labels = sum(len(sample.labels) for sample in samples)
    # found: labelled tiles with a tile read on them, whatever its code; named: of those, read as their code
    return {k: report.get(k) for k in FIGURES} | {"found": round((correct + wrong) / max(labels, 1), 4),
                                                  "named": round(correct / max(correct + wrong, 1), 4),
                                                  "photos": len(samples)}


#: Reads of each photo each way for ``--timing``, in the order without, with, with, without, ...: other work on the
#: machine only ever adds time, so each photo's least time each way is the one that reading costs.
TIMING_READS = 3


def read_times(reader, profiled, data_yaml: Path, photos: int) -> dict:
    """Wall time of reading each of the first ``photos`` photos without and with the profile: each photo read
    ``TIMING_READS`` times each way, alternately, its least time each way kept; the medians over the photos, the
    ratio of the sums (the time a folder of these photos takes with the profile against without) and the median of
    each photo's ratio (a profile changes which photos are read a second time, so the two medians' ratio is no
    photo's)."""
    import statistics

    _, pairs = evaluate.read_dataset(data_yaml, "val")
    images = [evaluate.load_photo(path) for path, _ in pairs[:photos]]
    for image in images[:3]:  # warm up
        reader.detect(image.bgr, image.scale)
        profiled.detect(image.bgr, image.scale)
    least: dict[str, list[float]] = {"without": [], "with": []}
    for image in images:
        times: dict[str, list[float]] = {"without": [], "with": []}
        for repeat in range(TIMING_READS):
            order = (("without", reader), ("with", profiled))
            for key, which in order if repeat % 2 == 0 else order[::-1]:
                start = time.perf_counter()
                which.detect(image.bgr, image.scale)
                times[key].append(time.perf_counter() - start)
        for key, value in times.items():
            least[key].append(min(value))
    medians = {key: round(statistics.median(value) * 1000, 1) for key, value in least.items()}
    ratios = [with_ / without for with_, without in zip(least["with"], least["without"], strict=True)]
    return medians | {"ratio": round(sum(least["with"]) / sum(least["without"]), 3),
                      "photo_ratio_median": round(statistics.median(ratios), 3)}


def with_profile(reader: TwoStageDetector, profile: Profile, matching: Matching) -> TwoStageDetector:
    return TwoStageDetector(reader.detector, ProfiledClassifier(reader.classifier, profile, matching=matching))


def sheet_profile(reader, features, sheets: Path) -> tuple[Profile | None, str, float]:
    """A profile from the first sheet that reads as one, the errors of those before it, and the seconds it took."""
    errors = []
    for image_path in sorted((sheets / "images").glob("*.jpg")):
        data = image_path.read_bytes()
        start = time.perf_counter()
        try:
            image = load_image(data, target_side=reader.decode_side)
            profile = calibration.profile_from_sheets(reader, [image], features)
            return profile, ";".join(errors), time.perf_counter() - start
        except ProfileError as err:
            errors.append(err.code)
    return None, ";".join(errors), 0.0


def train_sheet(reader, out: Path) -> Path:
    """A calibration sheet of hk-photos: for each code, the labelled tile of ``train`` standing upright (a tile's
    shape) that the shipped classifier reads surest as its code, pasted in the sheet's rows on a plain table (tiles of
    one height, apart): the set's own tiles, no photo of ``valid`` among them."""
    codes, pairs = evaluate.read_dataset(HK, "train")
    best: dict[str, tuple[float, Path, tuple]] = {}
    for image_path, label_path in pairs:
        image = evaluate.load_photo(image_path)
        upright = [label for label in evaluate.read_labels(label_path, codes, image.width, image.height)
                   if label.code != "back" and _standing(label.box)]
        if not upright:
            continue
        probs = reader.classifier.probabilities(image.bgr, [label.box for label in upright])
        for label, row in zip(upright, probs, strict=True):
            sure = float(row[DETECTOR_CLASSES.index(label.code)])
            if sure > best.get(label.code, (0.0,))[0]:
                best[label.code] = (sure, image_path, label.box)
    tile_h, gap = 110, 14
    rows = [row for row in calibration.SHEET_ROWS if all(code in best for code in row)]
    canvas = np.full((gap + len(rows) * (tile_h + 3 * gap), gap + 9 * (tile_h + gap), 3), (70, 110, 60), np.uint8)
    for r, row in enumerate(rows):
        x = 2 * gap
        for code in row:
            _, image_path, (x1, y1, x2, y2) = best[code]
            image = evaluate.load_photo(image_path)
            crop = image.bgr[int(y1):int(y2), int(x1):int(x2)]
            crop = cv2.resize(crop, (max(1, round(crop.shape[1] * tile_h / crop.shape[0])), tile_h))
            y = 2 * gap + r * (tile_h + 3 * gap)
            width = min(crop.shape[1], canvas.shape[1] - x)
            canvas[y:y + tile_h, x:x + width] = crop[:, :width]
            x += crop.shape[1] + gap
    out.mkdir(parents=True, exist_ok=True)
    path = out / "hk-train-sheet.jpg"
    cv2.imwrite(str(path), canvas, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def _standing(box) -> bool:
    """A box of an upright tile's shape, at least 50 px tall."""
    width, height = box[2] - box[0], box[3] - box[1]
    return height >= 50 and 1.2 <= height / max(width, 1) <= 1.6


def hk_rows(reader, features, matchings: list[Matching], work: Path) -> list[dict]:
    """hk-photos ``valid`` read without and with a profile of a sheet cut from ``train``, on the source's labels and
    on the corrected ones."""
    sheet = train_sheet(reader, work / "hk")
    start = time.perf_counter()
    image = load_image(sheet.read_bytes(), target_side=reader.decode_side)
    profile = calibration.profile_from_sheets(reader, [image], features)
    seconds = time.perf_counter() - start
    fixes = evaluate.read_fixes(REPO / "datasets" / "hk-photos-label-fixes.txt")
    names = ("source labels", "corrected labels")
    without = read_all(reader, HK, "val", (None, fixes))
    rows = [{"set": f"hk-photos valid, {name}", "create_s": round(seconds, 2), "without": figures}
            for name, figures in zip(names, without, strict=True)]
    for matching in matchings:
        for row, figures in zip(rows, read_all(with_profile(reader, profile, matching), HK, "val", (None, fixes)),
                                strict=True):
            row[f"with T={matching.temperature} U={matching.unmatched}"] = figures
    for row in rows:
        print(json.dumps(row), flush=True)
    return rows


#: Inner tensors of the shipped classifier compared as features (``--features``): the pooled features its last layer
#: reads, then the outputs of earlier blocks, averaged over their grid or kept as it (2 x 2 for the last block).
INNER = {"pooled (last layer's input)": (f"{FIRST_MEMBER}/model.10/Flatten_output_0", "flat"),
         "last block, averaged": (f"{FIRST_MEMBER}/model.9/cv2/act/Mul_output_0", "mean"),
         "last block, 2 x 2 grid": (f"{FIRST_MEMBER}/model.9/cv2/act/Mul_output_0", "flat"),
         "an earlier block, averaged": (f"{FIRST_MEMBER}/model.8/cv2/act/Mul_output_0", "mean")}


def compare_features(reader, sets: list[str], work: Path) -> list[dict]:
    """Each labelled upright tile of a set's hand photos named by its nearest example (1-NN, cosine) of the set's
    first layout photo, by each inner tensor of ``INNER``, beside the shipped classifier's own reading."""
    import onnx
    import onnxruntime as ort

    from mjlens.vision.runtime.crops import crop_tiles

    model = onnx.load(str(reader.classifier.path))
    names = sorted({name for name, _ in INNER.values()})
    for name in names:
        model.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    classifier = reader.classifier

    def crops_of(data_yaml: Path, first_only: bool):
        codes, pairs = evaluate.read_dataset(data_yaml, "val")
        for image_path, label_path in pairs[:1] if first_only else pairs:
            image = evaluate.load_photo(image_path)
            labels = [lb for lb in evaluate.read_labels(label_path, codes, image.width, image.height)
                      if lb.code != "back" and lb.box[3] - lb.box[1] >= lb.box[2] - lb.box[0]]
            if labels:
                yield [lb.code for lb in labels], crop_tiles(image.bgr, [lb.box for lb in labels], classifier.size)

    def features(data_yaml: Path, first_only: bool):
        found, truth, shipped = {key: [] for key in INNER}, [], []
        for codes, crops in crops_of(data_yaml, first_only):
            blob = cv2.dnn.blobFromImages(crops, scalefactor=1 / 255.0, swapRB=True)
            outputs = dict(zip(["probs", *names], session.run(None, {classifier.input_name: blob}), strict=True))
            for key, (name, pool) in INNER.items():
                value = outputs[name]
                value = value.mean(axis=(2, 3)) if pool == "mean" else value.reshape(len(value), -1)
                found[key].append(value / np.linalg.norm(value, axis=1, keepdims=True))
            shipped += [classifier.columns[i] for i in outputs["probs"].argmax(axis=1)]
            truth += codes
        return {k: np.concatenate(v) for k, v in found.items()}, np.array(truth), np.array(shipped)

    rows = []
    for name in sets:
        examples, example_codes, _ = features(work / name / "sheet" / "data.yaml", True)
        tiles, truth, shipped = features(work / name / "hands" / "data.yaml", False)
        row = {"set": name, "tiles": len(truth),
               "shipped classifier": round(float((np.array(DETECTOR_CLASSES)[shipped] == truth).mean()), 3)}
        for key in INNER:
            nearest = (tiles[key] @ examples[key].T).argmax(axis=1)
            row[key] = round(float((example_codes[nearest] == truth).mean()), 3)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=SETS)
    parser.add_argument("--photos", type=int, default=50, help="hand photos per set")
    parser.add_argument("--seed", type=int, default=11, help="the hand photos' seed (another one to choose on)")
    parser.add_argument("--sheets", type=int, default=3, help="sheet photos made per set (the first read is used)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/mjlens-profile-sets"))
    parser.add_argument("--matching", action="append", default=[], help="T,U: temperature and unmatched similarity")
    parser.add_argument("--heights", help="example heights, e.g. none,32")
    parser.add_argument("--turns", help="example quarter turns, e.g. 0,2")
    parser.add_argument("--timing", type=int, default=0, metavar="N",
                        help="also time reading the first N hand photos without and with the profile")
    parser.add_argument("--views", type=int, help="other views of each layout tile (calibration.EXAMPLE_VIEWS)")
    parser.add_argument("--hk", action="store_true", help="hk-photos valid with a sheet of train crops instead")
    parser.add_argument("--features", action="store_true",
                        help="instead, compare the classifier's inner tensors as features (1-NN on labelled tiles)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.heights:
        calibration.EXAMPLE_TILE_HEIGHTS = tuple(None if h == "none" else int(h) for h in args.heights.split(","))
    if args.views is not None:
        calibration.EXAMPLE_VIEWS = args.views
    if args.turns:
        calibration.EXAMPLE_TURNS = tuple(int(t) for t in args.turns.split(","))
    matchings = [Matching(*map(float, m.split(","))) for m in args.matching] or [Matching()]
    reader = load_tile_reader()
    features = FeatureReader(reader.classifier)
    rows = []
    if args.features:
        rows = compare_features(reader, args.sets.split(","), args.work)
    elif args.hk:
        rows = hk_rows(reader, features, matchings, args.work)
    for name in ([] if args.hk or args.features else args.sets.split(",")):
        root = args.work / name
        if not (root / "sheet" / "data.yaml").is_file():
            write_sheets(root / "sheet", args.sheets, 7, ART, name)
        if not (root / "hands" / "data.yaml").is_file():
            write_dataset(root / "hands", args.photos, args.seed, ART, 640, 1, sets=[name])
        profile, errors, seconds = sheet_profile(reader, features, root / "sheet")
        row = {"set": name, "sheet_errors": errors, "create_s": round(seconds, 2),
               "without": read_all(reader, root / "hands" / "data.yaml")[0]}
        if profile is not None:
            for matching in matchings:
                row[f"with T={matching.temperature} U={matching.unmatched}"] = read_all(
                    with_profile(reader, profile, matching), root / "hands" / "data.yaml")[0]
            if args.timing:
                row["read_ms"] = read_times(reader, with_profile(reader, profile, matchings[0]),
                                            root / "hands" / "data.yaml", args.timing)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
