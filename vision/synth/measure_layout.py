"""Measure the layout step on a synthetic set: feed each image's ground-truth boxes as detections and compare
the groups and the hand it reads with the truth recorded in ``hands/*.json``.

    python -m mjlens.vision.synth.measure_layout DIR [--limit N] [--show-failures K] [--jitter F]
    python -m mjlens.vision.synth.measure_layout DIR --read [--conf P] [--bonus-conf P] [--back-conf P]

A hand counts as read right when the concealed tiles, every meld (its tiles, kind and whether concealed), the
flowers, the winning tile (or its absence) and the clutter are all as laid out. A concealed kong of four backs
cannot be read (its face is unseen): there the groups must be right and the hand must be None with a warning.
With ``--read`` each photo goes through the whole product instead (decode, the tile reader, layout): its hand must
be the one laid out, as the scorer would take it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from mjlens.scoring.tiles import sort_key
from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import assemble


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
    by_role: dict[str, set] = {"flowers": set(), "other": set()}
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
    hand, warnings = reading.get("hand"), reading.get("warnings", [])
    if _four_back_kong(record):
        return (hand is None and any("four backs" in w for w in warnings)), "four-back kong"
    if hand is None:
        return False, "no hand"
    if _hand_key(hand) != _hand_key(record["hand"]):
        return False, "hand differs"
    return True, ""


def check(record: dict, jitter: float = 0.0, rng: np.random.Generator | None = None) -> tuple[bool, str]:
    """Whether the layout reads this record's ground-truth boxes as its hand; the reason when not."""
    boxes = _boxes(record, jitter, rng)
    dets = [Detection(t["code"], box, 1.0) for t, box in zip(record["labels"], boxes, strict=True)]
    layout = assemble(dets, record["width"], record["height"])
    if _groups_key(layout.groups, record["labels"]) != _groups_key(record["groups"], record["labels"]):
        return False, "groups differ"
    if _four_back_kong(record):
        return (layout.hand is None and any("four backs" in w for w in layout.warnings)), "four-back kong"
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
            ok, why = check_reading(record, recognizer.recognize_path(args.dir / record["image"]))
        right += ok
        if not ok:
            reasons[why.split(":")[0]] += 1
            if shown < args.show_failures:
                shown += 1
                print(f"{f.name}: {why}")
    rate = right / total if total else 0.0
    what = "photos read as their hand" if args.read else "layout right"
    print(f"{what} on {right}/{total} complete hands = {rate:.1%} ({skipped} close-ups with part of the hand "
          f"out of frame skipped)")
    for why, n in reasons.most_common():
        print(f"  {n:4d}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
