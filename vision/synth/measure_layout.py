"""Measure the layout step on a synthetic set: feed each image's ground-truth boxes as detections and compare
the groups and the hand it reads with the truth recorded in ``hands/*.json``.

    python -m vision.synth.measure_layout DIR [--limit N] [--show-failures K]

A hand counts as read right when the concealed tiles, every meld (its tiles, kind and whether concealed), the
flowers, the winning tile (or its absence) and the clutter are all as laid out. A concealed kong of four backs
cannot be read (its face is unseen): there the groups must be right and the hand must be None with a warning.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from scoring.tiles import sort_key
from vision.detection import Detection
from vision.layout import assemble


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


def check(record: dict) -> tuple[bool, str]:
    """Whether the layout reads this record's ground-truth boxes as its hand; the reason when not."""
    dets = [Detection(t["code"], tuple(t["box"]), 1.0) for t in record["labels"]]
    layout = assemble(dets, record["width"], record["height"])
    if _groups_key(layout.groups, record["labels"]) != _groups_key(record["groups"], record["labels"]):
        return False, "groups differ"
    unreadable = any(
        g["role"] == "meld" and all(record["labels"][i]["code"] == "back" for i in g["tiles"]) for g in record["groups"]
    )
    if unreadable:
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
    args = parser.parse_args(argv)
    files = sorted((args.dir / "hands").glob("*.json"))
    if args.limit:
        files = files[: args.limit]
    if not files:
        print(f"no hands/*.json under {args.dir}", file=sys.stderr)
        return 2
    right, total, skipped = 0, 0, 0
    reasons: Counter = Counter()
    shown = 0
    for f in files:
        record = json.loads(f.read_text())
        if not record.get("complete", True):
            skipped += 1
            continue
        total += 1
        ok, why = check(record)
        right += ok
        if not ok:
            reasons[why.split(":")[0]] += 1
            if shown < args.show_failures:
                shown += 1
                print(f"{f.name}: {why}")
    rate = right / total if total else 0.0
    print(f"layout right on {right}/{total} complete hands = {rate:.1%} ({skipped} close-ups with part of the hand "
          f"out of frame skipped)")
    for why, n in reasons.most_common():
        print(f"  {n:4d}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
