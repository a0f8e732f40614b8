"""Real training photos turned half round, as if taken from across the table (``mjlens train --upside-down``).

A tile seen from across the table shows its body on the other side of its face, and the detector, which learnt
mostly from the player's own side, boxed such tiles worse: on hk-photos ``valid`` turned half round it read 10 hand
photos fewer for its boxes alone (models/README.md, "Nearly square boxes"). A half turn moves every YOLO box
exactly, so each photo and its labels give a second, upside-down training example at no labelling cost.
"""

from __future__ import annotations

from pathlib import Path

import cv2

JPEG_QUALITY = 95
SUFFIX = "_upside_down"


def upside_down_labels(text: str) -> str:
    """YOLO label lines (class cx cy w h, normalised) of the photo turned half round: the centre mirrored both ways,
    the size unchanged."""
    lines = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 5:
            lines.append(f"{fields[0]} {1 - float(fields[1]):.6f} {1 - float(fields[2]):.6f} {fields[3]} {fields[4]}")
    return "".join(line + "\n" for line in lines)


def write_upside_down(split: Path, out: Path) -> Path:
    """Every photo of ``split`` (``images/`` with ``labels/`` beside it) turned half round, with its labels, into
    ``out/images`` and ``out/labels``; returns ``out/images`` (an extra training folder)."""
    images, labels = out / "images", out / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    for image_path in sorted((split / "images").iterdir()):
        bgr = cv2.imread(str(image_path))
        if bgr is None:
            continue
        name = image_path.stem + SUFFIX
        turned = cv2.rotate(bgr, cv2.ROTATE_180)
        cv2.imwrite(str(images / f"{name}.jpg"), turned, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        label_path = split / "labels" / f"{image_path.stem}.txt"
        text = label_path.read_text() if label_path.is_file() else ""
        (labels / f"{name}.txt").write_text(upside_down_labels(text))
    return images
