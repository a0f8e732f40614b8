"""Measure the layout step on a synthetic set: feed each image's ground-truth boxes as detections and compare
the groups and the hand it reads with the truth recorded in ``hands/*.json``.

    python -m mjlens.vision.synth.measure_layout DIR [--limit N] [--show-failures K] [--jitter F]
    python -m mjlens.vision.synth.measure_layout DIR --read [--conf P] [--bonus-conf P] [--back-conf P]

A hand counts as read right when the concealed tiles, every meld (its tiles, kind and whether concealed), the
flowers, the winning tile (or its absence) and the clutter are all as laid out. A concealed kong of four backs
cannot be read (its face is unseen): there the groups must be right and the hand must be None, the kong asked for
(warning code ``face_down_kong``).
With ``--read`` each photo goes through the whole product instead (decode, the tile reader, layout): its hand must
be the one laid out, as the scorer would take it. Three figures come out of one reading of each photo: the whole
hand; its structure (each detected tile matched to a labelled one by its box: the melds as sets of tiles, the
flowers, the winning tile or its absence, and no tile of the table, such as another player's, in the hand),
whatever the codes; and the hand laid out from the detected boxes with their true codes (the layout's share of
the errors, reading errors aside).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from mjlens.scoring.tiles import sort_key
from mjlens.vision.boxes import box_iou
from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import FACE_DOWN_KONG, assemble

#: A detected box is the labelled tile it overlaps most, at least this much (intersection over union).
MATCH_IOU = 0.5


def _hand_key(hand: dict) -> tuple:
    melds = sorted(
        (m["kind"], tuple(sorted(m["tiles"], key=sort_key)), bool(m.get("concealed", False))) for m in hand["melds"]
    )
    return (
        tuple(sorted(hand["concealed"], key=sort_key)),
        tuple(melds),
        hand.get("winning_tile"),
        tuple(sorted(hand.get("flowers", []), key=sort_key)),
    )


def _groups_key(groups: list[dict], labels: list[dict]) -> tuple:
    """Groups as a comparable value. The concealed row and the winning tile are compared by their codes: when
    the row's end tile and the tile set apart are the same tile (a pair wait), either reading is the same."""
    by_role: dict[str, set] = {"flowers": set(), "other": set(), "dora": set()}
    codes: dict[str, list] = {"concealed": [], "winning": []}
    melds = set()
    for g in groups:
        if g["role"] == "meld":
            melds.add((g.get("kind"), bool(g.get("concealed", False)), frozenset(g["tiles"])))
        elif g["role"] in codes:
            codes[g["role"]].extend(labels[i]["code"] for i in g["tiles"])
        else:
            by_role[g["role"]] |= set(g["tiles"])
    return (
        tuple(sorted(codes["concealed"])),
        tuple(sorted(codes["winning"])),
        frozenset(by_role["flowers"]),
        frozenset(by_role["other"]),
        frozenset(by_role["dora"]),
        frozenset(melds),
    )


def _boxes(record: dict, jitter: float, rng: np.random.Generator | None) -> list[tuple[float, ...]]:
    """The ground-truth boxes, each edge moved by up to ``jitter`` of the box's size (a detector's looseness)."""
    out = []
    for t in record["labels"]:
        x1, y1, x2, y2 = t["box"]
        if jitter and rng is not None:
            w, h = x2 - x1, y2 - y1
            dx1, dx2 = rng.uniform(-jitter, jitter, 2) * w
            dy1, dy2 = rng.uniform(-jitter, jitter, 2) * h
            x1, x2, y1, y2 = x1 + dx1, x2 + dx2, y1 + dy1, y2 + dy2
        out.append((x1, y1, x2, y2))
    return out


def _four_back_kong(record: dict) -> bool:
    return any(
        g["role"] == "meld" and all(record["labels"][i]["code"] == "back" for i in g["tiles"]) for g in record["groups"]
    )


def check_reading(record: dict, reading: dict) -> tuple[bool, str]:
    """Whether the product's reading of the photo (``Recognizer.recognize``'s JSON) gives this record's hand."""
    hand = reading.get("hand")
    if _four_back_kong(record):
        asked = any(d.get("code") == FACE_DOWN_KONG for d in reading.get("warning_details", ()))
        return (hand is None and asked), "four-back kong"
    if hand is None:
        return False, "no hand"
    if _hand_key(hand) != _hand_key(record["hand"]):
        return False, "hand differs"
    return True, ""


def match_labels(boxes: list, record: dict) -> list[int | None]:
    """For each detected box, the labelled tile it is (best overlap first, each label once), or None."""
    labels = [t["box"] for t in record["labels"]]
    if not boxes or not labels:
        return [None] * len(boxes)
    iou = box_iou(np.asarray(boxes, float), np.asarray(labels, float), np.float64)
    out: list[int | None] = [None] * len(boxes)
    taken: set[int] = set()
    for flat in np.argsort(-iou, axis=None):
        d, t = divmod(int(flat), len(labels))
        if iou[d, t] < MATCH_IOU:
            break
        if out[d] is None and t not in taken:
            out[d], taken = t, taken | {t}
    return out


def _structure(groups: list[dict], label_of, record: dict) -> dict:
    """The hand's structure by labelled tiles: melds (sets of tiles), flowers, the winning tile's code and place,
    and the tiles of the hand (for tiles of the table read into it)."""
    melds, flowers, winning, hand = set(), set(), None, set()
    for g in groups:
        tiles = [label_of(i) for i in g["tiles"]]
        if g["role"] == "meld":
            melds.add(frozenset(tiles))
        elif g["role"] == "flowers":
            flowers |= set(tiles)
        elif g["role"] == "winning":
            winning = tiles[0]
        if g["role"] not in ("other", "dora"):  # tiles of the table, and the dora indicators, are no tiles of the hand
            hand |= set(tiles)
    code = record["labels"][winning]["code"] if winning is not None else None
    return {"melds": melds, "flowers": flowers, "winning": (winning, code), "hand": hand}


def check_structure(record: dict, reading: dict) -> tuple[bool, str]:
    """Whether the reading's groups give the record's structure (module docstring), whatever the codes read. The
    winning tile counts as right when it is the tile laid apart, or a tile of the row with its code (a pair wait:
    either is the same hand)."""
    match = match_labels([t["box"] for t in reading.get("tiles", [])], record)
    read = _structure(reading.get("groups", []), lambda i: match[i], record)
    truth = _structure(record["groups"], lambda i: i, record)
    if read["melds"] != truth["melds"]:
        return False, "melds differ"
    if read["flowers"] != truth["flowers"]:
        return False, "flowers differ"
    if read["winning"][1] != truth["winning"][1] or (read["winning"][0] is not None and read["winning"][0]
                                                      not in truth["hand"]):
        return False, "winning tile differs"
    if None in read["hand"] or not read["hand"] <= truth["hand"]:
        return False, "tiles of the table in the hand"
    return True, ""


def with_true_codes(detections: list[Detection], record: dict) -> list[Detection]:
    """The detections with each matched box's code set to its label's (sure, no runner-ups); others as read."""
    match = match_labels([d.box for d in detections], record)
    return [d if t is None else Detection(record["labels"][t]["code"], d.box, 1.0)
            for d, t in zip(detections, match, strict=True)]


def check(record: dict, jitter: float = 0.0, rng: np.random.Generator | None = None) -> tuple[bool, str]:
    """Whether the layout reads this record's ground-truth boxes as its hand; the reason when not."""
    boxes = _boxes(record, jitter, rng)
    dets = [Detection(t["code"], box, 1.0) for t, box in zip(record["labels"], boxes, strict=True)]
    layout = assemble(dets, record["width"], record["height"])
    if _groups_key(layout.groups, record["labels"]) != _groups_key(record["groups"], record["labels"]):
        return False, "groups differ"
    if _four_back_kong(record):
        return (layout.hand is None and any(n["code"] == FACE_DOWN_KONG for n in layout.notices)), "four-back kong"
    if layout.hand is None:
        return False, "no hand: " + "; ".join(layout.warnings)
    if _hand_key(layout.hand.to_json()) != _hand_key(record["hand"]):
        return False, "hand differs"
    return True, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--show-failures", type=int, default=0)
    parser.add_argument("--jitter", type=float, default=0.0, help="move each box edge by up to this share of its size")
    parser.add_argument("--read", action="store_true", help="read each photo with the product's tile reader instead")
    for flag in ("--conf", "--bonus-conf", "--back-conf"):
        parser.add_argument(flag, type=float, help="with --read, the reader's threshold (default: the tuned one)")
    args = parser.parse_args(argv)
    files = sorted((args.dir / "hands").glob("*.json"))
    if args.limit:
        files = files[: args.limit]
    if not files:
        print(f"no hands/*.json under {args.dir}", file=sys.stderr)
        return 2
    right, total, skipped = 0, 0, 0
    rng = np.random.default_rng(0)
    recognizer = None
    if args.read:
        from mjlens.vision.recognize import Recognizer

        recognizer = Recognizer(conf=args.conf, bonus_conf=args.bonus_conf, back_conf=args.back_conf)
    reasons: Counter = Counter()
    more: dict[str, Counter] = {"structure": Counter(), "true codes": Counter()}
    more_right: Counter = Counter()
    shown = 0
    for f in files:
        record = json.loads(f.read_text())
        if not record.get("complete", True):
            skipped += 1
            continue
        total += 1
        if recognizer is None:
            ok, why = check(record, args.jitter, rng)
        else:
            results = _read_three_ways(recognizer, args.dir / record["image"], record)
            (ok, why), extra = results[0], {"structure": results[1], "true codes": results[2]}
            if results[3][0]:
                more_right["all found"] += 1
                more_right["all found, true codes right"] += results[2][0]
            for name, (fine, reason) in extra.items():
                more_right[name] += fine
                if not fine:
                    more[name][reason.split(":")[0]] += 1
            if not ok and shown < args.show_failures:
                print(f"{f.name}: {why}; structure: {extra['structure'][1] or 'right'}; "
                      f"true codes: {extra['true codes'][1] or 'right'}")
        right += ok
        if not ok:
            reasons[why.split(":")[0]] += 1
            if shown < args.show_failures:
                shown += 1
                if recognizer is None:
                    print(f"{f.name}: {why}")
    rate = right / total if total else 0.0
    what = "photos read as their hand" if args.read else "layout right"
    print(f"{what} on {right}/{total} complete hands = {rate:.1%} ({skipped} close-ups with part of the hand "
          f"out of frame skipped)")
    for why, n in reasons.most_common():
        print(f"  {n:4d}  {why}")
    if recognizer is not None:
        titles = {"structure": "structure right (melds, flowers, winning tile, no table tiles in the hand)",
                  "true codes": "hand right with the true codes at the detected boxes"}
        for name, title in titles.items():
            n = more_right[name]
            print(f"{title} on {n}/{total} = {n / total if total else 0.0:.1%}")
            for why, count in more[name].most_common():
                print(f"  {count:4d}  {why}")
        found = more_right["all found"]
        print(f"  of which on the {found} photos whose every tile of the hand was detected: "
              f"{more_right['all found, true codes right']}/{found}")
    return 0


def _read_three_ways(recognizer, path: Path, record: dict) -> list[tuple[bool, str]]:
    """One photo read once by the product: its hand, its structure, and its hand from the true codes."""
    from mjlens.vision.recognize import reading_order

    image = recognizer.decode(path.read_bytes())
    detections = reading_order(recognizer.detector.detect(image.bgr, image.scale))
    reading = recognizer.assemble(detections, image.width, image.height, path.name)
    true_codes = recognizer.assemble(with_true_codes(detections, record), image.width, image.height, path.name)
    return [check_reading(record, reading), check_structure(record, reading), check_reading(record, true_codes),
            (all_found(detections, record), "")]


def all_found(detections: list[Detection], record: dict) -> bool:
    """Whether every tile of the record's hand was detected (matched by its box)."""
    found = set(match_labels([d.box for d in detections], record))
    return all(i in found for g in record["groups"] if g["role"] not in ("other", "dora") for i in g["tiles"])


if __name__ == "__main__":
    sys.exit(main())
