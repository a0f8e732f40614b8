"""Draw a scene: table surface, shadows, tile bodies and faces on the table plane, then one perspective warp.

Tiles are drawn as prisms: the face (art on ivory) raised by the tile's thickness, the body below it showing an
ivory layer and a coloured back layer; face-down tiles show the coloured back on top. Labels are the exact
projections of each prism's corners, so a box is tight on the visible face and body.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from mjlens.vision.synth.art import PAPER, ArtBank
from mjlens.vision.synth.camera import Camera
from mjlens.vision.synth.restyle import FaceStyle, restyled
from mjlens.vision.synth.scene import TILE_H, Placed, Scene
from mjlens.vision.synth.textures import surface

#: Colours of the back layer (BGR): green, dark green, blue, yellow, orange-red.
BACK_COLOURS = [(50, 130, 30), (40, 95, 25), (160, 95, 25), (40, 170, 215), (40, 90, 200), (120, 140, 40)]
MAX_CANVAS = 1800  # pixels on the long side of the drawn table (beyond that, the far table is drawn coarser)
P_TABLE_EDGE = 0.35  # share of pictures where the table ends in frame: a rim, then the floor or another surface
P_CLOSE_UP = 0.25  # share of close-ups that cut part of the hand (tiles as large as in most real photos)
P_WIDE = 0.2  # share of wide shots (the hand small, much of the table around it)
MIN_TILE_PX = 13
#: Camera tilt from straight down (degrees) for a hand standing up: low enough that the faces show.
STANDING_TILT = (45.0, 72.0)
RIM_COLOURS = [(30, 50, 80), (20, 20, 20), (60, 90, 130), (200, 200, 200), (40, 40, 90)]
ASPECTS = [(1, 1), (4, 3), (3, 4), (16, 9), (9, 16), (3, 2)]


@dataclass
class Rendered:
    image: np.ndarray  # BGR uint8
    boxes: dict[int, tuple[float, float, float, float]]  # scene tile index -> box in pixels (visible tiles only)


def _rounded_rect(w: float, h: float, r: float, n: int = 4) -> np.ndarray:
    """Outline of a w x h rectangle centred at 0 with corners of radius r, as (4n, 2) points."""
    pts = []
    for cx, cy, a0 in ((w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90), (-w / 2 + r, -h / 2 + r, 180),
                       (w / 2 - r, -h / 2 + r, 270)):
        for a in np.radians(np.linspace(a0, a0 + 90, n)):
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    return np.array(pts)


OUTLINE = _rounded_rect(1.0, TILE_H, 0.12)
CORNERS = np.array([[-0.5, -TILE_H / 2], [0.5, -TILE_H / 2], [0.5, TILE_H / 2], [-0.5, TILE_H / 2]])


def _place(local: np.ndarray, tile: Placed) -> np.ndarray:
    a = np.radians(tile.angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return local @ rot.T + np.array([tile.x, tile.y])


def _choose_camera(rng: np.random.Generator, scene: Scene, thickness: float, size: int, upright: bool = False):
    """A camera and picture size that keep the whole hand in frame at a random zoom, tilt and turn; ``upright``:
    nearly level and from the player's side, the whole scene in frame (a calibration sheet, read row by row)."""
    x0, y0, x1, y1 = scene.hand_bounds()
    target = np.array([(x0 + x1) / 2 + rng.normal(0, 1), (y0 + y1) / 2 + rng.normal(0, 1), 0.0])
    if upright:
        target[:2] = (x0 + x1) / 2, (y0 + y1) / 2
        yaw = float(rng.normal(0, 3))
    else:
        yaw = float(rng.normal(0, 12)) if rng.random() < 0.65 else float(rng.uniform(0, 360))
    tilt = float(rng.uniform(0, 30 if upright else 50))
    if any(t.standing for t in scene.tiles):  # from the player's side and low, or no face shows (same draws)
        yaw, tilt = (yaw + 180.0) % 20.0 - 10.0, STANDING_TILT[0] + tilt / 50 * (STANDING_TILT[1] - STANDING_TILT[0])
    distance = float(rng.uniform(14, 45))
    cam = Camera.looking_at(target, distance, tilt, yaw, float(rng.normal(0, 3)))
    aw, ah = ASPECTS[int(rng.integers(len(ASPECTS)))]
    if aw >= ah:
        width, height = size, int(round(size * ah / aw))
    else:
        width, height = int(round(size * aw / ah)), size
    hand = [t for t in scene.tiles if t.group is not None and scene.groups[t.group]["role"] != "other"]
    pts = []
    for t in hand:
        pts.extend(_prism(t, thickness))
    uv = cam.normalized(np.concatenate(pts))
    lo, hi = uv.min(0), uv.max(0)
    span = np.maximum(hi - lo, 1e-6)
    # mostly the whole hand at some zoom; sometimes a close-up of part of it (the record says it is incomplete)
    zoom = rng.random()
    if upright:
        fill = float(rng.uniform(0.75, 0.95))
    elif zoom < P_CLOSE_UP:
        fill = float(rng.uniform(1.1, 2.6))
    elif zoom < P_CLOSE_UP + P_WIDE:
        fill = float(rng.uniform(0.4, 0.7))
    else:
        fill = float(rng.uniform(0.7, 0.98))
    scale = fill * min((width - 8) / span[0], (height - 8) / span[1])
    # never so small that a tile is under ~MIN_TILE_PX wide: rather cut the hand (a close-up)
    tile_px = scale / distance
    if tile_px < MIN_TILE_PX:
        scale *= MIN_TILE_PX / tile_px
        fill = 2.0
    room = np.array([width, height]) - span * scale
    # where the hand's box starts: inside the frame with a margin, or (close-ups) hanging over its edges
    low = np.where(room >= 8, 4, np.minimum(room, 0))
    high = np.where(room >= 8, room - 4, np.maximum(room, 0))
    corner = rng.uniform(low, high)
    cam.scale = float(scale)
    cam.offset = tuple(corner - lo * scale)
    return cam, width, height


def render(rng: np.random.Generator, scene: Scene, art: ArtBank, size: int = 640, upright: bool = False,
           style: FaceStyle | None = None) -> Rendered:
    """The scene photographed, its faces drawn from one set of ``art`` (printed in ``style`` when given)."""
    thickness = float(rng.uniform(0.55, 0.8))
    cam, width, height = _choose_camera(rng, scene, thickness, size, upright)
    # the part of the table the picture sees, as a canvas at ppu pixels per unit
    corners_px = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    seen = cam.ray_to_table(corners_px, far=80.0)
    tile_px = cam.scale / np.linalg.norm(cam.centre - np.r_[scene.hand_bounds()[:2], 0])
    ppu = float(np.clip(tile_px * 1.4, 14, 96))
    lo, hi = seen.min(0) - 1, seen.max(0) + 1
    ppu = min(ppu, MAX_CANVAS / max(hi - lo))
    cw, ch = (np.ceil((hi - lo) * ppu)).astype(int) + 1
    canvas = surface(rng, int(cw), int(ch), ppu).astype(np.float32)
    if rng.random() < P_TABLE_EDGE:
        _table_edge(rng, canvas, scene, lo, ppu)

    set_name = art.pick_set(rng)
    ivory = np.clip(np.array([226, 238, 244], np.float32) + rng.normal(0, 7, 3), 180, 255)
    back = np.clip(np.array(BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))], np.float32) + rng.normal(0, 12, 3),
                   0, 255)
    face_cache: dict[str, np.ndarray] = {}

    def to_canvas(xy: np.ndarray) -> np.ndarray:
        return (xy - lo) * ppu

    # shadows: each tile's prism pushed away from the light, blurred, darkening the table
    light = rng.normal(0, 1, 2)
    light = light / (np.linalg.norm(light) + 1e-9) * thickness * float(rng.uniform(0.2, 1.2))
    shadow = np.zeros((int(ch), int(cw)), np.uint8)
    for t in scene.tiles:
        base = _place(OUTLINE, t)
        hull = cv2.convexHull(to_canvas(np.r_[base, base + light]).astype(np.float32)).astype(np.int32)
        cv2.fillPoly(shadow, [hull], 255)
    sigma = max(0.5, 0.12 * ppu)
    shadow_f = cv2.GaussianBlur(shadow, (0, 0), sigma).astype(np.float32) / 255.0
    canvas *= (1 - float(rng.uniform(0.25, 0.55)) * shadow_f)[..., None]

    # far tiles first, and a tile lying on another after every tile on the table
    order = sorted(range(len(scene.tiles)), key=lambda i: (scene.tiles[i].level, -np.linalg.norm(
        np.array([scene.tiles[i].x, scene.tiles[i].y]) - cam.centre[:2])))
    boxes: dict[int, tuple[float, float, float, float]] = {}
    for i in order:
        t = scene.tiles[i]
        if t.side:  # no face to read: drawn, never labelled
            _draw_on_side(canvas, t, cam, thickness, ivory, back, to_canvas)
            continue
        if t.standing:
            face = None if t.shown == "back" else _face(art, set_name, t.shown, ivory, ppu, face_cache, style)
            _draw_standing(canvas, t, cam, thickness, ivory, back, to_canvas, face)
            px = cam.project(np.concatenate(_prism(t, thickness)))
            boxes[i] = (px[:, 0].min(), px[:, 1].min(), px[:, 0].max(), px[:, 1].max())
            continue
        floor = t.level * thickness  # the height its body starts at
        outline = _place(OUTLINE, t)
        base = cam.lifted(outline, floor) if floor else outline
        top = cam.lifted(outline, floor + thickness)
        mid = cam.lifted(outline, floor + thickness * (0.42 if t.shown != "back" else 0.6))
        lower, upper = (back, ivory) if t.shown != "back" else (ivory, back)
        _fill(canvas, to_canvas(np.r_[base, top]), lower * 0.72)
        _fill(canvas, to_canvas(np.r_[mid, top]), upper * 0.8)
        face_poly = to_canvas(top)
        if t.shown == "back":
            _fill(canvas, face_poly, back * float(rng.uniform(0.92, 1.05)), hull=False)
        else:
            _draw_face(canvas, face_poly, t, cam, floor + thickness, lo, ppu, _face(art, set_name, t.shown, ivory,
                                                                                     ppu, face_cache, style))
        cv2.polylines(canvas, [face_poly.astype(np.int32)], True, tuple(float(c) for c in ivory * 0.55), 1,
                      cv2.LINE_AA)
        prism = np.r_[np.c_[_place(CORNERS, t), np.full(4, floor)],
                      np.c_[_place(CORNERS, t), np.full(4, floor + thickness)]]
        px = cam.project(prism)
        boxes[i] = (px[:, 0].min(), px[:, 1].min(), px[:, 0].max(), px[:, 1].max())

    h = cam.plane_homography(lo, ppu, seen)
    image = cv2.warpPerspective(canvas, h, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return Rendered(np.clip(image, 0, 255).astype(np.uint8), boxes)


def _table_edge(rng: np.random.Generator, canvas: np.ndarray, scene: Scene, lo: np.ndarray, ppu: float) -> None:
    """End the table on one side, beyond every tile: a rim of wood or plastic, then something else (floor)."""
    xs = np.array([t.x for t in scene.tiles])
    ys = np.array([t.y for t in scene.tiles])
    angle = rng.uniform(0, 2 * np.pi)
    normal = np.array([np.cos(angle), np.sin(angle)])
    # the edge line: past the farthest tile in that direction, by 1.5 to 8 tiles
    reach = float(np.max(xs * normal[0] + ys * normal[1])) + 1.0 + float(rng.uniform(1.5, 8.0))
    h, w = canvas.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    wx, wy = xx / ppu + lo[0], yy / ppu + lo[1]
    beyond = (wx * normal[0] + wy * normal[1] - reach).astype(np.float32)  # tile units past the edge
    if beyond.max() <= 0:
        return
    rim_width = float(rng.uniform(0.5, 2.0))
    rim = np.clip(np.array(RIM_COLOURS[int(rng.integers(len(RIM_COLOURS)))], np.float32) + rng.normal(0, 10, 3), 0, 255)
    floor = surface(rng, w, h, ppu * float(rng.uniform(0.3, 1.0))).astype(np.float32) * float(rng.uniform(0.4, 0.9))
    in_rim = ((beyond > 0) & (beyond <= rim_width))[..., None]
    past = (beyond > rim_width)[..., None]
    shade = 0.85 + 0.15 * np.clip(1 - beyond / rim_width, 0, 1)[..., None]  # a rounded rim catches the light
    canvas[:] = np.where(in_rim, rim[None, None, :] * shade, np.where(past, floor, canvas))


def _prism(tile: Placed, thickness: float) -> list[np.ndarray]:
    """The (3-D) corners of a tile's body: its footprint at the table and at its top."""
    if tile.standing:
        half = thickness / 2
        footprint = _place(np.array([[-0.5, -half], [0.5, -half], [0.5, half], [-0.5, half]]), tile)
        return [np.c_[footprint, np.zeros(4)], np.c_[footprint, np.full(4, TILE_H)]]
    xy = _place(CORNERS, tile)
    return [np.c_[xy, np.zeros(4)], np.c_[xy, np.full(4, thickness)]]


def _draw_standing(canvas: np.ndarray, tile: Placed, cam: Camera, thickness: float, ivory: np.ndarray,
                   back: np.ndarray, to_canvas, face: np.ndarray | None) -> None:
    """A tile standing on its short edge: a body a face's length high; its top edge shows the back layer behind
    the ivory; its face (local +y) drawn in perspective where it faces the camera, else its back."""
    half = thickness / 2
    footprint = _place(np.array([[-0.5, -half], [0.5, -half], [0.5, half], [-0.5, half]]), tile)
    _fill(canvas, to_canvas(np.r_[footprint, cam.lifted(footprint, TILE_H)]), back * 0.72)
    layer = -half + 0.42 * thickness  # where the back layer meets the ivory
    for y_lo, y_hi, colour in ((-half, layer, back), (layer, half, ivory)):
        strip = _place(np.array([[-0.5, y_lo], [0.5, y_lo], [0.5, y_hi], [-0.5, y_hi]]), tile)
        _fill(canvas, to_canvas(cam.lifted(strip, TILE_H)), colour * 0.9, hull=False)
    a = np.radians(tile.angle)
    normal = np.array([-np.sin(a), np.cos(a)])  # the face's side
    facing = float(np.dot(cam.centre[:2] - [tile.x, tile.y], normal)) > 0
    edge = _place(np.array([[-0.5, half], [0.5, half]]), tile) if facing else \
        _place(np.array([[0.5, -half], [-0.5, -half]]), tile)  # left, right as seen from that side
    wall = np.r_[cam.lifted(edge, TILE_H), edge[::-1]]  # top left, top right, bottom right, bottom left
    if not facing or face is None:
        _fill(canvas, to_canvas(wall), back if not facing else back * 0.95, hull=False)
        return
    on_canvas = to_canvas(wall)
    _paste(canvas, face, on_canvas.astype(np.float32), on_canvas, perspective=True)


def _draw_on_side(canvas: np.ndarray, tile: Placed, cam: Camera, thickness: float, ivory: np.ndarray,
                  back: np.ndarray, to_canvas) -> None:
    """A tile lying on its long side: a prism ``thickness`` wide and a face's width high; its top edge shows the
    back layer and the ivory beside each other, and of its long walls the one facing the camera (the face, seen
    edge-on as plain ivory, or the back)."""
    half, length = thickness / 2, TILE_H / 2
    footprint = _place(np.array([[-half, -length], [half, -length], [half, length], [-half, length]]), tile)
    top = cam.lifted(footprint, 1.0)
    _fill(canvas, to_canvas(np.r_[footprint, top]), back * 0.7)
    layer = -half + 0.42 * thickness  # where the back layer meets the ivory
    ivory_side = np.array([np.cos(np.radians(tile.angle)), np.sin(np.radians(tile.angle))])  # the +x wall's normal
    facing = float(np.dot(cam.centre[:2] - [tile.x, tile.y], ivory_side)) > 0
    wall = footprint[[1, 2]] if facing else footprint[[3, 0]]
    _fill(canvas, to_canvas(np.r_[wall, cam.lifted(wall, 1.0)]), ivory * 0.78 if facing else back * 0.85)
    for x_lo, x_hi, colour in ((-half, layer, back), (layer, half, ivory)):
        strip = _place(np.array([[x_lo, -length], [x_hi, -length], [x_hi, length], [x_lo, length]]), tile)
        _fill(canvas, to_canvas(cam.lifted(strip, 1.0)), colour * 0.95, hull=False)


def _fill(canvas: np.ndarray, pts: np.ndarray, colour: np.ndarray, hull: bool = True) -> None:
    poly = cv2.convexHull(pts.astype(np.float32)) if hull else pts.reshape(-1, 1, 2)
    cv2.fillPoly(canvas, [np.round(poly * 4).astype(np.int32)], tuple(float(c) for c in colour), cv2.LINE_AA, 2)


def _face(art: ArtBank, set_name: str, code: str, ivory: np.ndarray, ppu: float, cache: dict,
          style: FaceStyle | None = None) -> np.ndarray:
    """The face picture at about the size it is drawn, printed in ``style``, tinted to this table's ivory."""
    if code not in cache:
        img = art.face(set_name, code)
        if style is not None:
            img = restyled(img, style)
        w = max(8, int(round(ppu * 1.2)))
        h = max(10, int(round(w * TILE_H)))
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
        cache[code] = img * (ivory / PAPER)[None, None, :]
    return cache[code]


def _draw_face(canvas, face_poly, tile: Placed, cam: Camera, thickness: float, lo, ppu, img) -> None:
    """Warp the face picture onto the tile's raised face (an affine map of three corners is close enough)."""
    corners = cam.lifted(_place(CORNERS, tile), thickness)
    _paste(canvas, img, ((corners - lo) * ppu).astype(np.float32), face_poly)


def _paste(canvas: np.ndarray, img: np.ndarray, dst: np.ndarray, outline: np.ndarray,
           perspective: bool = False) -> None:
    """Blend the picture ``img`` into ``canvas`` with its corners at ``dst`` (top left, top right, bottom right,
    bottom left; an affine map of the first three unless ``perspective``), inside ``outline``."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(dst.min(0)).astype(int) - 1
    x1, y1 = np.ceil(dst.max(0)).astype(int) + 1
    ch, cw = canvas.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cw), min(y1, ch)
    if x1 <= x0 or y1 <= y0:
        return
    offset = np.float32([x0, y0])
    if perspective:
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst - offset)
        patch = cv2.warpPerspective(img.astype(np.float32), m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
    else:
        m = cv2.getAffineTransform(np.float32([[0, 0], [w, 0], [w, h]]), dst[:3] - offset)
        patch = cv2.warpAffine(img, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round((outline - [x0, y0]) * 4).astype(np.int32)], 255, cv2.LINE_AA, 2)
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + patch * alpha
