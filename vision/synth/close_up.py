"""Close-ups of a single tile: a player showing one tile (a flower, the winning tile) to the camera.

The tile is rendered on the table as any photo's tiles are (``vision.synth.render``), with four other tiles far to
its corners so that the camera frames a stretch of table around it, nearly level and from the player's side; the
picture is then cut round the tile so that it fills ``FILL`` of the frame (its box over the frame, on the side it
fills most) and enlarged, as a phone held close shows it. Some are held: a skin-coloured hand behind the tile and a
thumb over one edge. Each photo draws from its own generator seeded with (seed, index).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from mjlens.scoring.tiles import ALL_CODES, BONUS_CODES
from mjlens.vision.synth import photo
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.generate import write_data_yaml, yolo_label_text
from mjlens.vision.synth.render import render
from mjlens.vision.synth.scene import TILE_H, Placed, Scene

#: The share of the frame the tile fills, on the side it fills most.
FILL = (0.4, 0.95)
#: The long side of a close-up, in pixels.
SIDE = 1024
#: Share of close-ups whose tile is a flower or a season (the tile a player shows most).
P_BONUS = 0.5
#: Share of close-ups held in a hand rather than lying on the table.
P_HELD = 0.4
#: How far the tile is turned on the table (degrees, standard deviation): slightly, as a hand holds it.
TURN_SD = 8.0
#: The four other tiles lie this many tile widths from the tile, to each corner: beyond the cut however loose.
CORNER = 3.5
ASPECTS = ((3, 4), (4, 3), (1, 1), (9, 16))


@dataclass(frozen=True)
class CloseUp:
    image: np.ndarray  # BGR uint8
    code: str
    box: tuple[float, float, float, float]  # the tile's box in pixels of ``image``
    fill: float  # the share of the frame the tile fills (``FILL``)
    held: bool


def close_up_scene(rng: np.random.Generator, code: str) -> Scene:
    """The tile ``code`` at the origin, slightly turned, and four other tiles at the corners far from it."""
    scene = Scene()
    scene.groups.append({"role": "close-up", "tiles": list(range(5))})
    scene.tiles.append(Placed(code, code, 0.0, 0.0, float(rng.normal(0, TURN_SD)), 0))
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        other = ALL_CODES[int(rng.integers(len(ALL_CODES)))]
        scene.tiles.append(Placed(other, other, dx * CORNER, dy * CORNER * TILE_H, float(rng.normal(0, 3)), 0))
    return scene


def _window(rng: np.random.Generator, box, width: int, height: int, fill: float) -> tuple[int, int, int, int]:
    """A window of the picture round ``box`` that the box fills ``fill`` of (at most: the window stays inside the
    picture), of one of ``ASPECTS``, the tile off its centre a little."""
    x1, y1, x2, y2 = box
    aw, ah = ASPECTS[int(rng.integers(len(ASPECTS)))]
    scale = max((x2 - x1) / aw, (y2 - y1) / ah) / fill  # window = (aw, ah) * scale
    scale = min(scale, width / aw, height / ah)
    ww, wh = aw * scale, ah * scale
    cx = (x1 + x2) / 2 + rng.uniform(-0.5, 0.5) * max(ww - (x2 - x1), 0) * 0.5
    cy = (y1 + y2) / 2 + rng.uniform(-0.5, 0.5) * max(wh - (y2 - y1), 0) * 0.5
    left = float(np.clip(cx - ww / 2, 0, width - ww))
    top = float(np.clip(cy - wh / 2, 0, height - wh))
    return int(round(left)), int(round(top)), int(round(left + ww)), int(round(top + wh))


def _held(rng: np.random.Generator, image: np.ndarray, box) -> np.ndarray:
    """The picture (float) with a hand behind the tile and a thumb over one of its side edges."""
    height, width = image.shape[:2]
    x1, y1, x2, y2 = box
    colour = photo.SKIN[int(rng.integers(len(photo.SKIN)))]
    palm = np.zeros((height, width), np.uint8)
    centre = (int((x1 + x2) / 2 + rng.normal(0, 0.2) * (x2 - x1)), int(y2 + rng.uniform(0, 0.3) * (y2 - y1)))
    axes = (int((x2 - x1) * rng.uniform(0.9, 1.6)), int((y2 - y1) * rng.uniform(0.8, 1.3)))
    cv2.ellipse(palm, centre, axes, float(rng.normal(0, 15)), 0, 360, 255, -1, cv2.LINE_AA)
    palm[max(int(y1), 0):int(y2), max(int(x1), 0):int(x2)] = 0  # behind the tile
    out = photo.paint(image, palm, colour, rng)
    thumb = np.zeros((height, width), np.uint8)
    side = x1 if rng.random() < 0.5 else x2
    reach = (x2 - x1) * rng.uniform(0.08, 0.18)
    tip = (int(side + (reach if side == x1 else -reach)), int(y1 + (y2 - y1) * rng.uniform(0.45, 0.8)))
    base = (int(side + (-1 if side == x1 else 1) * (x2 - x1) * 0.6), int(y2 + (y2 - y1) * 0.4))
    cv2.line(thumb, base, tip, 255, max(int((x2 - x1) * 0.22), 3), cv2.LINE_AA)
    return photo.paint(out, thumb, colour, rng)


def close_up(rng: np.random.Generator, art: ArtBank, code: str | None = None, size: int = SIDE) -> CloseUp:
    """One close-up of ``code`` (by default drawn: a flower or season ``P_BONUS`` of the time) in one of ``art``'s
    sets."""
    if code is None:
        codes = BONUS_CODES if rng.random() < P_BONUS else [c for c in ALL_CODES if c not in BONUS_CODES]
        code = sorted(codes)[int(rng.integers(len(codes)))]
    scene = close_up_scene(rng, code)
    rendered = render(rng, scene, art, 1280, upright=True)
    height, width = rendered.image.shape[:2]
    fill = float(rng.uniform(*FILL))
    left, top, right, bottom = _window(rng, rendered.boxes[0], width, height, fill)
    x1, y1, x2, y2 = rendered.boxes[0]
    box = (x1 - left, y1 - top, x2 - left, y2 - top)
    image = photo.lighting(rng, rendered.image[top:bottom, left:right])
    held = bool(rng.random() < P_HELD)
    if held:
        image = _held(rng, image, box)
    image = photo.degrade(rng, image)
    factor = size / max(image.shape[:2])
    image = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
    box = tuple(float(v * factor) for v in box)
    filled = max((box[2] - box[0]) / image.shape[1], (box[3] - box[1]) / image.shape[0])
    return CloseUp(image, code, box, filled, held)  # type: ignore[arg-type]


def write_close_ups(out: Path, n: int, seed: int, art_dir: Path, sets: list[str] | None = None,
                    size: int = SIDE) -> list[CloseUp]:
    """Write ``n`` close-ups with YOLO labels (the one tile) and data.yaml under ``out``; each set of ``sets`` (every
    set by default) drawn as often."""
    out = Path(out).resolve()
    for sub in ("images", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    art = ArtBank(art_dir, sets, even=True)
    made = []
    for index in range(n):
        shot = close_up(np.random.default_rng([seed, index]), art, size=size)
        stem = f"close_up_{seed}_{index:04d}"
        height, width = shot.image.shape[:2]
        cv2.imwrite(str(out / "images" / f"{stem}.jpg"), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (out / "labels" / f"{stem}.txt").write_text(yolo_label_text([(shot.code, *shot.box)], width, height))
        made.append(shot)
    write_data_yaml(out, f"python -m mjlens.vision.synth.close_up --n {n} --seed {seed}")
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write synthetic close-ups of a single tile (a YOLO dataset).")
    parser.add_argument("--art", type=Path, required=True, help="the tile-art folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sets", help="comma-separated art sets (default: every set found)")
    args = parser.parse_args(argv)
    write_close_ups(args.out, args.n, args.seed, args.art, args.sets.split(",") if args.sets else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
