"""Red fives (riichi aka-dora): a tile read as a five is a red five when the ink of its face is red.

The crop classifier reads the 43 classes; a red five differs from its plain five only in colour, which the
classifier's training hardly sees (one art family draws red fives). So each tile read as ``5m 5p 5s`` is judged again
from its colours alone: the shares of the face's ink that are red, dark, green or blue, with a light face's colour
cast taken out first. A Chinese 5p or 5s with a red centre, or a 5m with a red 萬, is red in a part of its face only;
a red five's ink is red all over. The judge is a logistic regression a suit, learnt from tile art and real photos of
plain fives (``vision.train.red_fives``) and shipped as data (``models/mjlens-red-fives.json``); how it was measured:
``docs/experiments/red-fives.md``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from mjlens.i18n import msg
from mjlens.models import shipped
from mjlens.scoring.tiles import RED_FIVES
from mjlens.vision.runtime.detector import ModelError

JUDGE_FILE = "mjlens-red-fives.json"
#: Each suit's five and its red five: ``{"5m": "0m", ...}``.
RED_OF_FIVE = {five: red for red, five in RED_FIVES.items()}
#: The part of a tile's box the colours are read from: its middle, away from the table and the neighbours.
INNER = 0.15
FEATURES = ("red_of_ink", "least_red_cell", "red_cells", "black_of_ink", "green_blue_of_ink", "ink_of_face")
DARK = FEATURES.index("black_of_ink")
#: How far (in Lab units) a pixel's colour lies from the face's own colour to count as ink.
INK_DISTANCE = 40.0
GRID = 3
#: How much redder than the face (Lab a*, 8-bit units) a pixel of ink is to count as red.
RED_REDNESS = 10


def face_colour_of(bgr: np.ndarray) -> np.ndarray:
    """The colour of a tile's face (BGR): the median of its lightest 40 % of pixels."""
    pixels = bgr.reshape(-1, 3).astype(np.float32)
    light = pixels.sum(axis=1)
    return np.median(pixels[light >= np.percentile(light, 60)], axis=0)


def balanced_ink(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The face with a light face's colour cast taken out (it is white under the photo's light), and the mask of its
    ink: the pixels whose colour lies far from the face's own. The face's colour is the median of its lightest 40 %
    of pixels, since the ink of a five can cover half of it."""
    face_colour = face_colour_of(bgr)
    if face_colour.min() > 120 and face_colour.max() - face_colour.min() < 70:
        bgr = np.clip(bgr.astype(np.float32) * (235.0 / np.maximum(face_colour, 1.0)), 0, 255).astype(np.uint8)
        face_colour = np.full(3, 235.0)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    face_lab = cv2.cvtColor(face_colour.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2LAB).astype(np.float32)
    return bgr, np.linalg.norm(lab - face_lab, axis=2) > INK_DISTANCE


def colour_features(bgr: np.ndarray) -> np.ndarray:
    """The colour features of one tile's face (a BGR crop of the middle of the tile's box, standing up), in
    ``FEATURES`` order: the share of the ink that is red, over the whole face and in the least red of the cells of a
    3 x 3 grid that hold ink (a red five is red all over; a plain five red in a part at most), the share of inked
    cells mostly red, the shares of the ink that are dark and green or blue, and how much of the face is ink."""
    face, ink = balanced_ink(cv2.resize(bgr, (48, 63), interpolation=cv2.INTER_AREA))
    hsv = cv2.cvtColor(face, cv2.COLOR_BGR2HSV)
    hue, sat, val = (hsv[..., i].astype(np.int32) for i in range(3))
    # Red by how much redder than the face it is (Lab a*), not by saturation: a worn or dim red five is a dull red.
    redness = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)[..., 1].astype(np.int32)
    face_redness = float(np.median(redness[~ink])) if (~ink).any() else 128.0
    red = ink & (redness - face_redness > RED_REDNESS)
    red &= (sat > 25) & (val > 60) & ((hue <= 12) | (hue >= 160))
    black = ink & (val < 90)
    green_blue = ink & (sat > 40) & (val > 40) & (hue >= 35) & (hue <= 140)  # a Chinese five's green or blue ink
    inked = max(int(ink.sum()), 1)
    shares = []
    for rows in np.array_split(np.arange(face.shape[0]), GRID):
        for cols in np.array_split(np.arange(face.shape[1]), GRID):
            cell_ink = ink[np.ix_(rows, cols)].sum()
            if cell_ink >= 0.04 * len(rows) * len(cols):
                shares.append(red[np.ix_(rows, cols)].sum() / cell_ink)
    shares = shares or [0.0]
    return np.array([red.sum() / inked, min(shares), float(np.mean(np.array(shares) > 0.5)), black.sum() / inked,
                     green_blue.sum() / inked, inked / ink.size], np.float32)


def inner_crop(bgr: np.ndarray, box: Sequence[float]) -> np.ndarray | None:
    """The middle of a box (x1, y1, x2, y2 in pixels of ``bgr``); None where it holds no pixel."""
    x1, y1, x2, y2 = box
    dx, dy = (x2 - x1) * INNER, (y2 - y1) * INNER
    left, top = max(int(round(x1 + dx)), 0), max(int(round(y1 + dy)), 0)
    right, bottom = min(int(round(x2 - dx)), bgr.shape[1]), min(int(round(y2 - dy)), bgr.shape[0])
    if right - left < 2 or bottom - top < 2:
        return None
    crop = bgr[top:bottom, left:right]
    # A tile lying on its side: stand it up, so the face is read the same way whatever its turn.
    return np.ascontiguousarray(np.rot90(crop)) if crop.shape[1] > crop.shape[0] else crop


@dataclass(frozen=True)
class RedFiveJudge:
    """One logistic regression a five: ``weights[five]`` over ``FEATURES`` plus a bias; ``thresholds[five]``, the
    least chance of red at which that five is read red; ``max_dark[five]``, the most of its ink that may be dark (a
    red five's ink is red all over, a plain five's numerals or circles are dark)."""

    weights: dict[str, np.ndarray]
    thresholds: dict[str, float]
    max_dark: dict[str, float]

    def chance(self, five: str, features: np.ndarray) -> float:
        w = self.weights[five]
        return float(1.0 / (1.0 + np.exp(-(features @ w[:-1] + w[-1]))))

    def is_red_features(self, five: str, features: np.ndarray) -> bool:
        return (features[DARK] <= self.max_dark[five]) and self.chance(five, features) >= self.thresholds[five]

    def is_red(self, five: str, crop: np.ndarray) -> bool:
        return self.is_red_features(five, colour_features(crop))

    def red_tiles(self, bgr: np.ndarray, pixel_scale: float, codes: Sequence[str],
                  boxes: Sequence[Sequence[float]]) -> set[int]:
        """The indices of the tiles read as fives (``codes``) whose faces are red; ``boxes`` in photo pixels,
        ``pixel_scale`` the pixels of ``bgr`` per photo pixel."""
        red = set()
        for i, (code, box) in enumerate(zip(codes, boxes, strict=True)):
            if code in self.weights:
                crop = inner_crop(bgr, [v * pixel_scale for v in box])
                if crop is not None and self.is_red(code, crop):
                    red.add(i)
        return red

    def to_json(self) -> dict:
        return {"features": list(FEATURES), "thresholds": self.thresholds, "max_dark": self.max_dark,
                "weights": {five: [round(float(v), 5) for v in w] for five, w in self.weights.items()}}


def load_red_five_judge(path: str | Path | None = None) -> RedFiveJudge:
    """The judge saved at ``path`` (default: the shipped one); a missing or unreadable file is a ``ModelError``
    (``model_missing``, ``model_invalid``), as a missing model is."""
    path = Path(path or shipped(JUDGE_FILE))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if tuple(data.get("features", ())) != FEATURES:
            raise ValueError(f"it judges by other features than {', '.join(FEATURES)}")
        return RedFiveJudge({five: np.asarray(w, np.float32) for five, w in data["weights"].items()},
                            {five: float(t) for five, t in data["thresholds"].items()},
                            {five: float(t) for five, t in data["max_dark"].items()})
    except FileNotFoundError:
        raise ModelError("model_missing", msg("the red-five judge {path} is missing; reinstall mjlens",
                                              path=path)) from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise ModelError("model_invalid", msg("the red-five judge {path} cannot be read: {err}", path=path,
                                              err=err)) from None


def with_red_fives(recognition: dict[str, Any], red: set[int]) -> dict[str, Any]:
    """``recognition`` with the tiles at the indices ``red`` (of its ``tiles``, read as plain fives) named as red
    fives, in its tiles and in its hand alike: the layout reads plain codes, so each red five takes the place of one
    of its plain five in the hand's list of the tile's group (concealed, winning tile, or its meld)."""
    if not red:
        return recognition
    tiles = [dict(t) for t in recognition["tiles"]]
    hand = json.loads(json.dumps(recognition["hand"])) if recognition.get("hand") else None
    groups = recognition.get("groups", [])
    meld_groups = [g for g, group in enumerate(groups) if group.get("role") == "meld"]
    for i in sorted(red):
        five = tiles[i]["code"]
        if five not in RED_OF_FIVE:
            continue
        tiles[i]["code"] = RED_OF_FIVE[five]
        group = tiles[i].get("group")
        if hand is None or group is None:
            continue
        role = groups[group].get("role")
        if role == "concealed":
            _swap_one(hand["concealed"], five)
        elif role == "winning" and hand.get("winning_tile") == five:
            hand["winning_tile"] = RED_OF_FIVE[five]
        elif role == "meld" and group in meld_groups and meld_groups.index(group) < len(hand["melds"]):
            meld = hand["melds"][meld_groups.index(group)]
            _swap_one(meld["tiles"], five)
            if meld.get("claimed") == five and RED_OF_FIVE[five] in meld["tiles"] and five not in meld["tiles"]:
                meld["claimed"] = RED_OF_FIVE[five]
    return {**recognition, "tiles": tiles, "hand": hand}


def _swap_one(codes: list[str], five: str) -> None:
    if five in codes:
        codes[codes.index(five)] = RED_OF_FIVE[five]
