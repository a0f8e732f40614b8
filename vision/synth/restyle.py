"""Tile sets no art folder holds: one set's faces printed another way.

Players' sets differ from the art sets less in what they draw than in how it is printed: the inks (a set prints
blue what another prints red), the weight of the strokes, how faded the print is, the colour of the face, and now
and then light ink on a dark face (jade and bone-and-bamboo sets). A :class:`FaceStyle` is one such printing, drawn
per photo and applied to every face of the photo's set (a table holds one set), so a training run sees each set's
drawings printed many ways.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from mjlens.vision.synth.art import PAPER

#: Face colours (BGR) a set is printed on: white, ivory, cream, bone, pale green, pale blue.
FACE_COLOURS = ((250, 250, 250), (222, 236, 246), (200, 228, 240), (190, 214, 226), (214, 238, 222), (240, 228, 214))
#: Dark faces with light ink (BGR): jade green, navy, brown, black. No red: the held-out ``kmj_jade`` (white on dark
#: red) stays a check of a printing never trained on.
DARK_FACES = ((60, 100, 40), (90, 50, 30), (30, 60, 90), (35, 35, 35))
#: Light inks on a dark face (BGR): white, gold, pale green.
LIGHT_INKS = ((245, 245, 245), (120, 200, 230), (200, 240, 210))
OPENCV_HUE_TURN = 180  # OpenCV's 8-bit hue runs 0..179, two degrees a step


@dataclass(frozen=True)
class FaceStyle:
    channel_order: tuple[int, int, int]  # the inks' colour channels permuted (red ink printed blue, ...)
    hue_turn: int  # then every ink's hue turned by this many OpenCV steps
    stroke: int  # strokes made bolder (> 0) or thinner (< 0) by this many pixels of the 96 px art
    ink_strength: float  # 1: as drawn; less: a faded print
    face_colour: tuple[int, int, int]  # the face's colour (BGR); the ink keeps its own
    light_ink: tuple[int, int, int] | None  # on a dark face: the ink's colour, and face_colour is the dark face


def draw_style(rng: np.random.Generator) -> FaceStyle:
    """One printing, each of its parts drawn apart (so most styles change several things a little)."""
    order = tuple(int(c) for c in rng.permutation(3)) if rng.random() < 0.5 else (0, 1, 2)
    hue_turn = int(rng.integers(0, OPENCV_HUE_TURN)) if rng.random() < 0.3 else 0
    stroke = int(rng.choice((-1, 0, 0, 1, 2)))
    ink_strength = float(rng.uniform(0.55, 1.0)) if rng.random() < 0.4 else 1.0
    if rng.random() < 0.15:
        face = DARK_FACES[int(rng.integers(len(DARK_FACES)))]
        ink = LIGHT_INKS[int(rng.integers(len(LIGHT_INKS)))]
        return FaceStyle(order, hue_turn, stroke, ink_strength, face, ink)
    face = FACE_COLOURS[int(rng.integers(len(FACE_COLOURS)))]
    return FaceStyle(order, hue_turn, stroke, ink_strength, face, None)


def hues_turned(bgr: np.ndarray, turn: int) -> np.ndarray:
    """``bgr`` (uint8) with every hue turned by ``turn`` OpenCV steps; greys, which have no hue, stay as they are."""
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + turn) % OPENCV_HUE_TURN).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def restyled(face: np.ndarray, style: FaceStyle) -> np.ndarray:
    """``face`` (BGR float32, drawn on :data:`PAPER`) printed in ``style``, as BGR float32 of the same size."""
    img = np.clip(face, 0, 255).astype(np.uint8)
    if style.stroke:
        # The art is about 96 px wide; a tile drawn larger keeps the stroke's share of its width.
        size = max(2, int(round(abs(style.stroke) * face.shape[1] / 96)) + 1)
        kernel = np.ones((size, size), np.uint8)
        img = cv2.erode(img, kernel) if style.stroke > 0 else cv2.dilate(img, kernel)
    img = img[:, :, list(style.channel_order)]
    if style.hue_turn:
        img = hues_turned(img, style.hue_turn)
    out = img.astype(np.float32)
    # How much ink each pixel holds (0 on the bare face, 1 on black ink), kept per channel so inks keep their hue;
    # a highlight lighter than the face holds a little less than none.
    ink = (PAPER - out) / PAPER * style.ink_strength
    face_colour = np.array(style.face_colour, np.float32)
    if style.light_ink is None:
        return np.clip(face_colour * (1.0 - ink), 0.0, 255.0)
    # Light ink on a dark face: the ink's darkness (its grey) becomes the light ink's cover.
    cover = np.clip(ink.mean(axis=2, keepdims=True), 0.0, 1.0)
    return face_colour * (1.0 - cover) + np.array(style.light_ink, np.float32) * cover
