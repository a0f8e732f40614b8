"""Riichi against the `mahjong` package called on its own: han, fu and the points of seeded random winning hands
with riichi context (riichi where closed, ippatsu, dora and ura indicators, red fives, honba, sticks), each hand
written out again in the package's own notation (``tests/test_riichi.py``'s ``_mahjong_answer``), so what is
measured is how faithfully the project hands a hand to the package and reads its answer back.

    python benchmarks/measure_riichi.py               # 4,000 hands, seed 2026
    python benchmarks/measure_riichi.py --n 500 --seed 7 --json

``--export FILE`` also writes each hand that scores here, with its han, fu and payments (honba left out), one JSON
object a line, for ``measure_riichi_utils.py`` to compare with `mahjong-utils`, a second implementation.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from test_riichi import _mahjong_answer, riichi_hands  # noqa: E402

from mjlens.scoring.engine import score  # noqa: E402


def measure(n: int, seed: int, export=None) -> dict[str, int]:
    """Counts over the hands ``riichi_hands(seed, n // 4)`` draws; every shape of hand counted where both agree.
    ``export``: a text file to write each hand that scores here to, with its figures."""
    out = {"hands": 0, "scored_by_mahjong": 0, "agree": 0, "both_refuse": 0, "disagree": 0, "open": 0, "kan": 0,
           "seven_pairs": 0, "yakuman": 0, "red_fives": 0, "riichi": 0, "ippatsu": 0}
    for hand in riichi_hands(seed, max(1, n // 4)):
        out["hands"] += 1
        ours = score(hand, "riichi").to_json()
        if export is not None and ours["valid"]:
            export.write(json.dumps(_exported(hand, ours)) + "\n")
        theirs = _mahjong_answer(hand)
        if theirs.error is not None:
            out["both_refuse" if not ours["valid"] else "disagree"] += 1
            continue
        out["scored_by_mahjong"] += 1
        if not ours["valid"] or (ours["total"], ours["fu"], ours["points"]["total"]) != (
                theirs.han, theirs.fu, theirs.cost["total"]):
            out["disagree"] += 1
            continue
        out["agree"] += 1
        out["open"] += any(not m.concealed for m in hand.melds)
        out["kan"] += any(m.kind == "kong" for m in hand.melds)
        out["seven_pairs"] += any(i["key"] == "chiitoitsu" for i in ours["items"])
        out["yakuman"] += ours["yakuman"] > 0
        out["red_fives"] += ours["red_fives"] > 0
        out["riichi"] += hand.context.riichi
        out["ippatsu"] += hand.context.ippatsu
    return out


def _exported(hand, ours: dict) -> dict:
    """The hand and its figures, the payments without honba (the other implementation counts none)."""
    honba = hand.context.honba * (100 if hand.context.self_drawn else 300)
    return {"hand": hand.to_json(), "han": ours["total"], "fu": ours["fu"], "yakuman": ours["yakuman"],
            "dora": sum(i["count"] for i in ours["items"] if i["key"] in ("dora", "aka_dora", "ura_dora")),
            "payments": {k: v - honba for k, v in ours["points"]["payments"].items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4000, help="hands (default 4000)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--export", metavar="FILE", help="write each hand scored here with its figures (JSONL)")
    args = parser.parse_args(argv)
    if args.export:
        with open(args.export, "w", encoding="utf-8") as export:
            counts = measure(args.n, args.seed, export)
    else:
        counts = measure(args.n, args.seed)
    if args.json:
        print(json.dumps(counts, indent=2))
        return 0
    print(f"{counts['hands']} hands (seed {args.seed}): {counts['scored_by_mahjong']} scored by mahjong, "
          f"{counts['agree']} of them with the same han, fu and points here; {counts['both_refuse']} refused by "
          f"both; {counts['disagree']} disagree")
    print("among those agreed: " + ", ".join(f"{k} {counts[k]}" for k in (
        "open", "kan", "seven_pairs", "yakuman", "red_fives", "riichi", "ippatsu")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
