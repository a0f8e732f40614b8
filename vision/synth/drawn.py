"""Art sets no artist drew: dots and bamboo drawn from shapes, characters and honours put together from parts.

The held-out art families differ from the trained ones in their drawings (docs/experiments/general-reader.md), and
17 sets are few drawings to learn a tile from. Each set made here draws every face its own way:

- dots (1p-9p): discs in the usual places of each count, every disc of the set in one style (rings, a centre, spokes,
  petals), in the set's inks, laid a little closer or wider;
- bamboo (2s-9s): sticks with joints in the usual places of each count (8 as an M now and then), in the set's inks;
  1s is the bird of a trained set;
- characters (1m-9m): the numerals of one trained set over the 萬 of another, in the set's inks; or, given fonts
  (``--fonts``, a folder of CJK fonts), the numeral and 萬 (or 万) written in one of them;
- honours and flowers: the faces of one trained set; or, given fonts, written in one of them (白 a frame, the
  flowers' and seasons' characters with their numeral in a corner);
- flowers and seasons pictured (``--pictured-flowers``, a share of sets): pictures drawn from shapes
  (``vision.synth.plants``) that tell nothing of the tile, told apart by a numeral in a corner, a word (SPRING,
  PLUM, ..., or 春, 梅, ... given fonts) or both; with the numeral alone, the seasons' and flowers' numerals in
  inks of their own;
- now and then an index in a corner (the suit's digit, the wind's letter), as many sets print.

    python -m mjlens.vision.synth.drawn --source ART --n 300 --seed 0 --out runs/drawn-art [--fonts FONTS]
        [--font-share 0.6] [--pictured-flowers 0.6]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mjlens.scoring.tiles import BONUS_CODES, SEASON_CODES
from mjlens.vision.synth.art import PAPER, ArtBank, cut, distance_from_ground, sets_of_group, write_art_sets
from mjlens.vision.synth.plants import KINDS, draw_picture

#: A face's size (width, height) in pixels, as the art sets draw them; faces are drawn at DRAW_SCALE times it.
FACE_SIZE = (96, 128)
DRAW_SCALE = 3
#: Inks (BGR) a set prints in: red, green, blue, black, teal, dark red, navy, brown.
INKS = ((40, 40, 200), (50, 140, 40), (170, 80, 20), (30, 30, 30), (120, 120, 20), (30, 30, 140), (110, 50, 20),
        (30, 70, 120))
#: Where a count's discs lie, as (x, y) shares of the drawing area, and the disc's radius as a share of its width.
DOT_PLACES: dict[int, tuple[tuple[tuple[float, float], ...], float]] = {
    1: (((0.5, 0.5),), 0.46),
    2: (((0.5, 0.26), (0.5, 0.74)), 0.25),
    3: (((0.22, 0.18), (0.5, 0.5), (0.78, 0.82)), 0.19),
    4: (((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)), 0.21),
    5: (((0.25, 0.2), (0.75, 0.2), (0.5, 0.5), (0.25, 0.8), (0.75, 0.8)), 0.18),
    6: (((0.27, 0.15), (0.73, 0.15), (0.27, 0.55), (0.73, 0.55), (0.27, 0.85), (0.73, 0.85)), 0.16),
    7: (((0.18, 0.1), (0.5, 0.22), (0.82, 0.34), (0.3, 0.62), (0.7, 0.62), (0.3, 0.88), (0.7, 0.88)), 0.13),
    8: (((0.28, 0.11), (0.72, 0.11), (0.28, 0.37), (0.72, 0.37), (0.28, 0.63), (0.72, 0.63), (0.28, 0.89),
         (0.72, 0.89)), 0.13),
    9: (tuple((x, y) for y in (0.17, 0.5, 0.83) for x in (0.18, 0.5, 0.82)), 0.15),
}
#: Which of a set's three inks each disc of a count takes, by place (the usual colouring of each count).
DOT_INKS: dict[int, tuple[int, ...]] = {1: (0,), 2: (1, 2), 3: (2, 0, 1), 4: (2, 1, 1, 2), 5: (2, 1, 0, 1, 2),
                                        6: (1, 1, 0, 0, 0, 0), 7: (1, 1, 1, 0, 0, 0, 0),
                                        8: (2, 2, 2, 2, 2, 2, 2, 2), 9: (2, 2, 2, 0, 0, 0, 1, 1, 1)}
#: Where a count's sticks stand: (x, y) of each stick's centre as shares of the area, and the rows they fill.
STICK_PLACES: dict[int, tuple[tuple[tuple[float, float], ...], int]] = {
    2: (((0.5, 0.25), (0.5, 0.75)), 2),
    3: (((0.5, 0.25), (0.3, 0.75), (0.7, 0.75)), 2),
    4: (((0.3, 0.25), (0.7, 0.25), (0.3, 0.75), (0.7, 0.75)), 2),
    5: (((0.22, 0.25), (0.78, 0.25), (0.5, 0.5), (0.22, 0.75), (0.78, 0.75)), 2),
    6: (tuple((x, y) for y in (0.25, 0.75) for x in (0.2, 0.5, 0.8)), 2),
    7: (((0.5, 0.17),) + tuple((x, y) for y in (0.5, 0.83) for x in (0.2, 0.5, 0.8)), 3),
    8: (tuple((x, y) for y in (0.25, 0.75) for x in (0.14, 0.38, 0.62, 0.86)), 2),
    9: (tuple((x, y) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)), 3),
}
STICK_INKS: dict[int, tuple[int, ...]] = {2: (1, 2), 3: (2, 1, 1), 4: (1, 2, 2, 1), 5: (1, 1, 0, 1, 1),
                                          6: (1, 1, 1, 2, 2, 2), 7: (0, 1, 1, 1, 2, 2, 2), 8: (1,) * 8,
                                          9: (0, 1, 2) * 3}
#: Where the numeral and the 萬 of a character face lie in the art sets (left, top, right, bottom as shares).
NUMERAL_REGION, WAN_REGION = (0.12, 0.03, 0.88, 0.46), (0.08, 0.44, 0.92, 0.97)
#: The corner index of each code that has one.
INDEX_TEXT = {**{f"{n}{s}": str(n) for n in range(1, 10) for s in "mps"}, "1z": "E", "2z": "S", "3z": "W", "4z": "N"}
#: Shares of sets that print a corner index, draw 8s as an M, recolour a character's parts in the set's inks.
P_INDEX, P_M_EIGHT, P_RECOLOUR = 0.4, 0.4, 0.5
#: Sets that draw the tile's body around the face (a bevel, a shadow, a tinted ground): their parts would bring it.
BODY_SETS = frozenset({"xmj_dorothys", "xmj_dorwhite", "xmj_gnome", "xmj_gnome2"})
#: The part of a whole face taken (a drawn frame around it left out).
WHOLE_REGION = (0.07, 0.05, 0.93, 0.95)
HONOUR_CODES = tuple(f"{n}z" for n in range(1, 8))
#: Given fonts, the share of sets whose characters, honours, flowers are written in one (``--font-share``).
P_FONT = 0.6
#: How a pictured set tells its flowers and seasons apart: a numeral, a word, or both.
BONUS_CUES = ("numeral", "word", "numeral and word")
#: The flowers' and seasons' words as sets print them in English: whole, or cut short.
BONUS_WORDS = {"1f": ("SPRING", "SPR"), "2f": ("SUMMER", "SUM"), "3f": ("AUTUMN", "AUT"), "4f": ("WINTER", "WIN"),
               "5f": ("PLUM", "PLUM"), "6f": ("ORCHID", "ORC"), "7f": ("MUM", "MUM"), "8f": ("BAMBOO", "BAM")}
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)
#: What each face writes: the numerals (5 now and then the formal 伍), the honours, the flowers and seasons.
NUMERALS = "一二三四五六七八九"
HONOUR_TEXT = {"1z": "東", "2z": "南", "3z": "西", "4z": "北", "6z": "發", "7z": "中"}
BONUS_TEXT = {"1f": "春", "2f": "夏", "3f": "秋", "4f": "冬", "5f": "梅", "6f": "蘭", "7f": "菊", "8f": "竹"}
#: Simplified forms some sets print.
SIMPLIFIED = {"萬": "万", "發": "发", "蘭": "兰"}
FONT_SUFFIXES = (".otf", ".ttf", ".ttc")


@dataclass(frozen=True)
class DrawnStyle:
    inks: tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]
    margin: float  # the drawing area's margin, as a share of the face's width
    spread: float  # how far from the middle the shapes lie, as a share of the usual
    disc_size: float  # a disc's radius as a share of the usual
    disc_rings: int  # rings inside a disc's rim
    disc_centre: str  # "dot", "spokes", "petals" or "none"
    disc_fill: bool  # the rim filled in the disc's ink, the rings in paper
    stick_joints: int  # joints along a stick
    stick_width: float  # a stick's width as a share of its slot's
    index: bool  # a corner index
    index_right: bool
    m_eight: bool
    numerals_from: str
    wan_from: str
    recolour: bool
    honours_from: str
    flowers_from: str
    font: Path | None  # characters, honours and flowers written in this font, else cut from the trained sets
    weight: int  # strokes written bolder by this many pixels (at DRAW_SCALE)
    simplified: bool  # 万, 发, 兰 written where the font has them
    formal_five: bool  # 5m written 伍 (else 五); the same sets number their flowers in Arabic digits (else 一二三四)
    # Pictured flowers and seasons (``pictured_bonus_face``); drawn after the fields above, which stay as they were.
    pictured: bool = False
    bonus_cues: str = "numeral and word"
    bonus_font: Path | None = None  # the words written in Chinese in this font, else in English
    short_words: bool = False
    word_below: bool = False  # an English word under the picture, else above it
    numeral_right: bool = False
    hershey: int = cv2.FONT_HERSHEY_SIMPLEX
    shared_pictures: tuple[bool, bool] = (True, True)  # seasons, flowers: one picture for the group's four faces
    kinds: tuple[str, str] = ("tree", "blossom")  # seasons, flowers: the shared pictures' kinds
    picture_seed: int = 0


def _ink_alpha(region: np.ndarray) -> np.ndarray:
    """How much each pixel of ``region`` is ink, 0..1, by its distance from the region's ground."""
    return np.clip((distance_from_ground(region) - 45) / 50, 0, 1)


def _paste(canvas: np.ndarray, part: np.ndarray, box: tuple[int, int, int, int], ink: tuple | None) -> None:
    """``part``'s ink laid into ``box`` of ``canvas`` (fitted, centred), in its own colours or in ``ink``."""
    alpha = _ink_alpha(part)
    ys, xs = np.nonzero(alpha > 0.3)
    if len(xs) < 5:
        return
    tight = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
    part, alpha = part[tight], alpha[tight]
    x1, y1, x2, y2 = box
    scale = min((x2 - x1) / part.shape[1], (y2 - y1) / part.shape[0])
    size = (max(1, int(part.shape[1] * scale)), max(1, int(part.shape[0] * scale)))
    part, alpha = cv2.resize(part, size), cv2.resize(alpha, size)[..., None]
    if ink is not None:
        part = np.empty_like(part)
        part[:] = ink
    x, y = x1 + (x2 - x1 - size[0]) // 2, y1 + (y2 - y1 - size[1]) // 2
    under = canvas[y:y + size[1], x:x + size[0]].astype(np.float32)
    canvas[y:y + size[1], x:x + size[0]] = np.clip(under * (1 - alpha) + part * alpha, 0, 255).astype(np.uint8)


def _disc(canvas: np.ndarray, centre: tuple[int, int], radius: int, ink, style: DrawnStyle) -> None:
    paper = (int(PAPER),) * 3
    width = max(2, radius // 5)
    if style.disc_fill:
        cv2.circle(canvas, centre, radius, ink, -1, cv2.LINE_AA)
        inner = paper
    else:
        cv2.circle(canvas, centre, radius, ink, width, cv2.LINE_AA)
        inner = ink
    for ring in range(1, style.disc_rings + 1):
        r = int(radius * (1 - ring / (style.disc_rings + 1.5)))
        cv2.circle(canvas, centre, r, inner, max(1, width // 2), cv2.LINE_AA)
    small = max(2, radius // 4)
    if style.disc_centre == "dot":
        cv2.circle(canvas, centre, small, inner, -1, cv2.LINE_AA)
    elif style.disc_centre in ("spokes", "petals"):
        for k in range(8):
            angle = k * np.pi / 4
            end = (int(centre[0] + 0.7 * radius * np.cos(angle)), int(centre[1] + 0.7 * radius * np.sin(angle)))
            if style.disc_centre == "spokes":
                cv2.line(canvas, centre, end, inner, max(1, width // 2), cv2.LINE_AA)
            else:
                cv2.circle(canvas, end, small, inner, -1, cv2.LINE_AA)


def _stick(canvas: np.ndarray, centre: tuple[float, float], size: tuple[float, float], angle: float, ink,
           style: DrawnStyle) -> None:
    """One bamboo stick: a rounded bar with joints, turned ``angle`` degrees from upright."""
    w, h = size
    half = np.array([[0, -h / 2], [0, h / 2]])
    turn = np.radians(angle)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    ends = (half @ rot.T + np.array(centre)).astype(int)
    cv2.line(canvas, tuple(ends[0]), tuple(ends[1]), ink, max(2, int(w)), cv2.LINE_AA)
    paper = (int(PAPER),) * 3
    for joint in range(1, style.stick_joints + 1):
        t = joint / (style.stick_joints + 1)
        point = ends[0] + t * (ends[1] - ends[0])
        across = rot @ np.array([w * 0.55, 0])
        a, b = (point - across).astype(int), (point + across).astype(int)
        cv2.line(canvas, tuple(a), tuple(b), paper, max(1, int(w / 6)), cv2.LINE_AA)
    cv2.line(canvas, tuple(ends[0]), tuple(ends[1]), paper, max(1, int(w / 7)), cv2.LINE_AA)


def _area(style: DrawnStyle, index: bool) -> tuple[float, float, float, float]:
    w, h = FACE_SIZE[0] * DRAW_SCALE, FACE_SIZE[1] * DRAW_SCALE
    m = style.margin * w
    top = m + (0.14 * h if index else 0)
    return m, top, w - m, h - m


def _place(area, point: tuple[float, float], spread: float) -> tuple[float, float]:
    x1, y1, x2, y2 = area
    x, y = 0.5 + (point[0] - 0.5) * spread, 0.5 + (point[1] - 0.5) * spread
    return x1 + x * (x2 - x1), y1 + y * (y2 - y1)


def _index(canvas: np.ndarray, text: str, style: DrawnStyle) -> None:
    w = canvas.shape[1]
    scale = DRAW_SCALE * 0.5
    thickness = max(1, DRAW_SCALE + 1)
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    x = w - tw - int(0.06 * w) if style.index_right else int(0.06 * w)
    cv2.putText(canvas, text, (x, int(0.06 * w) + th), cv2.FONT_HERSHEY_SIMPLEX, scale, style.inks[0], thickness,
                cv2.LINE_AA)


def _glyph(text: str, style: DrawnStyle, ink) -> np.ndarray:
    """``text`` written in the style's font: a BGR picture on paper, cut to its ink."""
    size = 60 * DRAW_SCALE
    font = ImageFont.truetype(str(style.font), size)
    image = Image.new("L", (size * (len(text) + 1), int(size * 1.6)), 0)
    ImageDraw.Draw(image).text((size // 4, size // 4), text, fill=255, font=font, stroke_width=style.weight,
                               stroke_fill=255)
    alpha = np.asarray(image, np.float32)[..., None] / 255.0
    picture = np.full((*alpha.shape[:2], 3), PAPER, np.float32) * (1 - alpha) + np.array(ink, np.float32) * alpha
    return picture


def _written(text: str, style: DrawnStyle) -> str:
    """``text`` in the style's forms: simplified where the style is and its font has the simplified glyph."""
    if not style.simplified:
        return text
    return "".join(SIMPLIFIED[char] if char in SIMPLIFIED and _has_glyph(style.font, SIMPLIFIED[char]) else char
                   for char in text)


def _has_glyph(font_path: Path, char: str) -> bool:
    """Whether the font draws ``char`` (a missing glyph is drawn as the font's empty box)."""
    font = ImageFont.truetype(str(font_path), 40)
    missing = font.getmask("\U0010fffd")
    drawn = font.getmask(char)
    return drawn.size != missing.size or bytes(drawn) != bytes(missing)


def font_character_face(number: int, style: DrawnStyle) -> np.ndarray:
    numeral = "伍" if number == 5 and style.formal_five else NUMERALS[number - 1]
    return _character(number, _glyph(numeral, style, style.inks[2]), _glyph(_written("萬", style), style,
                      style.inks[0]), style, None, None)


def font_honour_face(code: str, style: DrawnStyle) -> np.ndarray:
    canvas = _blank()
    w, h = canvas.shape[1], canvas.shape[0]
    m = int(style.margin * w)
    top = int(0.12 * h) if style.index and code in INDEX_TEXT else m
    if code == "5z":  # 白: a frame, as most sets draw it
        inset = int(0.1 * w)
        cv2.rectangle(canvas, (m + inset, top + inset), (w - m - inset, h - m - inset), style.inks[2],
                      max(3, DRAW_SCALE * 2), cv2.LINE_AA)
        return canvas
    ink = {"6z": (50, 140, 40), "7z": (40, 40, 200)}.get(code, style.inks[2])
    _paste(canvas, _glyph(_written(HONOUR_TEXT[code], style), style, ink), (m, top, w - m, h - m), None)
    if style.index and code in INDEX_TEXT:
        _index(canvas, INDEX_TEXT[code], style)
    return canvas


def font_bonus_face(code: str, style: DrawnStyle) -> np.ndarray:
    canvas = _blank()
    w, h = canvas.shape[1], canvas.shape[0]
    m = int(style.margin * w)
    ink = style.inks[1] if code in SEASON_CODES else style.inks[0]
    _paste(canvas, _glyph(_written(BONUS_TEXT[code], style), style, ink), (m, int(0.3 * h), w - m, h - m), None)
    number = (int(code[0]) - 1) % 4 + 1
    # The numeral in a corner, as the sets print it: an Arabic digit or the Chinese one.
    numeral = str(number) if style.formal_five else NUMERALS[number - 1]
    _paste(canvas, _glyph(numeral, style, style.inks[2]), (m, m, m + int(0.3 * w), int(0.27 * h)), None)
    return canvas


def _english(text: str, style: DrawnStyle, ink) -> np.ndarray:
    """``text`` in one of OpenCV's fonts: a BGR picture on paper."""
    scale, thickness = DRAW_SCALE * 0.9, DRAW_SCALE + 1 + style.weight // DRAW_SCALE
    (tw, th), base = cv2.getTextSize(text, style.hershey, scale, thickness)
    picture = np.full((th + base + 8, tw + 8, 3), PAPER, np.uint8)
    cv2.putText(picture, text, (4, th + 4), style.hershey, scale, ink, thickness, cv2.LINE_AA)
    return picture.astype(np.float32)


def pictured_bonus_face(code: str, style: DrawnStyle) -> np.ndarray:
    """A flower or season face: a picture that tells nothing, and the style's cues (numeral, word) that do."""
    canvas = _blank()
    w, h = canvas.shape[1], canvas.shape[0]
    m = int(style.margin * w)
    group = 0 if code in SEASON_CODES else 1
    number = (int(code[0]) - 1) % 4 + 1
    shared = style.shared_pictures[group]
    rng = np.random.default_rng([style.picture_seed, group, 0 if shared else number])
    kind = style.kinds[group] if shared else KINDS[int(rng.integers(len(KINDS)))]
    numeral = style.bonus_cues != "word"
    word = style.bonus_cues != "numeral"
    english = word and style.bonus_font is None
    band = int(0.2 * h)
    top = m + (band if numeral or (word and not english) or (english and not style.word_below) else 0)
    bottom = h - m - (band if english and style.word_below else 0)
    draw_picture(canvas, (m, top, w - m, bottom), kind, rng)
    # With the numeral alone the groups differ by its ink, as such sets print them; else by the word.
    numeral_ink = style.inks[group] if style.bonus_cues == "numeral" else style.inks[2]
    word_ink = style.inks[1] if group == 0 else style.inks[0]
    half = (w - 2 * m) // 2
    left_box, right_box = (m, m, m + half, m + band), (w - m - half, m, w - m, m + band)
    numeral_box, char_box = (right_box, left_box) if style.numeral_right else (left_box, right_box)
    in_font = replace(style, font=style.bonus_font)
    if numeral:
        text = NUMERALS[number - 1] if style.bonus_font is not None and not style.formal_five else str(number)
        part = (_glyph(text, in_font, numeral_ink) if style.bonus_font is not None
                else _english(text, style, numeral_ink))
        _paste(canvas, part, numeral_box, None)
    if word and not english:
        _paste(canvas, _glyph(_written(BONUS_TEXT[code], in_font), in_font, word_ink),
               char_box if numeral else (m + half // 2, m, w - m - half // 2, m + band), None)
    elif english:
        text = BONUS_WORDS[code][1 if style.short_words else 0]
        y = h - m - band if style.word_below else m
        box = (m, y, w - m, y + band) if not numeral or style.word_below else (
            char_box[0], y, char_box[2], y + band)
        _paste(canvas, _english(text, style, word_ink), box, None)
    return canvas


def dots_face(count: int, style: DrawnStyle) -> np.ndarray:
    canvas = _blank()
    area = _area(style, style.index)
    places, radius_share = DOT_PLACES[count]
    radius = int(radius_share * (area[2] - area[0]) * (1 if count == 1 else style.spread) * style.disc_size)
    for (point, ink) in zip(places, DOT_INKS[count], strict=True):
        x, y = _place(area, point, style.spread if count > 1 else 1)
        _disc(canvas, (int(x), int(y)), radius, style.inks[ink], style)
    if style.index:
        _index(canvas, str(count), style)
    return canvas


def bamboo_face(count: int, style: DrawnStyle) -> np.ndarray:
    canvas = _blank()
    area = _area(style, style.index)
    places, rows = STICK_PLACES[count]
    height = (area[3] - area[1]) / rows * 0.86
    width = (area[2] - area[0]) / 4 * style.stick_width
    if count == 8 and style.m_eight:
        # Two Ms, top and bottom: the outer sticks upright, the inner ones leaning in.
        for y in (0.25, 0.75):
            for x, angle in ((0.12, 0), (0.37, 22), (0.63, -22), (0.88, 0)):
                _stick(canvas, _place(area, (x, y), 1), (width, height), angle, style.inks[1], style)
    else:
        for point, ink in zip(places, STICK_INKS[count], strict=True):
            _stick(canvas, _place(area, point, 1), (width, height), 0, style.inks[ink], style)
    if style.index:
        _index(canvas, str(count), style)
    return canvas


def character_face(number: int, style: DrawnStyle, art: ArtBank) -> np.ndarray:
    numeral = _big(cut(art.face(style.numerals_from, f"{number}m"), NUMERAL_REGION))
    wan = _big(cut(art.face(style.wan_from, "1m"), WAN_REGION))
    recoloured = (style.inks[2], style.inks[0]) if style.recolour else (None, None)
    return _character(number, numeral, wan, style, *recoloured)


def _character(number: int, numeral: np.ndarray, wan: np.ndarray, style: DrawnStyle, numeral_ink, wan_ink
               ) -> np.ndarray:
    """A character face: ``numeral`` over ``wan`` (each in its own colours, or the ink given), an index maybe."""
    canvas = _blank()
    w, h = canvas.shape[1], canvas.shape[0]
    m = int(style.margin * w)
    top = int(0.12 * h) if style.index else m
    middle = top + int((h - top - m) * 0.42)
    _paste(canvas, numeral, (m, top, w - m, middle), numeral_ink)
    _paste(canvas, wan, (m, middle + m // 3, w - m, h - m), wan_ink)
    if style.index:
        _index(canvas, str(number), style)
    return canvas


def whole_face(set_name: str, code: str, style: DrawnStyle, art: ArtBank) -> np.ndarray:
    canvas = _blank()
    w, h = canvas.shape[1], canvas.shape[0]
    m = int(style.margin * w * 0.6)
    top = int(0.12 * h) if style.index and code in INDEX_TEXT else m
    _paste(canvas, _big(cut(art.face(set_name, code), WHOLE_REGION)), (m, top, w - m, h - m), None)
    if style.index and code in INDEX_TEXT:
        _index(canvas, INDEX_TEXT[code], style)
    return canvas


def _blank() -> np.ndarray:
    return np.full((FACE_SIZE[1] * DRAW_SCALE, FACE_SIZE[0] * DRAW_SCALE, 3), PAPER, np.uint8)


def _big(part: np.ndarray) -> np.ndarray:
    return cv2.resize(part, None, fx=DRAW_SCALE, fy=DRAW_SCALE, interpolation=cv2.INTER_CUBIC).astype(np.float32)


def light_sets(art: ArtBank) -> list[str]:
    """The sets whose faces are light (a dark face's ink is not told from its ground)."""
    return [name for name in art.names
            if name not in BODY_SETS and float(np.median(art.faces[name]["1m"])) > 150]


def font_files(folder: Path | None) -> list[Path]:
    """The fonts in ``folder`` (none without one)."""
    if folder is None:
        return []
    return sorted(path for path in Path(folder).iterdir() if path.suffix.lower() in FONT_SUFFIXES)


def draw_style(rng: np.random.Generator, art: ArtBank, sources: list[str], fonts: list[Path],
               font_share: float = P_FONT, pictured_share: float = 0.0) -> DrawnStyle:
    picks = rng.choice(len(INKS), 3, replace=False)
    inks = tuple(INKS[int(i)] for i in picks)
    flowered = [name for name in sources if any(code in art.faces[name] for code in BONUS_CODES)]
    pick = lambda pool: pool[int(rng.integers(len(pool)))]  # noqa: E731
    return DrawnStyle(
        inks=inks, margin=float(rng.uniform(0.05, 0.14)), spread=float(rng.uniform(0.85, 1.05)),
        disc_size=float(rng.uniform(0.95, 1.25)),
        disc_rings=int(rng.integers(0, 3)), disc_centre=str(rng.choice(("dot", "spokes", "petals", "none"))),
        disc_fill=bool(rng.random() < 0.35), stick_joints=int(rng.integers(1, 4)),
        stick_width=float(rng.uniform(0.45, 0.8)), index=bool(rng.random() < P_INDEX),
        index_right=bool(rng.random() < 0.3), m_eight=bool(rng.random() < P_M_EIGHT),
        numerals_from=pick(sources), wan_from=pick(sources), recolour=bool(rng.random() < P_RECOLOUR),
        honours_from=pick(sources), flowers_from=pick(flowered),
        font=pick(fonts) if fonts and rng.random() < font_share else None,
        weight=int(rng.integers(0, 3 * DRAW_SCALE)),
        simplified=bool(rng.random() < 0.25), formal_five=bool(rng.random() < 0.5),
        pictured=bool(rng.random() < pictured_share), bonus_cues=str(rng.choice(BONUS_CUES)),
        bonus_font=pick(fonts) if fonts and rng.random() < 0.5 else None, short_words=bool(rng.random() < 0.3),
        word_below=bool(rng.random() < 0.5), numeral_right=bool(rng.random() < 0.5),
        hershey=int(rng.choice(HERSHEY)),
        shared_pictures=(bool(rng.random() < 0.5), bool(rng.random() < 0.5)),
        kinds=(str(rng.choice(KINDS)), str(rng.choice(KINDS))), picture_seed=int(rng.integers(2 ** 31)),
    )


def drawn_set(rng: np.random.Generator, art: ArtBank, sources: list[str], fonts: list[Path] = (),
              font_share: float = P_FONT, pictured_share: float = 0.0) -> dict[str, np.ndarray]:
    """Every face of one set, ``FACE_SIZE``, uint8 BGR."""
    style = draw_style(rng, art, sources, list(fonts), font_share, pictured_share)
    faces: dict[str, np.ndarray] = {}
    for n in range(1, 10):
        faces[f"{n}p"] = dots_face(n, style)
        faces[f"{n}m"] = font_character_face(n, style) if style.font else character_face(n, style, art)
        if n > 1:
            faces[f"{n}s"] = bamboo_face(n, style)
    faces["1s"] = whole_face(style.honours_from, "1s", style, art)
    for code in HONOUR_CODES:
        faces[code] = font_honour_face(code, style) if style.font else whole_face(style.honours_from, code, style, art)
    for code in BONUS_CODES:
        if style.pictured:
            faces[code] = pictured_bonus_face(code, style)
        elif style.font:
            faces[code] = font_bonus_face(code, style)
        elif code in art.faces[style.flowers_from]:
            faces[code] = whole_face(style.flowers_from, code, style, art)
    return {code: cv2.resize(face, FACE_SIZE, interpolation=cv2.INTER_AREA) for code, face in faces.items()}


def write_drawn_art(out: Path, n: int, seed: int, art_dir: Path, fonts_dir: Path | None = None,
                    font_share: float = P_FONT, pictured_share: float = 0.0) -> list[str]:
    """``n`` drawn sets as art folders ``out/drawn_<seed>_<i>/<code>.png``; their names."""
    art = ArtBank(art_dir, sets_of_group(art_dir, "general"))
    sources, fonts = light_sets(art), font_files(fonts_dir)
    return write_art_sets(out, "drawn", seed, n,
                          lambda rng: drawn_set(rng, art, sources, fonts, font_share, pictured_share))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, required=True, help="sets to draw")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="folder to write the sets' art into")
    parser.add_argument("--source", type=Path, required=True,
                        help="the tile art folder to take parts from (as mjlens synth --art)")
    parser.add_argument("--fonts", type=Path, help="a folder of CJK fonts (.otf, .ttf) to write faces in")
    parser.add_argument("--font-share", type=float, default=P_FONT,
                        help=f"given fonts, the share of sets whose characters and honours are written in one "
                             f"(default {P_FONT})")
    parser.add_argument("--pictured-flowers", type=float, default=0.0,
                        help="the share of sets whose flowers and seasons are pictures drawn anew (default 0)")
    args = parser.parse_args(argv)
    names = write_drawn_art(args.out, args.n, args.seed, args.source, args.fonts, args.font_share,
                            args.pictured_flowers)
    print(f"{len(names)} drawn sets in {args.out}")


if __name__ == "__main__":
    main()
