"""Flower and season faces told apart by their numeral alone, as many real sets draw them.

In the art sets each flower and season has a picture of its own, so a classifier learns the eight by their pictures.
Many real sets draw the four seasons with one picture and the four flowers with another, and only a numeral in a
corner (1-4, or 一二三四) tells the four apart; on real tiles of a set never trained on, the numeral is what is
misread (docs/experiments/other-crops.md). This module makes art sets of such faces: each set one picture for its
seasons and one for its flowers, cut from the middle of a flower or season face of an art set that draws pictures
(its group is that face's), and one numeral style for each group: Arabic digits in one of OpenCV's fonts, or the
Chinese numeral cut from the top of an art set's 1m-4m, in one colour, in one place. Now and then a group keeps the
pictures of its four source faces and gains a numeral, as some sets draw both. The sets hold the eight faces alone;
their sheets (``vision.synth.sheet``) are one row of eight tiles.

    python -m mjlens.vision.synth.numerals --source ART --n 400 --seed 0 --art runs/numeral-art \\
        --sheets runs/numeral-sheets
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from mjlens.scoring.tiles import FLOWER_CODES, SEASON_CODES
from mjlens.vision.synth.art import ArtBank, cut, distance_from_ground, sets_of_group, write_art_sets
from mjlens.vision.synth.sheet import write_sheets

#: The sets whose flower and season faces are pictures alone: the others write a character or a word across theirs,
#: which a numeral added would contradict.
PICTURE_SETS = ("ffalt_uni", "kmj_default", "kmj_traditional", "xhokir_regular_flowers", "xmj_real")
#: A numeral's ink covers at most this share of its box: more is the face's shading taken for ink.
MAX_INK = 0.45
#: The middle of a face that a picture is cut from (left, top, right, bottom as shares): corners and the top band,
#: where sets put their own numerals and characters, left out.
PICTURE_REGION = (0.12, 0.30, 0.88, 0.78)
#: Where the Chinese numeral of 1m-4m lies: the top band, its corners left out (some sets put a digit there too).
NUMERAL_REGION = (0.18, 0.04, 0.82, 0.42)
#: Numeral colours (BGR): red, blue, black, green, as sets print them.
COLOURS = ((40, 40, 200), (170, 70, 20), (35, 35, 35), (40, 120, 40))
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
         cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX, cv2.FONT_HERSHEY_PLAIN)
#: Where a numeral sits: a corner, or the top middle with the picture below it.
PLACES = ("top left", "top right", "bottom left", "bottom right", "top middle")
#: Share of groups that keep their four source pictures (and gain a numeral) rather than share one.
P_OWN_PICTURES = 0.25
#: A face's size in pixels (width, height), as the art sets draw them.
FACE_SIZE = (120, 160)


@dataclass(frozen=True)
class NumeralStyle:
    chinese_from: str | None  # the art set whose 1m-4m give the numerals, or None for Arabic digits
    font: int
    colour: tuple[int, int, int]
    place: str
    height: float  # the numeral's height as a share of the face's


def _ink(region: np.ndarray) -> np.ndarray:
    """A mask of what is drawn on a face region: pixels far from the region's ground."""
    return (distance_from_ground(region) > 60).astype(np.uint8) * 255


def _tight(mask: np.ndarray) -> np.ndarray | None:
    ys, xs = np.nonzero(mask)
    if len(xs) < 10:
        return None
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def chinese_numerals(art: ArtBank) -> dict[str, list[np.ndarray]]:
    """For each set whose 1m-4m each show a numeral on a light face, the four numerals' ink masks."""
    found = {}
    for name in art.names:
        faces = art.faces[name]
        if not all(f"{n}m" in faces for n in range(1, 5)):
            continue
        regions = [cut(np.clip(faces[f"{n}m"], 0, 255).astype(np.uint8), NUMERAL_REGION) for n in range(1, 5)]
        if min(float(np.median(r)) for r in regions) < 150:  # a dark face: its ink is not told from it
            continue
        masks = [_tight(_ink(r)) for r in regions]
        if all(m is not None and (m > 0).mean() <= MAX_INK for m in masks):
            found[name] = masks
    return found


def pictures(art: ArtBank) -> dict[str, list[tuple[str, np.ndarray]]]:
    """The middles of the flower and season faces of the sets that draw pictures: group -> [(set, picture)]."""
    found: dict[str, list[tuple[str, np.ndarray]]] = {"seasons": [], "flowers": []}
    for name in art.names:
        if name not in PICTURE_SETS:
            continue
        for group, codes in (("seasons", SEASON_CODES), ("flowers", FLOWER_CODES)):
            for code in codes:
                if code in art.faces[name]:
                    found[group].append((name, np.clip(cut(art.faces[name][code], PICTURE_REGION), 0, 255)
                                         .astype(np.uint8)))
    return found


def _digit(number: int, font: int, height: int) -> np.ndarray:
    """The ink mask of an Arabic digit about ``height`` pixels tall."""
    thickness = max(1, height // 9)
    (w, h), base = cv2.getTextSize(str(number), font, 1.0, thickness)
    scale = height / max(h, 1)
    canvas = np.zeros((int(height * 1.6) + 4, int(w * scale * 1.4) + 4), np.uint8)
    cv2.putText(canvas, str(number), (2, int(height * 1.2)), font, scale, 255, thickness, cv2.LINE_AA)
    tight = _tight(canvas)
    return canvas if tight is None else tight


def _numeral(number: int, style: NumeralStyle, chinese: dict[str, list[np.ndarray]], face_height: int) -> np.ndarray:
    height = max(8, int(style.height * face_height))
    if style.chinese_from is None:
        mask = _digit(number, style.font, height)
    else:
        mask = chinese[style.chinese_from][number - 1]
    scale = height / mask.shape[0] if style.chinese_from is None else height / max(mask.shape)
    size = (max(1, int(round(mask.shape[1] * scale))), max(1, int(round(mask.shape[0] * scale))))
    return cv2.resize(mask, size, interpolation=cv2.INTER_AREA)


def face(picture: np.ndarray, mask: np.ndarray, style: NumeralStyle, rng: np.random.Generator) -> np.ndarray:
    """A face of ``FACE_SIZE``: a light ground, ``picture`` in the middle (below the numeral when it sits top
    middle), the numeral's ``mask`` in its colour at its place."""
    width, height = FACE_SIZE
    ground = np.array([242, 244, 246], np.float32) - rng.uniform(0, 18, 3).astype(np.float32)
    out = np.empty((height, width, 3), np.float32)
    out[:] = ground
    top = 0.3 if style.place == "top middle" else 0.12
    box_w, box_h = int(width * 0.8), int(height * (0.9 - top))
    scale = min(box_w / picture.shape[1], box_h / picture.shape[0])
    pic = cv2.resize(picture, (max(1, int(picture.shape[1] * scale)), max(1, int(picture.shape[0] * scale))),
                     interpolation=cv2.INTER_AREA).astype(np.float32)
    x, y = (width - pic.shape[1]) // 2, int(height * top) + (box_h - pic.shape[0]) // 2
    drawn = _ink(pic.astype(np.uint8))[..., None].astype(np.float32) / 255.0  # the picture's own ground dropped
    under = out[y:y + pic.shape[0], x:x + pic.shape[1]]
    out[y:y + pic.shape[0], x:x + pic.shape[1]] = pic * drawn + under * (1 - drawn)
    mh, mw = mask.shape
    margin = int(0.05 * width)
    left = {"top left": margin, "bottom left": margin, "top right": width - mw - margin,
            "bottom right": width - mw - margin, "top middle": (width - mw) // 2}[style.place]
    upper = height - mh - margin if style.place.startswith("bottom") else margin
    left, upper = max(0, min(left, width - mw)), max(0, min(upper, height - mh))
    alpha = mask[: height - upper, : width - left].astype(np.float32)[..., None] / 255.0
    patch = out[upper:upper + alpha.shape[0], left:left + alpha.shape[1]]
    out[upper:upper + alpha.shape[0], left:left + alpha.shape[1]] = (
        patch * (1 - alpha) + np.array(style.colour, np.float32) * alpha)
    return np.clip(out, 0, 255).astype(np.uint8)


def _style(rng: np.random.Generator, chinese: dict[str, list[np.ndarray]]) -> NumeralStyle:
    use_chinese = chinese and rng.random() < 0.5
    return NumeralStyle(
        chinese_from=sorted(chinese)[int(rng.integers(len(chinese)))] if use_chinese else None,
        font=FONTS[int(rng.integers(len(FONTS)))],
        colour=COLOURS[int(rng.integers(len(COLOURS)))],
        place=PLACES[int(rng.integers(len(PLACES)))],
        height=float(rng.uniform(0.14, 0.26)),
    )


def numeral_set(rng: np.random.Generator, found: dict[str, list[tuple[str, np.ndarray]]],
                chinese: dict[str, list[np.ndarray]]) -> dict[str, np.ndarray]:
    """The eight faces of one set: per group one numeral style, and one shared picture or four."""
    faces = {}
    for group, codes in (("seasons", SEASON_CODES), ("flowers", FLOWER_CODES)):
        pool = found[group]
        style = _style(rng, chinese)
        if rng.random() < P_OWN_PICTURES:
            source = pool[int(rng.integers(len(pool)))][0]
            own = [pic for name, pic in pool if name == source]
            chosen = [own[i % len(own)] for i in range(4)]
        else:
            chosen = [pool[int(rng.integers(len(pool)))][1]] * 4
        for number, (code, picture) in enumerate(zip(codes, chosen, strict=True), 1):
            faces[code] = face(picture, _numeral(number, style, chinese, FACE_SIZE[1]), style, rng)
    return faces


def write_numeral_art(out: Path, n: int, seed: int, art_dir: Path) -> list[str]:
    """``n`` numeral sets as art folders ``out/numerals_<seed>_<i>/<code>.png``; their names."""
    art = ArtBank(art_dir, sets_of_group(art_dir, "general"))
    found, chinese = pictures(art), chinese_numerals(art)
    return write_art_sets(out, "numerals", seed, n, lambda rng: numeral_set(rng, found, chinese))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, required=True, help="numeral sets to make")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--art", type=Path, required=True, help="folder to write the sets' art into")
    parser.add_argument("--sheets", type=Path, help="also write sheets of every set into this YOLO folder")
    parser.add_argument("--sheets-each", type=int, default=1, help="sheets of each set")
    parser.add_argument("--source", type=Path, required=True,
                        help="the tile art folder to cut from (as mjlens synth --art)")
    args = parser.parse_args(argv)
    names = write_numeral_art(args.art, args.n, args.seed, args.source)
    if args.sheets:
        for name in names:
            write_sheets(args.sheets, args.sheets_each, args.seed, args.art, name)
    print(f"{len(names)} numeral sets in {args.art}" + (f", their sheets in {args.sheets}" if args.sheets else ""))


if __name__ == "__main__":
    main()
