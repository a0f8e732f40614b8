"""Whole hands from synthetic photos: how often the layout step gets a hand's structure and the whole hand right,
and each kong by the way it lies (four face up in a row, three with the fourth stacked on the middle one, two
backs and two faces, four backs).

Photos come from ``mjlens synth`` with table habits (``generate_one`` with ``Habits()``: uneven rows, the winning
tile a little apart, other players' tiles behind, stacked kongs, sideways claimed tiles, melds and flowers in rows
of their own) of the art sets no reader was trained on (``--sets held-out``). Close-ups that cut the hand are
skipped. Each photo is read two ways:

- ``boxes``: its labelled boxes as a detector can report them (of two boxes of one code overlapping more than the
  detector's NMS allows, the second is lost, as a stacked tile seen from straight above is), each read sure and
  right: the layout's own errors alone;
- ``reader`` (``--read``): the whole product on the JPEG (decode, the tile reader, layout): the reader's errors too;
- ``reader's boxes`` (``--read``): the boxes the reader found, each with the code of the labelled tile it covers
  (``measure_layout.with_true_codes``): the layout's errors on a detector's boxes, misreadings aside.

Figures, each over the complete hands:

- structure right: melds (as sets of tiles), flowers, the winning tile or its absence, and no tile of the table in
  the hand, whatever the codes read (``measure_layout.check_structure``);
- whole hand right: every code too; a hand with a kong of four backs counts when the reading asks for that kong
  (warning code ``face_down_kong`` on its group, no hand guessed) and, once given the kong's tile, gives the hand;
- a kong right: a meld group of exactly its tiles, a kong, concealed as laid, of its tile (four backs: asked, never
  guessed, and right once answered);
- how sure: the melds read, split by their ``sure`` at the page's mark (0.7), and how many of each are wrong (not
  exactly a meld of the record, as a set of tiles).

    python benchmarks/bench_layout.py --n 400 --seed 9001            # boxes only: a minute or two
    python benchmarks/bench_layout.py --n 400 --seed 9001 --read     # and the product's reader (models/)
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

import numpy as np  # noqa: E402

from mjlens.vision.boxes import box_iou  # noqa: E402
from mjlens.vision.detection import Detection  # noqa: E402
from mjlens.vision.hand.layout import FACE_DOWN_KONG, assemble  # noqa: E402
from mjlens.vision.recognize import answer_kongs, recognition_json  # noqa: E402
from mjlens.vision.runtime.detector import NMS_IOU  # noqa: E402
from mjlens.vision.synth.art import ArtBank, sets_of_group  # noqa: E402
from mjlens.vision.synth.generate import generate_one  # noqa: E402
from mjlens.vision.synth.measure_layout import (  # noqa: E402
    _hand_key,
    check_structure,
    match_labels,
    with_true_codes,
)
from mjlens.vision.synth.scene import Habits  # noqa: E402

ART = REPO.parent / "shared" / "datasets" / "tile-art"
KONG_WAYS = ("in a row", "stacked", "two backs", "four backs")
UNSURE_GROUP = 0.7  # the page marks a group under this (api/service/static/app.js)


def as_detected(labels: list[dict]) -> list[Detection]:
    """The labelled boxes as a detector reports them: sure and right, but of two boxes of one code overlapping
    more than its NMS allows only the first."""
    kept: list[int] = []
    boxes = np.array([t["box"] for t in labels], float).reshape(-1, 4)
    iou = box_iou(boxes, boxes, np.float64) if len(labels) else np.zeros((0, 0))
    for i, t in enumerate(labels):
        if not any(labels[k]["code"] == t["code"] and iou[i, k] > NMS_IOU for k in kept):
            kept.append(i)
    return [Detection(labels[i]["code"], tuple(labels[i]["box"]), 1.0) for i in kept]


def kong_way(record: dict, group: dict) -> str:
    codes = [record["labels"][i]["code"] for i in group["tiles"]]
    if codes.count("back") == 4:
        return "four backs"
    if "back" in codes:
        return "two backs"
    return "stacked" if group.get("stacked") else "in a row"


def meld_tiles(record: dict) -> dict[frozenset, str]:
    """Each meld group's tiles -> the tile of its meld (the record's meld groups follow its hand's melds)."""
    groups = [g for g in record["groups"] if g["role"] == "meld"]
    return {frozenset(g["tiles"]): m["tiles"][0] for g, m in zip(groups, record["hand"]["melds"], strict=True)}


def kong_read(reading: dict, record: dict, match: list[int | None], kong: dict, way: str, tile: str) -> bool:
    """Whether the reading has this kong right (module docstring); four backs: asked, and no hand guessed."""
    truth = set(kong["tiles"])
    for k, g in enumerate(reading["groups"]):
        if g["role"] != "meld" or {match[i] for i in g["tiles"]} != truth or len(g["tiles"]) != len(truth):
            continue
        if g.get("kind") != "kong" or bool(g.get("concealed")) != bool(kong.get("concealed")):
            return False
        if way == "four backs":
            asked = any(d["code"] == FACE_DOWN_KONG and d.get("group") == k for d in reading["warning_details"])
            return asked and reading["hand"] is None
        return all(reading["tiles"][i]["code"] in (tile, "back") for i in g["tiles"])
    return False


def whole_hand_right(reading: dict, record: dict, match: list[int | None], tiles: dict[frozenset, str]) -> bool:
    """The hand read is the record's; where kongs of four backs are asked, once their true tiles are given (a kong
    asked that is none of the record's is answered wrong)."""
    asked = [d for d in reading["warning_details"] if d["code"] == FACE_DOWN_KONG]
    if asked:
        if reading["hand"] is not None:
            return False
        answers = [tiles.get(frozenset(match[i] for i in reading["groups"][d["group"]]["tiles"]), "back")
                   for d in asked]
        if "back" in answers:
            return False
        reading = answer_kongs(reading, answers)
    return reading["hand"] is not None and _hand_key(reading["hand"]) == _hand_key(record["hand"])


def evaluate(reading: dict, record: dict) -> dict[str, Any]:
    match = match_labels([t["box"] for t in reading["tiles"]], record)
    tiles = meld_tiles(record)
    kongs = [g for g in record["groups"] if g["role"] == "meld" and g.get("kind") == "kong"]
    truth_melds = {frozenset(g["tiles"]) for g in record["groups"] if g["role"] == "meld"}
    melds = [(g.get("sure", 1.0) < UNSURE_GROUP, frozenset(match[i] for i in g["tiles"]) in truth_melds)
             for g in reading["groups"] if g["role"] == "meld"]
    return {"melds": melds, "structure": check_structure(record, reading)[0],
            "whole": whole_hand_right(reading, record, match, tiles),
            "kongs": [(kong_way(record, g), kong_read(reading, record, match, g, kong_way(record, g),
                                                     tiles[frozenset(g["tiles"])])) for g in kongs]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=400, help="photos generated (close-ups are skipped)")
    parser.add_argument("--seed", type=int, default=9001)
    parser.add_argument("--sets", default="held-out", help="'held-out', 'general' or comma-separated art sets")
    parser.add_argument("--size", type=int, default=640)
    parser.add_argument("--read", action="store_true", help="also read each photo with the product's reader")
    parser.add_argument("--json", type=Path, help="write each photo's verdicts here")
    args = parser.parse_args()
    sets = sets_of_group(ART, args.sets) if args.sets in ("held-out", "general") else args.sets.split(",")
    art = ArtBank(ART, sets)
    recognizer = None
    if args.read:
        from mjlens.vision.recognize import Recognizer

        recognizer = Recognizer()
    ways = ("boxes", "reader", "reader's boxes") if recognizer else ("boxes",)
    rows, started = [], time.perf_counter()
    for index in range(args.n):
        sample = generate_one(args.seed, index, art, args.size, Habits())
        if not sample.record["complete"]:
            continue
        labels = [{"code": c, "box": [x1, y1, x2, y2]} for c, x1, y1, x2, y2 in sample.labels]
        record = {"labels": labels, **sample.record}
        row: dict[str, Any] = {"index": index}
        dets = as_detected(labels)
        row["boxes"] = evaluate(recognition_json(assemble, dets, sample.width, sample.height, "synth.jpg"), record)
        if recognizer is not None:
            reading = recognizer.recognize(sample.jpeg, "synth.jpg")
            row["reader"] = evaluate(reading, record)
            found = [Detection(t["code"], tuple(t["box"]), t["confidence"]) for t in reading["tiles"]]
            row["reader's boxes"] = evaluate(recognition_json(assemble, with_true_codes(found, record), sample.width,
                                                              sample.height, "synth.jpg"), record)
        rows.append(row)
    print(f"{len(rows)} complete hands of {args.n} photos (seed {args.seed}, art {args.sets}), "
          f"{time.perf_counter() - started:.0f} s")
    summary = {way: _summary([r[way] for r in rows]) for way in ways}
    _print(summary, ways)
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "photos": rows}, indent=1))
    return 0


def _summary(results: list[dict]) -> dict[str, Any]:
    kongs: Counter = Counter()
    right: Counter = Counter()
    for r in results:
        for way, ok in r["kongs"]:
            kongs[way] += 1
            right[way] += ok
    with_kongs = [r for r in results if r["kongs"]]
    melds = Counter((unsure, right) for r in results for unsure, right in r["melds"])
    return {"melds_unsure": [melds[True, False], melds[True, True] + melds[True, False]],
            "melds_sure": [melds[False, False], melds[False, True] + melds[False, False]],
            "hands": len(results), "structure": sum(r["structure"] for r in results),
            "whole": sum(r["whole"] for r in results), "kong_hands": len(with_kongs),
            "kong_hands_whole": sum(r["whole"] for r in with_kongs),
            "kongs": {way: [right[way], kongs[way]] for way in KONG_WAYS}}


def _print(summary: dict[str, Any], ways: tuple[str, ...]) -> None:
    def cell(n: int, of: int) -> str:
        return f"{n}/{of} ({n / of:.1%})" if of else "-"

    print("| figure | " + " | ".join(ways) + " |")
    print("|---|" + "---|" * len(ways))
    lines = [("structure right", lambda s: cell(s["structure"], s["hands"])),
             ("whole hand right", lambda s: cell(s["whole"], s["hands"])),
             ("hands with kongs: whole hand right", lambda s: cell(s["kong_hands_whole"], s["kong_hands"]))]
    lines += [(f"kongs {way}", lambda s, w=way: cell(*s["kongs"][w])) for way in KONG_WAYS]
    lines.append(("kongs, all", lambda s: cell(sum(v[0] for v in s["kongs"].values()),
                                               sum(v[1] for v in s["kongs"].values()))))
    lines += [("melds marked unsure: wrong", lambda s: cell(*s["melds_unsure"])),
              ("melds not marked: wrong", lambda s: cell(*s["melds_sure"]))]
    for title, value in lines:
        print(f"| {title} | " + " | ".join(value(summary[w]) for w in ways) + " |")


if __name__ == "__main__":
    raise SystemExit(main())
