"""Real training photos turned, their labels with them (``mjlens train --upside-down``, ``--quarter-turned``).

A tile seen from across the table shows its body on the other side of its face, and the detector, which learnt
mostly from the player's own side, boxed such tiles worse: on hk-photos ``valid`` turned half round it read 10 hand
photos fewer for its boxes alone (docs/experiments/training-turned-photos.md). A photo whose EXIF orientation was lost
lies a quarter turn off, its tiles on their side, which the real photos hardly show. A turn by quarters moves every
YOLO box exactly, so each photo and its labels give a turned training example at no labelling cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

JPEG_QUALITY = 95
#: what each kind of turn adds to the training set: the quarter turns clockwise of each photo, taken in turn (a
#: quarter turn each way, alternately, shows the tiles on either side at the cost of one copy of each photo)
TURNS: dict[str, tuple[int, ...]] = {"upside_down": (2,), "quarter_turned": (1, 3)}


def turned_labels(text: str, turn: int) -> str:
    """YOLO label lines (class cx cy w h, normalised) of the photo turned ``turn`` quarter turns clockwise."""
    lines = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 5:
            continue
        code, cx, cy, w, h = fields[0], float(fields[1]), float(fields[2]), fields[3], fields[4]
        for _ in range(turn % 4):  # clockwise: the left edge becomes the top, the bottom the left
            cx, cy, w, h = 1 - cy, cx, h, w
        lines.append(f"{code} {cx:.6f} {cy:.6f} {w} {h}")
    return "".join(line + "\n" for line in lines)


def write_turned(split: Path, out: Path, turns: Sequence[int], suffix: str) -> Path:
    """Every photo of ``split`` (``images/`` with ``labels/`` beside it) turned by ``turns`` quarter turns
    clockwise, photo by photo in turn, with its labels, into ``out/images`` and ``out/labels`` as ``NAME{suffix}``;
    returns ``out/images`` (an extra training folder)."""
    import cv2  # loaded only when writing: `mjlens train --help` and the CLI's start-up need none of it

    from mjlens.vision.runtime.classifier import QUARTER_TURNS

    images, labels = out / "images", out / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    written = 0
    for image_path in sorted((split / "images").iterdir()):
        bgr = cv2.imread(str(image_path))
        if bgr is None:
            continue
        turn = turns[written % len(turns)] % 4
        written += 1
        name = image_path.stem + suffix
        cv2.imwrite(str(images / f"{name}.jpg"), cv2.rotate(bgr, QUARTER_TURNS[turn]) if turn else bgr,
                    [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        label_path = split / "labels" / f"{image_path.stem}.txt"
        text = label_path.read_text() if label_path.is_file() else ""
        (labels / f"{name}.txt").write_text(turned_labels(text, turn))
    return images


def write_kind(split: Path, out: Path, kind: str) -> Path:
    """``write_turned`` for one kind of :data:`TURNS`, named after it."""
    return write_turned(split, out, TURNS[kind], "_" + kind)
