"""What a profile made from a few labelled photos of a real set does on the set's *other* photos, as a player makes
one: ``mjlens label`` the set's photos, take a few of them with their labels corrected, ``mjlens profile create
--from-labels`` of those, then ``mjlens eval`` of a truth file holding only the photos held out, without and with
the profile. Whole photos are held out: no photo a profile was made from is scored.

The labels are ``mjlens label``'s own, corrected against the set's ``truth.json`` where that needs no looking:
a photo whose labels already hold its tiles (as multisets of codes) is *as labelled*; in a photo labelled with
confidence whose labels name one tile wrong and nothing else (one code missed, one read in excess, on one box
only), that box is renamed (*renamed*); where every code read in excess is one the truth does not list at all, those
boxes are dropped and the tiles without a box stay unlabelled (*trimmed*: a box never drawn teaches nothing, and a
photo not labelled with confidence may show tiles its truth leaves out). ``--fixes`` applies corrections made by eye
first (``mjlens eval --fixes`` format: a code renamed, a box dropped, a box drawn). Other photos teach nothing (they
are still scored where held out). ``--pool``: which photos a profile may be made from: ``labelled`` (as labelled),
``corrected`` (and renamed; the default) or ``trimmed`` (all three).

    python benchmarks/measure_profile_real_sets.py --set <shared>/datasets/real-sets/hlin117 --teach 1 --splits 17
    python benchmarks/measure_profile_real_sets.py --set <shared>/datasets/real-sets/hlin117 --teach 3,5 --splits 6
    python benchmarks/measure_profile_real_sets.py --set <shared>/datasets/real-sets/lietxia --teach 1,2 --splits 6 \
        --pool trimmed --fixes datasets/lietxia-label-fixes.txt

Each split prints the held-out photos' tiles right, precision and photos exact without and with the profile, the
codes the profile doubts (reliance under 1: only crops read as those consult its examples) and every held-out
photo whose reading changed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.evaluate import NO_TILE, PhotoFixes, read_fixes

MJLENS = [sys.executable, "-m", "mjlens"]


def run(args: list[str]) -> str:
    done = subprocess.run(MJLENS + args, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"mjlens {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


def truth_codes(entry: dict) -> Counter:
    return Counter(code for row in entry["rows"] for code in row)


def label_lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] \
        if path.is_file() else []


def corrected(entry: dict, lines: list[list[str]]) -> tuple[str, list[list[str]] | None]:
    """How the photo's labels stand against its truth: ("as labelled", lines), ("renamed", lines with the one wrong
    box renamed), ("trimmed", lines without the boxes of codes the truth does not list; its tiles the labels miss
    stay unlabelled), or ("not corrected", None)."""
    read = Counter(DETECTOR_CLASSES[int(line[0])] for line in lines)
    want = truth_codes(entry)
    missed, extra = want - read, read - want
    if not missed and not extra and entry.get("confident", True):
        return "as labelled", lines
    # a photo not labelled with confidence may show a tile the truth leaves out: its one excess box is not known to
    # be the missed tile
    if sum(missed.values()) == 1 and sum(extra.values()) == 1 and entry.get("confident", True):
        (wrong,), (right,) = extra, missed
        if read[wrong] == 1:
            fixed = [[str(DETECTOR_CLASSES.index(right))] + line[1:] if DETECTOR_CLASSES[int(line[0])] == wrong
                     else line for line in lines]
            return "renamed", fixed
    if all(read[code] == n for code, n in extra.items()):
        return "trimmed", [line for line in lines if DETECTOR_CLASSES[int(line[0])] not in extra]
    return "not corrected", None


def fixed(lines: list[list[str]], fixes: PhotoFixes, image: str) -> list[list[str]]:
    """``lines`` with a photo's corrections (``mjlens eval --fixes`` format) applied."""
    out = []
    for number, line in enumerate(lines, 1):
        code = DETECTOR_CLASSES[int(line[0])]
        labelled, shown = fixes.relabelled.get(number, (code, code))
        if labelled != code:
            raise SystemExit(f"{image} line {number}: the fix expects {labelled}, the label gives {code}")
        if shown != NO_TILE:
            out.append([str(DETECTOR_CLASSES.index(shown))] + line[1:])
    return out + [[str(DETECTOR_CLASSES.index(code))] + [f"{v:.6f}" for v in box] for code, box in fixes.missed]


def evaluate(truth: Path, images: Path, profile: Path | None) -> dict:
    args = ["eval", str(truth), "--images", str(images), "--json"]
    return json.loads(run(args + (["--profile", str(profile)] if profile else [])))


def figures(result: dict) -> dict:
    return {key: result[key] for key in ("photos", "labelled", "read", "tiles_right", "precision", "photos_exact")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", required=True, type=Path, help="a real set's folder: truth.json and images/")
    parser.add_argument("--work", type=Path, default=Path("/tmp/profile-real-sets"))
    parser.add_argument("--teach", default="1,3,5", help="photos a profile is made from, one count per run")
    parser.add_argument("--splits", type=int, default=3,
                        help="random splits per count; with a count of 1, at least as many as the photos that may "
                             "teach: each of them once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pool", choices=("labelled", "corrected", "trimmed"), default="corrected",
                        help="photos a profile may be made from: read right as labelled; those and the ones with "
                             "one box renamed (default); those and the ones with boxes of codes not shown dropped")
    parser.add_argument("--fixes", type=Path, help="corrections to the labels checked by eye (mjlens eval --fixes "
                                                     "format), applied before the truth is compared")
    parser.add_argument("--json", type=Path, help="write every split's figures here")
    args = parser.parse_args()

    name = args.set.name
    work = args.work / name
    labels = work / "labels-out"
    run(["label", str(args.set / "images"), "--out", str(labels), "--workers", "1"])
    entries = {entry["image"]: entry for entry in json.loads((args.set / "truth.json").read_text(encoding="utf-8"))}
    fixes = read_fixes(args.fixes) if args.fixes else {}
    status = {}
    for image, entry in entries.items():
        lines = label_lines(labels / "labels" / Path(image).with_suffix(".txt"))
        how, lines = corrected(entry, fixed(lines, fixes[image], image) if image in fixes else lines)
        status[image] = (f"{how}, fixed by eye" if image in fixes else how, lines)
    for image, (how, _) in status.items():
        print(f"{image}: {how}")
    kinds = {"labelled": ("as labelled",), "corrected": ("as labelled", "renamed"),
             "trimmed": ("as labelled", "renamed", "trimmed")}[args.pool]
    pool = sorted(image for image, (how, _) in status.items() if how.split(",")[0] in kinds)
    print(f"{name}: {len(pool)} of {len(entries)} photos may teach ({args.pool})")

    rng = random.Random(args.seed)
    results = []
    for count in (int(n) for n in args.teach.split(",")):
        if count > len(pool) or count >= len(entries):
            print(f"{count} photos: too few to teach and hold out")
            continue
        seen = set()
        # one photo a profile, as many splits as photos or more: each photo once
        every = count == 1 and args.splits >= len(pool)
        for split in range(len(pool) if every else args.splits):
            teach = (pool[split],) if every else tuple(sorted(rng.sample(pool, count)))
            if teach in seen:
                continue
            seen.add(teach)
            where = work / f"teach{count}-{split}"
            shutil.rmtree(where, ignore_errors=True)
            (where / "images").mkdir(parents=True)
            (where / "labels").mkdir()
            for image in teach:
                (where / "images" / image).symlink_to(labels / "images" / image)
                lines = status[image][1]
                (where / "labels" / Path(image).with_suffix(".txt")).write_text(
                    "".join(" ".join(line) + "\n" for line in lines), encoding="utf-8")
            profile = where / "set.profile.npz"
            run(["profile", "create", "--from-labels", str(where), "--out", str(profile)])
            held = [entry for image, entry in entries.items() if image not in teach]
            truth = where / "held-out.json"
            truth.write_text(json.dumps(held, ensure_ascii=False, indent=0), encoding="utf-8")
            without = evaluate(truth, args.set / "images", None)
            with_profile = evaluate(truth, args.set / "images", profile)
            reliance = np.load(profile)["reliance"]
            doubted = {code: round(float(r), 2) for code, r in zip(DETECTOR_CLASSES, reliance, strict=True)
                       if r < 1.0}
            before = {p["image"]: p for p in without["per_photo"]}
            changed = []
            for after in with_profile["per_photo"]:
                old = before[after["image"]]
                if (old["missed"], old["extra"]) != (after["missed"], after["extra"]):
                    changed.append({"image": after["image"], "right": [old["right"], after["right"]],
                                    "missed": [old["missed"], after["missed"]],
                                    "extra": [old["extra"], after["extra"]]})
            row = {"set": name, "teach": list(teach), "how": [status[i][0] for i in teach],
                   "examples": int(len(np.load(profile)["example_codes"])), "doubted": doubted,
                   "without": figures(without), "with": figures(with_profile), "changed": changed}
            results.append(row)
            w, p = row["without"], row["with"]
            print(f"\n{name} teach {count} {list(teach)}: {row['examples']} examples, doubted {doubted}")
            print(f"  held out {w['photos']} photos, {w['labelled']} tiles: tiles right {w['tiles_right']} -> "
                  f"{p['tiles_right']}, precision {w['precision']} -> {p['precision']}, exact {w['photos_exact']} -> "
                  f"{p['photos_exact']}")
            for change in changed:
                print(f"  {change['image']}: right {change['right'][0]} -> {change['right'][1]}, missed "
                      f"{change['missed'][0]} -> {change['missed'][1]}, extra {change['extra'][0]} -> "
                      f"{change['extra'][1]}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
