"""What a phone camera does to the picture: uneven light, colour casts, glare, blur, noise, JPEG artefacts; and
things in the way (a finger, a cup) that hide part of some tiles.
"""

from __future__ import annotations

import cv2
import numpy as np

SKIN = [(120, 150, 200), (90, 120, 170), (70, 95, 140), (150, 175, 220)]
OBJECTS = [(40, 40, 40), (200, 200, 200), (30, 60, 150), (150, 90, 40), (60, 160, 200)]


def lighting(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Light falling off across the picture, a colour cast, contrast/brightness, sometimes a glare spot."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = ((xx / w - 0.5) * np.cos(angle) + (yy / h - 0.5) * np.sin(angle))
    gain = 1 + float(rng.uniform(0, 0.45)) * ramp
    if rng.random() < 0.4:  # vignette
        r2 = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2
        gain *= 1 - float(rng.uniform(0.1, 0.35)) * r2
    out *= gain[..., None]
    cast = rng.normal(1.0, 0.06, 3)
    if rng.random() < 0.3:  # warm indoor bulb or cool daylight
        cast *= np.array([0.85, 0.97, 1.12]) if rng.random() < 0.6 else np.array([1.1, 1.0, 0.9])
    out *= cast[None, None, :]
    alpha, beta = float(rng.uniform(0.75, 1.2)), float(rng.uniform(-25, 20))
    out = out * alpha + beta
    if rng.random() < 0.2:  # glare from a lamp on glossy tiles
        spot = np.zeros((h, w), np.float32)
        centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(0.05, 0.25) * w), int(rng.uniform(0.03, 0.15) * h))
        cv2.ellipse(spot, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), max(axes) / 2 + 1)
        out += spot[..., None] * float(rng.uniform(40, 110))
    return out


def degrade(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Blur (focus or motion), lost resolution and sensor noise, on a float image; returns uint8."""
    h, w = img.shape[:2]
    out = img
    r = rng.random()
    if r < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.6)))
    elif r < 0.4:
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        m = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, m, (k, k))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    if rng.random() < 0.2:
        f = float(rng.uniform(0.4, 0.8))
        small = cv2.resize(out, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    sigma = float(rng.uniform(0, 8))
    out = out + rng.normal(0, sigma, out.shape[:2] + (1,)).astype(np.float32)
    if rng.random() < 0.3:
        out = out + rng.normal(0, sigma * 0.6, out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:  # an earlier, harsher compression (a photo sent through a chat app)
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 60))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def occluder(rng: np.random.Generator, width: int, height: int) -> tuple[np.ndarray, tuple[int, int, int]]:
    """A mask of something in the way: a finger reaching in from an edge, or a round object. Returns mask, colour."""
    mask = np.zeros((height, width), np.uint8)
    if rng.random() < 0.6:
        edge = int(rng.integers(4))
        start = [(rng.uniform(0, width), 0), (width, rng.uniform(0, height)), (rng.uniform(0, width), height),
                 (0, rng.uniform(0, height))][edge]
        end = (rng.uniform(0.1, 0.9) * width, rng.uniform(0.1, 0.9) * height)
        thick = int(rng.uniform(0.05, 0.12) * min(width, height))
        frac = float(rng.uniform(0.2, 0.5))
        end = (start[0] + (end[0] - start[0]) * frac, start[1] + (end[1] - start[1]) * frac)
        cv2.line(mask, tuple(int(v) for v in start), tuple(int(v) for v in end), 255, thick, cv2.LINE_AA)
        cv2.circle(mask, tuple(int(v) for v in end), thick // 2, 255, -1, cv2.LINE_AA)
        colour = SKIN[int(rng.integers(len(SKIN)))]
    else:
        centre = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        radius = int(rng.uniform(0.06, 0.18) * min(width, height))
        cv2.circle(mask, centre, radius, 255, -1, cv2.LINE_AA)
        colour = OBJECTS[int(rng.integers(len(OBJECTS)))]
    return mask, colour


def paint(img: np.ndarray, mask: np.ndarray, colour: tuple[int, int, int], rng: np.random.Generator) -> np.ndarray:
    """Lay the occluder on the (float) picture with a little shading so it is not a flat cut-out."""
    a = cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32)[..., None] / 255.0
    shade = cv2.GaussianBlur(mask, (0, 0), max(2.0, mask.shape[1] / 60)).astype(np.float32)[..., None] / 255.0
    col = np.array(colour, np.float32)[None, None, :] * (0.75 + 0.3 * shade)
    col = col + rng.normal(0, 3, img.shape[:2] + (1,)).astype(np.float32)
    return img * (1 - a) + col * a
