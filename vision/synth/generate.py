"""One synthetic photo and its labels, and a whole YOLO dataset of them.

Every image draws from its own generator seeded with (seed, index), so a dataset is the same byte for byte
whatever the number of worker processes, and any single image can be regenerated alone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.synth import photo
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.hands import TilePool, random_hand
from mjlens.vision.synth.piles import Piles, add_piles, covered_shares
from mjlens.vision.synth.render import render
from mjlens.vision.synth.restyle import draw_style
from mjlens.vision.synth.scene import Habits, add_background, add_clutter, layout_hand, stand_row

CLASS_INDEX = {c: i for i, c in enumerate(DETECTOR_CLASSES)}
#: Share of hands of 17 tiles (Taiwan 16-tile hands), of images with clutter, of images with an occluder.
P_TAIWAN, P_CLUTTER, P_OCCLUDER = 0.12, 0.55, 0.15
P_STRETCH = 0.2  # share of pictures squashed to a square
MIN_VISIBLE = 0.45  # a clutter tile cut by the frame or hidden under more than this is not labelled
MAX_HAND_COVER = 0.25  # an occluder may hide at most this much of any tile of the hand
HABIT_STREAM = 1  # the table habits' generator: seeded with (seed, index, HABIT_STREAM)
RESTYLE_STREAM = 2  # the faces' printing (restyle.py): seeded with (seed, index, RESTYLE_STREAM)
STACK_STREAM = 3  # which exposed kongs are stacked (a table habit): seeded with (seed, index, STACK_STREAM)
PILE_STREAM = 4  # heaps and tiles on their side (piles.py): seeded with (seed, index, PILE_STREAM)
STAND_STREAM = 5  # whether the hand stands up: seeded with (seed, index, STAND_STREAM)


@dataclass
class Sample:
    jpeg: bytes
    width: int
    height: int
    labels: list[tuple[str, float, float, float, float]]  # code, x1, y1, x2, y2 in pixels
    record: dict  # the ground truth hand and its groups (tile indices refer to ``labels``)


def generate_one(seed: int, index: int, art: ArtBank, size: int = 640, habits: Habits | None = None,
                 restyle: float = 0.0, piles: Piles | None = None, standing: float = 0.0) -> Sample:
    """One photo; with ``habits``, the table habits of real photos too (scene.py); with ``restyle``, that share of
    photos shows its set printed another way (restyle.py); with ``piles``, heaps and tiles on their side away from
    the hand (piles.py); with ``standing``, that share of photos shows the concealed row standing up
    (scene.stand_row). Each is drawn from a generator of its own, so that the photo is otherwise the one the same
    seed and index give without them."""
    rng = np.random.default_rng([seed, index])
    style_rng = np.random.default_rng([seed, index, RESTYLE_STREAM])
    style = draw_style(style_rng) if restyle > 0 and style_rng.random() < restyle else None
    habit_rng = np.random.default_rng([seed, index, HABIT_STREAM]) if habits is not None else None
    stack_rng = np.random.default_rng([seed, index, STACK_STREAM]) if habits is not None else None
    pool = TilePool()
    shown = random_hand(rng, pool, taiwan=bool(rng.random() < P_TAIWAN))
    if not art.has_bonus():  # a set without flowers and seasons (a player's own table, --set): none on the table
        shown.flowers = []
        pool.bonus.clear()
    scene = layout_hand(rng, shown, habits, habit_rng, stack_rng)
    if standing > 0 and np.random.default_rng([seed, index, STAND_STREAM]).random() < standing:
        stand_row(scene)
    if rng.random() < P_CLUTTER:
        add_clutter(rng, scene, pool)
    if habits is not None and habit_rng is not None:
        add_background(habit_rng, scene, pool, habits)
    if piles is not None:
        add_piles(np.random.default_rng([seed, index, PILE_STREAM]), scene, pool, piles)
    rendered = render(rng, scene, art, size, style=style)
    img = photo.lighting(rng, rendered.image)
    height, width = img.shape[:2]
    in_hand = {i for i, t in enumerate(scene.tiles) if scene.groups[t.group]["role"] != "other"}
    hidden: dict[int, float] = covered_shares(scene)  # tiles of a heap under others
    close_up = any(not (0 <= b[0] and 0 <= b[1] and b[2] <= width and b[3] <= height)
                   for i, b in rendered.boxes.items() if i in in_hand)
    if rng.random() < P_OCCLUDER:
        for _ in range(5):
            mask, colour = photo.occluder(rng, width, height)
            cover = {i: _coverage(mask, box) for i, box in rendered.boxes.items()}
            if all(cover[i] <= MAX_HAND_COVER for i in in_hand):
                img = photo.paint(img, mask, colour, rng)
                hidden = {i: max(c, hidden.get(i, 0.0)) for i, c in cover.items()}
                break
    img = photo.degrade(rng, img)
    sx = sy = 1.0
    if width != height and rng.random() < P_STRETCH:
        # squashed to a square, as some published photo sets are (and as a careless resize does)
        side = max(width, height)
        sx, sy = side / width, side / height
        img = cv2.resize(img, (side, side), interpolation=cv2.INTER_LINEAR)
    quality = int(rng.integers(50, 96))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")

    labels: list[tuple[str, float, float, float, float]] = []
    label_of: dict[int, int] = {}
    for i, tile in enumerate(scene.tiles):
        if i not in rendered.boxes:  # a tile on its side: no face to read
            continue
        x1, y1, x2, y2 = rendered.boxes[i]
        cx1, cy1, cx2, cy2 = max(x1, 0), max(y1, 0), min(x2, width), min(y2, height)
        if cx2 - cx1 < 3 or cy2 - cy1 < 3:
            continue
        visible = (cx2 - cx1) * (cy2 - cy1) / max((x2 - x1) * (y2 - y1), 1e-6) * (1 - hidden.get(i, 0.0))
        if visible < (MIN_VISIBLE if i not in in_hand or close_up else 0.0):
            continue
        label_of[i] = len(labels)
        labels.append((tile.shown, cx1 * sx, cy1 * sy, cx2 * sx, cy2 * sy))
    groups = []
    for g in scene.groups:
        members = [label_of[i] for i in g["tiles"] if i in label_of]
        if members:
            groups.append({**{k: v for k, v in g.items() if k != "tiles"}, "tiles": members})
    complete = not close_up and all(i in label_of for i in in_hand)
    out_w, out_h = int(round(width * sx)), int(round(height * sy))
    record = {"hand": scene.hand, "groups": groups, "complete": complete, "width": out_w, "height": out_h}
    return Sample(buf.tobytes(), out_w, out_h, labels, record)


def _coverage(mask: np.ndarray, box) -> float:
    h, w = mask.shape
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 <= x1 or y2 <= y1:
        return 0.0
    return float(mask[y1:y2, x1:x2].mean()) / 255.0


def yolo_lines(sample: Sample) -> str:
    """The label file: class, centre x, centre y, width, height, all relative to the picture size."""
    return yolo_label_text(sample.labels, sample.width, sample.height)


def yolo_label_text(labels: Iterable[tuple[str, float, float, float, float]], width: int, height: int) -> str:
    """A YOLO label file of ``labels`` (code, x1, y1, x2, y2 in pixels of a ``width`` x ``height`` picture)."""
    out = []
    for code, x1, y1, x2, y2 in labels:
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        bw, bh = (x2 - x1) / width, (y2 - y1) / height
        out.append(f"{CLASS_INDEX[code]} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
    return "\n".join(out) + ("\n" if out else "")


_ART: ArtBank | None = None


def _init_worker(art_dir: str, sets: list[str] | None = None, even: bool = False) -> None:
    global _ART
    _ART = ArtBank(Path(art_dir), sets, even)


def _write_one(job: tuple[int, int, int, str, bool, float, bool, float]) -> int:
    seed, index, size, out, habits, restyle, piles, standing = job
    assert _ART is not None
    sample = generate_one(seed, index, _ART, size, Habits() if habits else None, restyle, Piles() if piles else None,
                          standing)
    stem = f"synth_{seed}_{index:06d}"
    root = Path(out)
    (root / "images" / f"{stem}.jpg").write_bytes(sample.jpeg)
    (root / "labels" / f"{stem}.txt").write_text(yolo_lines(sample))
    write_hand_record(root, stem, sample.labels, sample.record)
    return len(sample.labels)


def write_hand_record(root: Path, stem: str, labels, record: dict) -> None:
    """``root/hands/<stem>.json``: the photo's labels and its ground-truth hand (``Sample.record``)."""
    whole = {"image": f"images/{stem}.jpg", "labels": [
        {"code": c, "box": [round(v, 2) for v in (x1, y1, x2, y2)]} for c, x1, y1, x2, y2 in labels
    ], **record}
    (root / "hands" / f"{stem}.json").write_text(json.dumps(whole, separators=(",", ":")))


def write_dataset(out: Path, n: int, seed: int, art_dir: Path, size: int = 640, workers: int = 1,
                  progress=None, sets: list[str] | None = None, even: bool = False, habits: bool = False,
                  restyle: float = 0.0, piles: bool = False, standing: float = 0.0) -> int:
    """Write ``n`` images with YOLO labels, ground-truth hands and data.yaml under ``out``; returns the box count.
    ``sets``: draw faces from these art sets only (one set: every photo shows that set, as a player's own table);
    ``even``: each of them as often; ``habits``: scenes show the table habits of real photos (scene.Habits);
    ``restyle``: that share of photos shows its set printed another way (restyle.FaceStyle); ``piles``: heaps and
    tiles on their side away from the hand (piles.Piles); ``standing``: that share of photos shows the concealed row
    standing up (scene.stand_row)."""
    out = Path(out).resolve()
    for sub in ("images", "labels", "hands"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    ArtBank(art_dir, sets, even)  # fail early, in this process, when the art is missing
    jobs = [(seed, i, size, str(out), habits, restyle, piles, standing) for i in range(n)]
    total = 0
    if workers <= 1:
        _init_worker(str(art_dir), sets, even)
        for count in map(_write_one, jobs):
            total += count
            if progress:
                progress()
    else:
        with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(str(art_dir), sets, even)) as pool:
            for count in pool.map(_write_one, jobs, chunksize=8):
                total += count
                if progress:
                    progress()
    made_by = (f"mjlens synth --n {n} --seed {seed} --size {size}" + (" --habits" if habits else "")
               + (" --piles" if piles else ""))
    write_data_yaml(out, made_by + (f" --restyle {restyle}" if restyle else "")
                    + (f" --standing {standing}" if standing else ""))
    return total


def write_data_yaml(out: Path, made_by: str) -> None:
    """``out/data.yaml``: the 43 classes, images/ as both splits."""
    names = "\n".join(f"  {i}: '{c}'" for i, c in enumerate(DETECTOR_CLASSES))
    (out / "data.yaml").write_text(
        f"# synthetic mahjong photos: {made_by}\n"
        f"path: {out}\ntrain: images\nval: images\nnc: {len(DETECTOR_CLASSES)}\nnames:\n{names}\n"
    )


def default_workers() -> int:
    return max(1, min(4, (os.cpu_count() or 1) - 1))
