"""Which layout photos ``mjlens profile create`` accepts: correct synthetic layouts of many art sets, and the same
layouts spoilt on purpose (docs/experiments/profile-layouts.md, "Layouts refused").

For each set, ``--n`` layout photos (``mjlens synth --sheet --seed SEED``, the same photos) are read as calibration
photos (``calibration.profile_from_sheets``), and each again laid out wrong three ways on the same table under the
same camera: a code laid twice (a tile laid where its right-hand neighbour belongs), a tile left out, the characters
and dots rows swapped. A correct layout should be accepted, a wrong one refused; a correct one accepted with a tile
named wrong says how many ("misread"). ``--in-runs`` lays the dragons apart from the winds and the flowers apart
from the seasons, a tile's width between. ``--turn`` turns every photo quarter turns clockwise first, as if taken from
another side of the table with no EXIF orientation (docs/experiments/profile-layouts.md, "Photographed from a side").

    python benchmarks/measure_layouts.py --sets all --n 3 --seed 21
    python benchmarks/measure_layouts.py --sets all --n 2 --seed 7 --no-spoils --turn 1
"""

from __future__ import annotations

import argparse
import json
import zlib
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from mjlens.vision.profile import ProfileError, calibration  # noqa: E402
from mjlens.vision.profile.features import FeatureReader  # noqa: E402
from mjlens.vision.profile.layout import SHEET_ROWS  # noqa: E402
from mjlens.vision.reading.reader import load_tile_reader  # noqa: E402
from mjlens.vision.reading.second.turned import turned_exactly, turned_exactly_boxes  # noqa: E402
from mjlens.vision.runtime.decode import load_image  # noqa: E402
from mjlens.vision.synth import photo  # noqa: E402
from mjlens.vision.synth.art import ArtBank  # noqa: E402
from mjlens.vision.synth.render import render  # noqa: E402
from mjlens.vision.synth.scene import Scene  # noqa: E402
from mjlens.vision.synth.sheet import sheet_scene  # noqa: E402

ART = REPO.parent / "shared" / "datasets" / "tile-art"


def laid_twice(scene: Scene, rng: np.random.Generator) -> str:
    """A tile laid where its right-hand neighbour belongs: that code twice, the other missing."""
    pairs = [i for i in range(len(scene.tiles) - 1) if scene.tiles[i].group == scene.tiles[i + 1].group]
    i = pairs[int(rng.integers(len(pairs)))]
    missing_code = scene.tiles[i + 1].shown
    scene.tiles[i + 1].shown = scene.tiles[i + 1].hidden = scene.tiles[i].shown
    return f"{scene.tiles[i].shown} on {missing_code}"


def missing(scene: Scene, rng: np.random.Generator) -> str:
    """One tile left out, its place empty: a row cut short."""
    i = int(rng.integers(len(scene.tiles)))
    gone = scene.tiles.pop(i)
    for group in scene.groups:
        group["tiles"] = [j - (j > i) for j in group["tiles"] if j != i]
    return gone.shown


def rows_swapped(scene: Scene, rng: np.random.Generator) -> str:
    """The characters row laid where the dots row belongs, and the dots where the characters belong."""
    swap = dict(zip(SHEET_ROWS[0], SHEET_ROWS[1], strict=True)) | dict(zip(SHEET_ROWS[1], SHEET_ROWS[0], strict=True))
    for tile in scene.tiles:
        tile.shown = tile.hidden = swap.get(tile.shown, tile.shown)
    return "1m-9m <-> 1p-9p"


SPOILS = {"laid twice": laid_twice, "missing": missing, "rows swapped": rows_swapped}
#: ``--in-runs``: the tiles laid a tile's width on from the rest of their row, as players lay the dragons apart from
#: the winds and the flowers apart from the seasons.
SECOND_RUNS = frozenset({"5z", "6z", "7z", "5f", "6f", "7f", "8f"})
#: Quarter turns clockwise as ``turned_exactly``'s angles.
DEGREES = {1: -90.0, 2: 180.0, 3: 90.0}


def layout_photo(seed: int, index: int, art: ArtBank, spoil: str | None = None, turn: int = 0, in_runs: bool = False
                 ) -> tuple[bytes, str, list[tuple[str, tuple[float, ...]]]]:
    """The JPEG of layout ``index`` drawn as ``mjlens synth --sheet --seed SEED`` draws it (the same table, camera
    and light), laid out right or with ``spoil``, the honours and flowers ``in_runs`` (``SECOND_RUNS``), and turned
    ``turn`` quarter turns clockwise; what was changed; and each tile's code and box in the photo as turned."""
    rng = np.random.default_rng([seed, index])
    scene = sheet_scene(rng, set(art.faces[art.names[0]]))
    where = np.random.default_rng([seed, index, zlib.crc32(f"{art.names[0]} {spoil}".encode())])  # apart per set
    change = "" if spoil is None else SPOILS[spoil](scene, where)
    if in_runs:
        for tile in scene.tiles:
            if tile.hidden in SECOND_RUNS:
                tile.x += 1.0
    rendered = render(rng, scene, art, 1024, upright=True)
    img = photo.degrade(rng, photo.lighting(rng, rendered.image))
    labels = [(scene.tiles[i].shown, box) for i, box in rendered.boxes.items()]
    if turn:
        height, width = img.shape[:2]
        boxes = turned_exactly_boxes([box for _, box in labels], DEGREES[turn], width, height)
        labels = [(code, box) for (code, _), box in zip(labels, boxes, strict=True)]
        img = turned_exactly(img, DEGREES[turn])
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 96))])
    return buf.tobytes(), change, labels


def verdict(reader, features, data: bytes, labels: list[tuple[str, tuple[float, ...]]] | None = None) -> str:
    """"accepted", "misread: N of M" where ``labels`` are given and a tile is named other than the label whose
    centre lies nearest, or the code of the ``ProfileError`` the photo is refused with, and its message."""
    try:
        image = load_image(data, target_side=reader.decode_side)
        reading = calibration.read_sheet(reader, image, features)  # as profile_from_sheets reads each photo
    except ProfileError as err:
        return f"{err.code}: {err.message}"
    if labels:
        centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for _, b in labels])
        wrong = sum(labels[int(np.argmin(np.hypot(*(centres - ((t.box[0] + t.box[2]) / 2,
                                                               (t.box[1] + t.box[3]) / 2)).T)))][0] != t.code
                    for t in reading.tiles)
        if wrong:
            return f"misread: {wrong} of {len(reading.tiles)}"
    return "accepted"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="all", help="comma-separated art sets, or all")
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--no-spoils", action="store_true", help="only the correct layouts")
    parser.add_argument("--turn", type=int, choices=(0, 1, 2, 3), default=0,
                        help="turn every photo this many quarter turns clockwise")
    parser.add_argument("--in-runs", action="store_true",
                        help="lay the dragons apart from the winds and the flowers apart from the seasons")
    parser.add_argument("--json", type=Path, help="write every verdict here")
    args = parser.parse_args()
    names = sorted(p.parent.name for p in ART.glob("*/1m.png")) if args.sets == "all" else args.sets.split(",")
    reader = load_tile_reader()
    features = FeatureReader(reader.classifier)
    results = []
    for name in names:
        art = ArtBank(ART, [name])
        for index in range(args.n):
            for spoil in (None, *(() if args.no_spoils else SPOILS)):
                if spoil == "rows swapped" and not {*SHEET_ROWS[0], *SHEET_ROWS[1]} <= set(art.faces[name]):
                    continue
                data, change, labels = layout_photo(args.seed, index, art, spoil, args.turn, args.in_runs)
                results.append({"set": name, "index": index, "layout": spoil or "correct", "change": change,
                                "verdict": verdict(reader, features, data, None if spoil else labels)})
                print(json.dumps(results[-1], ensure_ascii=False), flush=True)
    summary = Counter((r["layout"], r["verdict"].split(":")[0]) for r in results)
    for (layout, outcome), count in sorted(summary.items()):
        print(f"{layout:14s} {outcome:20s} {count}")
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
