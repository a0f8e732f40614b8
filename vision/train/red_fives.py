"""Learn the red-five judge (``vision.reading.red_fives``) from tile art: red fives against plain ones.

Red fives: the art families that draw them (``0m 0p 0s``), and every other set's fives with their ink recoloured
red. Plain fives: every set's ``5m 5p 5s`` as drawn, the Chinese 5p and 5s with their red centres among them, each
face put through a photo's troubles (scale, blur, colour cast, light, noise, JPEG) before its colours are read; and
the fives of real labelled photos (``--photos``, a YOLO split of plain-five sets), each box read a few times, shifted.
The sets listed in ``--hold-out`` are kept out of the fit and choose nothing but are reported; a five's threshold is
the chance of red that all but 0.5 % of the fitted sets' plain fives stay under, raised by a margin.

    python -m mjlens.vision.train.red_fives ../shared/datasets/tile-art \
        --photos ../shared/datasets/hk-photos/train --out models/mjlens-red-fives.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES, RED_FIVES
from mjlens.vision.reading.red_fives import (
    DARK,
    FEATURES,
    INK_DISTANCE,
    INNER,
    RedFiveJudge,
    colour_features,
    face_colour_of,
    inner_crop,
)

FIVES = tuple(RED_FIVES.values())
#: Held out: one set of each kind the judge must not be fitted to (a black face, a red face: their ink is not told
#: from their face as a light face's is) and three light-faced families, to report on.
DEFAULT_HOLD_OUT = ("fluffy_black", "kmj_jade", "xmj_thick", "gnome_postmodern", "bradfield_numbered")
#: The threshold: the chance of red that this share of the fitted sets' plain fives stays under, plus a margin.
PLAIN_QUANTILE = 0.995
THRESHOLD_MARGIN = 0.02
#: A red five's ink may be this dark at most: the share of dark ink that 90 % of the fitted red fives stay under,
#: plus a margin (the rest are art whose outlines are drawn black).
RED_DARK_QUANTILE = 0.90
DARK_MARGIN = 0.04


def load_face(path: Path) -> np.ndarray:
    """An art tile as BGR over a grey table (its transparent corners filled)."""
    rgba = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if rgba is None:
        raise ValueError(f"{path}: not an image")
    if rgba.ndim == 2:
        rgba = cv2.cvtColor(rgba, cv2.COLOR_GRAY2BGRA)
    if rgba.shape[2] == 3:
        return rgba
    alpha = rgba[..., 3:4].astype(np.float32) / 255.0
    return (rgba[..., :3].astype(np.float32) * alpha + 110.0 * (1 - alpha)).astype(np.uint8)


def recoloured_red(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The face with its ink (``balanced_ink``, read in the face's middle) turned red, dark ink a deeper red."""
    h, w = bgr.shape[:2]
    middle = bgr[int(h * INNER):h - int(h * INNER), int(w * INNER):w - int(w * INNER)]
    face_colour = face_colour_of(middle)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    face_lab = cv2.cvtColor(face_colour.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2LAB).astype(np.float32)
    ink = np.linalg.norm(lab - face_lab, axis=2) > INK_DISTANCE
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    value = hsv[..., 2].astype(np.float32)
    hsv[..., 0][ink] = rng.integers(0, 6) if rng.random() < 0.8 else rng.integers(172, 180)
    hsv[..., 1][ink] = int(rng.integers(170, 240))
    hsv[..., 2][ink] = np.clip(140 + 0.4 * value[ink] + rng.integers(-20, 20), 90, 240).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def as_photographed(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The face as a phone photo shows it: small, blurred, lit and cast, noisy, JPEG-compressed."""
    height = int(rng.integers(22, 110))
    width = max(4, int(round(bgr.shape[1] * height / bgr.shape[0])))
    face = cv2.resize(bgr, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    if rng.random() < 0.5:
        face = cv2.GaussianBlur(face, (0, 0), float(rng.uniform(0.3, 1.2)))
    cast = rng.normal(1.0, 0.07, 3) * rng.uniform(0.55, 1.15)
    face = face * cast + rng.normal(0, rng.uniform(0, 6), face.shape)
    face = 255.0 * (np.clip(face, 0, 255) / 255.0) ** rng.uniform(0.8, 1.25)
    face = np.clip(face, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", face, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
    face = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    if rng.random() < 0.25:  # lying on its side
        face = np.ascontiguousarray(np.rot90(face, int(rng.choice((1, 3)))))
    return face


def samples(art: Path, sets: list[str], copies: int, rng: np.random.Generator
            ) -> dict[str, tuple[np.ndarray, np.ndarray, list[str]]]:
    """Per five: features (N x len(FEATURES)), red labels (N) and the set each sample came from."""
    rows: dict[str, tuple[list, list, list]] = {five: ([], [], []) for five in FIVES}
    for name in sets:
        for red_code, five in RED_FIVES.items():
            plain_path, red_path = art / name / f"{five}.png", art / name / f"{red_code}.png"
            faces = []
            if plain_path.is_file():
                plain = load_face(plain_path)
                faces += [(plain, 0)] * copies
                if not red_path.is_file():
                    faces += [(recoloured_red(plain, rng), 1) for _ in range(copies)]
            if red_path.is_file():
                faces += [(load_face(red_path), 1)] * (2 * copies)
            for face, label in faces:
                crop = inner_crop(as_photographed(face, rng), (0, 0, *as_size(face)))
                if crop is None:
                    continue
                feats, labels, origin = rows[five]
                feats.append(colour_features(crop))
                labels.append(label)
                origin.append(name)
    return {five: (np.array(f, np.float32), np.array(y, np.float32), o) for five, (f, y, o) in rows.items()}


def photo_fives(split: Path, copies: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per five, the features of the plain fives labelled in a YOLO split's photos (``images/``, ``labels/``), each
    box read ``copies`` times, shifted and scaled by up to a tenth of its size as a detector's box is."""
    class_of = {DETECTOR_CLASSES.index(five): five for five in FIVES}
    feats: dict[str, list] = {five: [] for five in FIVES}
    for labels in sorted((split / "labels").glob("*.txt")):
        rows = [line.split() for line in labels.read_text().splitlines()]
        rows = [row for row in rows if row and int(row[0]) in class_of]
        images = [p for p in (split / "images").glob(labels.stem + ".*")]
        if not rows or not images:
            continue
        bgr = cv2.imread(str(images[0]))
        if bgr is None:
            continue
        height, width = bgr.shape[:2]
        for row in rows:
            cx, cy, bw, bh = (float(v) for v in row[1:5])
            for _ in range(copies):
                jx, jy, js = rng.uniform(-0.1, 0.1, 3)
                w, h = bw * width * (1 + js), bh * height * (1 + js)
                x, y = (cx + jx * bw) * width, (cy + jy * bh) * height
                crop = inner_crop(bgr, (x - w / 2, y - h / 2, x + w / 2, y + h / 2))
                if crop is not None:
                    feats[class_of[int(row[0])]].append(colour_features(crop))
    return {five: np.array(f, np.float32).reshape(-1, len(FEATURES)) for five, f in feats.items()}


def as_size(face: np.ndarray) -> tuple[int, int]:
    return face.shape[1], face.shape[0]


def fit_logistic(x: np.ndarray, y: np.ndarray, steps: int = 3000, lr: float = 0.5, l2: float = 1e-3) -> np.ndarray:
    """Weights (and a bias, last) of a logistic regression by gradient descent, classes weighed equally."""
    xb = np.hstack([x, np.ones((len(x), 1), np.float32)])
    weight = np.where(y > 0, 0.5 / max(y.sum(), 1), 0.5 / max((1 - y).sum(), 1))
    w = np.zeros(xb.shape[1], np.float64)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        w -= lr * (xb.T @ ((p - y) * weight) + l2 * np.r_[w[:-1], 0.0])
    return w.astype(np.float32)


def train(art: Path, hold_out: tuple[str, ...], copies: int, seed: int,
          photos: Path | None = None, photo_copies: int = 3) -> tuple[RedFiveJudge, dict]:
    rng = np.random.default_rng(seed)
    sets = sorted(p.name for p in art.iterdir() if (p / "5p.png").is_file())
    fitted = [s for s in sets if s not in hold_out]
    fit_rows, held_rows = samples(art, fitted, copies, rng), samples(art, [s for s in sets if s in hold_out],
                                                                     copies, rng)
    if photos is not None:
        for five, feats in photo_fives(photos, photo_copies, rng).items():
            x, y, origin = fit_rows[five]
            fit_rows[five] = (np.vstack([x, feats]), np.r_[y, np.zeros(len(feats), np.float32)],
                              origin + [photos.name] * len(feats))
    weights = {five: fit_logistic(*fit_rows[five][:2]) for five in FIVES}
    max_dark = {five: round(float(np.quantile(fit_rows[five][0][fit_rows[five][1] > 0, DARK], RED_DARK_QUANTILE))
                            + DARK_MARGIN, 4) for five in FIVES}
    provisional = RedFiveJudge(weights, dict.fromkeys(FIVES, 0.5), max_dark)
    thresholds = {}
    for five in FIVES:
        # the threshold is set over the plain fives the dark-ink rule lets through, the only ones it can misread
        plain = [provisional.chance(five, f) for f, y in zip(*fit_rows[five][:2], strict=True)
                 if y == 0 and f[DARK] <= max_dark[five]] or [0.5]
        thresholds[five] = round(min(0.99, max(0.5, float(np.quantile(plain, PLAIN_QUANTILE)) + THRESHOLD_MARGIN)), 4)
    judge = RedFiveJudge(weights, thresholds, max_dark)
    report = {"sets_fitted": fitted, "sets_held_out": [s for s in sets if s in hold_out],
              "thresholds": judge.thresholds,
              "fitted": figures(judge, fit_rows), "held_out": figures(judge, held_rows)}
    return judge, report


def figures(judge: RedFiveJudge, rows: dict) -> dict:
    """Per five: red fives read red (of how many) and plain fives read red (of how many)."""
    out = {}
    for five, (feats, labels, _origin) in rows.items():
        read_red = np.array([judge.is_red_features(five, f) for f in feats], bool)
        out[five] = {"red": int(labels.sum()), "red_read_red": int((read_red & (labels > 0)).sum()),
                     "plain": int((labels == 0).sum()), "plain_read_red": int((read_red & (labels == 0)).sum())}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="learn the red-five judge from tile art")
    parser.add_argument("art", type=Path, help="the tile-art folder (one folder a set, one PNG a code)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the judge (JSON)")
    parser.add_argument("--hold-out", nargs="*", default=list(DEFAULT_HOLD_OUT), metavar="SET",
                        help="art sets kept out of the fit and reported apart (default: %(default)s)")
    parser.add_argument("--photos", type=Path, metavar="SPLIT",
                        help="a YOLO split (images/, labels/) of real photos whose fives are all plain")
    parser.add_argument("--copies", type=int, default=40, help="photos of each face (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="(default: %(default)s)")
    args = parser.parse_args(argv)
    judge, report = train(args.art, tuple(args.hold_out), args.copies, args.seed, args.photos)
    args.out.write_text(json.dumps(judge.to_json(), indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
