"""Synthetic calibration sheets: one art set laid out face up in the rows of ``vision.profile.layout.SHEET_ROWS``,
photographed nearly level from the player's side, as a player photographs their set to make a profile.

``write_sheets`` writes them as a YOLO dataset (images/, labels/, data.yaml), so a sheet can feed both
``mjlens profile create`` (the photo) and ``--from-labels`` (its labels).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from mjlens.vision.profile.layout import SHEET_ROWS
from mjlens.vision.synth import photo
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.generate import write_data_yaml, yolo_label_text
from mjlens.vision.synth.render import render
from mjlens.vision.synth.scene import TILE_H, Placed, Scene

#: Gaps between tiles of a row and between rows, in tile widths: a sheet is laid out by hand, neither touching nor
#: far apart.
TILE_GAP, ROW_GAP = (0.04, 0.25), (0.35, 0.9)


def sheet_scene(rng: np.random.Generator, codes: set[str]) -> Scene:
    """The rows of ``SHEET_ROWS`` whose every code is in ``codes``, laid out left-aligned, top to bottom."""
    scene = Scene()
    y = 0.0
    for row in SHEET_ROWS:
        if not set(row) <= codes:
            continue
        scene.groups.append({"role": "sheet", "tiles": []})
        x = float(rng.normal(0, 0.1))
        for code in row:
            scene.tiles.append(Placed(code, code, x + 0.5, y + float(rng.normal(0, 0.03)), float(rng.normal(0, 1.0)),
                                      len(scene.groups) - 1))
            scene.groups[-1]["tiles"].append(len(scene.tiles) - 1)
            x += 1.0 + float(rng.uniform(*TILE_GAP))
        y += TILE_H + float(rng.uniform(*ROW_GAP))
    return scene


def sheet_photo(rng: np.random.Generator, art: ArtBank, size: int = 1024
                ) -> tuple[bytes, int, int, list[tuple[str, float, float, float, float]]]:
    """One JPEG of the sheet of ``art``'s one set and its labels (code, x1, y1, x2, y2 in pixels)."""
    scene = sheet_scene(rng, set(art.faces[art.names[0]]))
    rendered = render(rng, scene, art, size, upright=True)
    img = photo.degrade(rng, photo.lighting(rng, rendered.image))
    height, width = img.shape[:2]
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 96))])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    labels = []
    for i, tile in enumerate(scene.tiles):
        x1, y1, x2, y2 = rendered.boxes[i]
        labels.append((tile.shown, max(x1, 0.0), max(y1, 0.0), min(x2, width), min(y2, height)))
    return buf.tobytes(), width, height, labels


def write_sheets(out: Path, n: int, seed: int, art_dir: Path, set_name: str, size: int = 1024) -> int:
    """Write ``n`` sheets of ``set_name`` with YOLO labels and data.yaml under ``out``; returns the box count."""
    out = Path(out).resolve()
    for sub in ("images", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    art = ArtBank(art_dir, [set_name])
    total = 0
    for index in range(n):
        jpeg, width, height, labels = sheet_photo(np.random.default_rng([seed, index]), art, size)
        stem = f"sheet_{set_name}_{seed}_{index:03d}"
        (out / "images" / f"{stem}.jpg").write_bytes(jpeg)
        (out / "labels" / f"{stem}.txt").write_text(yolo_label_text(labels, width, height))
        total += len(labels)
    write_data_yaml(out, f"mjlens synth --sheet --set {set_name} --n {n} --seed {seed} --size {size}")
    return total
