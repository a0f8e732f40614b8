"""Speed of a hand in progress: ``advise`` on hands with a tile too many, ``waits`` on ready hands, and the shanten
count beside pymahjonggb's (C++) on the same hands.

    python benchmarks/bench_advise.py              # 2,000 hands of each kind
    python benchmarks/bench_advise.py --n 500 --json

Two kinds of hand with a tile too many, for each rule system: "dealt", the first 14 (17) tiles of a shuffled wall,
far from ready as a hand early in play is; and "in play", a winning hand with one concealed tile swapped for another,
mostly ready or one from ready, where ``advise`` scores every wait of every discard that leaves it ready; and
one costly hand per system (nine gates and a tile: every discard leaves it ready on up to nine tiles), 20 times.
Each call is timed by the wall clock and by the thread's CPU time (which leaves out waits for a core on a shared
machine). Goals: under 20 ms at the median for 14 tiles, under 50 ms for 17 Taiwan tiles.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

from mjlens.scoring.advice import advise, waits  # noqa: E402
from mjlens.scoring.hand import Context, Hand  # noqa: E402
from mjlens.scoring.mcr.scorer import SHAPES  # noqa: E402
from mjlens.scoring.notation import parse  # noqa: E402
from mjlens.scoring.random_hands import random_winning_hand  # noqa: E402
from mjlens.scoring.shanten import shanten  # noqa: E402
from mjlens.scoring.tiles import INDEX, PLAYING_CODES, counts_of  # noqa: E402

SIZES = {"mcr": 14, "taiwan": 17, "cantonese": 14}
#: A costly hand per system: nine gates and a tile, where every discard leaves the hand ready on up to nine tiles,
#: each win scored twice.
HEAVY = {"mcr": "1112345678999m +5m", "taiwan": "1112345678999m 111p +5m", "cantonese": "1112345678999m +5m"}
GOAL_MS = {"mcr": 20.0, "taiwan": 50.0, "cantonese": 20.0}


def dealt(rng: random.Random, size: int) -> Hand:
    wall = [t for t in PLAYING_CODES for _ in range(4)]
    rng.shuffle(wall)
    return Hand(tuple(wall[:size]))


def in_play(rng: random.Random, size: int) -> Hand:
    """A winning hand (no flowers, a plain context) with one concealed tile swapped for another."""
    hand = random_winning_hand(rng, sets=5 if size == 17 else 4)
    concealed = list(hand.all_concealed())
    held = counts_of(hand.all_tiles())
    held[INDEX[concealed.pop(rng.randrange(len(concealed)))]] -= 1
    concealed.append(rng.choice([t for t in PLAYING_CODES if held[INDEX[t]] < 4]))
    return Hand(tuple(concealed), hand.melds, None, (), Context())


def ready(rng: random.Random, size: int) -> Hand:
    """A winning hand less its winning tile: ready, for ``waits``."""
    hand = random_winning_hand(rng, sets=5 if size == 17 else 4)
    return Hand(hand.concealed, hand.melds, None, (), Context())


def _stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"median_ms": statistics.median(ordered) * 1e3,
            "p90_ms": ordered[int(len(ordered) * 0.9)] * 1e3, "max_ms": ordered[-1] * 1e3}


def time_each(items: list, fn: Callable) -> dict[str, dict[str, float]]:
    wall, cpu = [], []
    for item in items:
        w0, c0 = time.perf_counter(), time.thread_time()
        fn(item)
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - w0)
    return {"wall": _stats(wall), "cpu": _stats(cpu)}


def shanten_against_reference(hands: list[Hand]) -> dict[str, float] | None:
    """Per-hand shanten time, ours and pymahjonggb's MahjongShanten, on 13-tile hands without melds."""
    try:
        import MahjongGB
    except ImportError:
        return None
    from mjlens.scoring.mcr.reference import reference_tile

    counts = [counts_of(h.concealed[:13]) for h in hands]
    tiles = [tuple(reference_tile(t) for t in h.concealed[:13]) for h in hands]
    ours = time_each(counts, lambda c: shanten(c, 0, SHAPES))["cpu"]["median_ms"]
    theirs = time_each(tiles, lambda t: MahjongGB.MahjongShanten(pack=(), hand=t))["cpu"]["median_ms"]
    return {"ours_us": ours * 1e3, "pymahjonggb_us": theirs * 1e3, "ratio": ours / theirs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="hands of each kind (default 2000)")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict = {"n": args.n, "advise": {}, "waits": {}}
    for rules, size in SIZES.items():
        for kind, make in (("dealt", dealt), ("in play", in_play)):
            rng = random.Random(args.seed)
            hands = [make(rng, size) for _ in range(args.n)]
            for hand in hands[:20]:  # warm the caches a long game would have warmed
                advise(hand, rules)
            out["advise"][f"{rules} {kind}"] = {**time_each(hands, lambda h, r=rules: advise(h, r)),
                                                 "goal_ms": GOAL_MS[rules]}
        heavy = parse(HEAVY[rules])
        out["advise"][f"{rules} {HEAVY[rules]}"] = {**time_each([heavy] * 20, lambda h, r=rules: advise(h, r)),
                                                    "goal_ms": GOAL_MS[rules]}
        rng = random.Random(args.seed)
        hands = [ready(rng, size) for _ in range(args.n)]
        out["waits"][rules] = time_each(hands, lambda h, r=rules: waits(h, r))
    rng = random.Random(args.seed)
    out["shanten"] = shanten_against_reference([dealt(rng, 13) for _ in range(args.n)])
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{args.n} hands of each kind; milliseconds per call, CPU time (wall clock)")
    print("| call | rules, hands | median | p90 | goal (median) |\n|---|---|---|---|---|")
    for name, row in out["advise"].items():
        c, w = row["cpu"], row["wall"]
        print(f"| advise | {name} | {c['median_ms']:.1f} ({w['median_ms']:.1f}) | {c['p90_ms']:.1f} "
              f"({w['p90_ms']:.1f}) | {row['goal_ms']:.0f} = {c['median_ms'] / row['goal_ms']:.2f}x |")
    for name, row in out["waits"].items():
        c, w = row["cpu"], row["wall"]
        print(f"| waits | {name} ready | {c['median_ms']:.1f} ({w['median_ms']:.1f}) | {c['p90_ms']:.1f} "
              f"({w['p90_ms']:.1f}) | |")
    if out["shanten"]:
        s = out["shanten"]
        print(f"shanten of a 13-tile mcr hand: {s['ours_us']:.1f} µs, pymahjonggb {s['pymahjonggb_us']:.1f} µs "
              f"= {s['ratio']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
