"""How often the reader reads a single tile shown close up (docs/experiments/close-ups.md).

Synthetic close-ups (``vision.synth.close_up``: one tile filling 40-95 % of the frame, slightly turned, on the table
or held), half of them flowers and seasons, of the general sets and of the held-out ones
(``vision.synth.art.HELD_OUT_FAMILIES``), each read as ``mjlens recognize`` reads a photo. A close-up is read
**right** when a tile of its code is among the tiles read, **wrong** when tiles are read but none of its code, and
**nothing** when no tile is read. ``--without NAME`` reads without that second reading (``close up``: as before it).

    python benchmarks/measure_close_ups.py --n 200 --seed 200
    python benchmarks/measure_close_ups.py --n 200 --seed 200 --without "close up"
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from mjlens.vision.reading import reader as reader_module  # noqa: E402
from mjlens.vision.reading.reader import load_tile_reader  # noqa: E402
from mjlens.vision.runtime.decode import load_image  # noqa: E402
from mjlens.vision.synth.art import HELD_OUT_SETS, ArtBank, sets_of_group  # noqa: E402
from mjlens.vision.synth.close_up import close_up  # noqa: E402

ART = REPO.parent / "shared" / "datasets" / "tile-art"
FILL_BANDS = ((0.4, 0.6), (0.6, 0.8), (0.8, 0.96))


def outcome(code: str, tiles) -> str:
    if not tiles:
        return "nothing"
    return "right" if any(t.code == code for t in tiles) else "wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="close-ups of each group of sets")
    parser.add_argument("--seed", type=int, default=200)
    parser.add_argument("--without", action="append", default=[], help="a second reading left out, by name")
    parser.add_argument("--json", type=Path, help="write every close-up's outcome here")
    args = parser.parse_args()
    reader_module.SECOND_READINGS = tuple(s for s in reader_module.SECOND_READINGS if s.name not in args.without)
    reader = load_tile_reader()
    rows = []
    for group in ("general", "held-out"):
        sets = sets_of_group(ART, group)
        art = ArtBank(ART, sets, even=True)
        for index in range(args.n):
            shot = close_up(np.random.default_rng([args.seed, index, int(group == "held-out")]), art)
            ok, buf = cv2.imencode(".jpg", shot.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            image = load_image(buf.tobytes(), target_side=reader.decode_side)
            tiles = reader.detect(image.bgr, image.scale)
            rows.append({"group": group, "code": shot.code, "fill": round(shot.fill, 3), "held": shot.held,
                         "outcome": outcome(shot.code, tiles), "read": [t.code for t in tiles]})
    assert not (set(sets_of_group(ART, "general")) & HELD_OUT_SETS)
    for group in ("general", "held-out"):
        mine = [r for r in rows if r["group"] == group]
        print(f"{group}: {len(mine)} close-ups", dict(Counter(r["outcome"] for r in mine)))
        for low, high in FILL_BANDS:
            band = [r for r in mine if low <= r["fill"] < high]
            print(f"  fill {low:.1f}-{high:.1f}: {len(band):3d}", dict(Counter(r["outcome"] for r in band)))
        flowers = [r for r in mine if r["code"].endswith("f")]
        print(f"  flowers and seasons: {len(flowers):3d}", dict(Counter(r["outcome"] for r in flowers)))
        held = [r for r in mine if r["held"]]
        print(f"  held: {len(held):3d}", dict(Counter(r["outcome"] for r in held)))
        several = sum(len(r["read"]) > 1 for r in mine)
        print(f"  more than one tile read: {several}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
