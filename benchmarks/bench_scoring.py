"""Scoring speed: per-hand time of each rule system on seeded random winning hands, and of the JSONL command.

    python benchmarks/bench_scoring.py                 # 100,000 hands
    python benchmarks/bench_scoring.py --n 20000 --workers 2

For mcr the same hands are also scored by pymahjonggb (C++), side by side, with the ratio; for riichi, by the
`mahjong` package called directly (what riichi adds around it: the conversion, the readings and the result).
Taiwan (17-tile hands, ``sets=5``) and cantonese are measured when their ``score_hand`` is implemented. Each hand
is timed twice over: wall clock, and the thread's CPU time, which leaves out the time the process waited for a core
(on a shared machine the wall-clock tail mostly measures the other processes). Then
``mjlens score --rules mcr --jsonl FILE --workers W`` runs over the same hands as a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

from mjlens.scoring.engine import rule_module  # noqa: E402
from mjlens.scoring.errors import HandError  # noqa: E402
from mjlens.scoring.random_hands import random_hands  # noqa: E402


def _stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_us": statistics.median(ordered) * 1e6,
        "p99_us": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e6,
        "mean_us": sum(ordered) / len(ordered) * 1e6,
    }


def time_each(items: list, fn: Callable) -> dict[str, dict[str, float]]:
    wall, cpu = [], []
    perf, thread = time.perf_counter, time.thread_time
    for item in items:
        w0, c0 = perf(), thread()
        fn(item)
        cpu.append(thread() - c0)
        wall.append(perf() - w0)
    return {"wall": _stats(wall), "cpu": _stats(cpu)}


def _implemented(rules: str, hand) -> bool:
    try:
        rule_module(rules).score_hand(hand, {})
    except HandError as err:
        return err.code != "unknown_rules"
    except NotImplementedError:
        return False
    return True


def bench_systems(n: int, seed: int) -> dict[str, dict]:
    out: dict[str, dict] = {}
    hands4 = list(random_hands(seed, n))
    mcr = rule_module("mcr")
    out["mcr"] = time_each(hands4, lambda h: _safe(mcr.score_hand, h))
    try:
        import MahjongGB  # noqa: PLC0415 - optional reference

        from mjlens.scoring.mcr.reference import reference_args  # noqa: PLC0415

        args = [reference_args(h) for h in hands4]
        out["pymahjonggb"] = time_each(args, lambda a: MahjongGB.MahjongFanCalculator(*a))
    except ImportError:
        pass
    out.update(bench_riichi(hands4))
    hands5 = list(random_hands(seed, n, sets=5))
    for rules, hands in (("taiwan", hands5), ("cantonese", hands4)):
        if _implemented(rules, hands[0]):
            module = rule_module(rules)
            out[rules] = time_each(hands, lambda h, m=module: _safe(m.score_hand, h))
    return out


def bench_riichi(hands: list) -> dict[str, dict]:
    """Riichi's scorer, and `mahjong` alone on the same hands (those that convert: the others never reach it)."""
    from mahjong.hand_calculating.hand import HandCalculator  # noqa: PLC0415

    from mjlens.scoring.riichi.convert import to_call  # noqa: PLC0415
    from mjlens.scoring.riichi.options import parse_options  # noqa: PLC0415

    riichi = rule_module("riichi")
    opts = parse_options({})
    calls = []
    for hand in hands:
        try:
            calls.append(to_call(hand, opts))
        except HandError:
            pass
    return {
        "riichi": time_each(hands, lambda h: _safe(riichi.score_hand, h)),
        "mahjong": time_each(calls, lambda c: HandCalculator.estimate_hand_value(
            c.tiles, c.win_tile, melds=c.melds, dora_indicators=c.dora, config=c.config,
            ura_dora_indicators=c.ura)),
    }


def _safe(fn: Callable, hand) -> None:
    try:
        fn(hand, {})
    except HandError:
        pass


def bench_jsonl(n: int, seed: int, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "hands.jsonl"
        with src.open("w", encoding="utf-8") as f:
            for hand in random_hands(seed, n):
                f.write(json.dumps(hand.to_json()) + "\n")
        cmd = [sys.executable, "-m", "mjlens", "score", "--rules", "mcr", "--jsonl", str(src),
               "--workers", str(workers)]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != n:
        raise SystemExit(f"jsonl run failed (exit {done.returncode}, {len(lines)} lines): {done.stderr[-2000:]}")
    valid = sum(1 for line in lines if json.loads(line)["valid"])
    return {"seconds": seconds, "hands": n, "valid": valid, "workers": workers}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="hands per system (default 100000)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=2, help="processes for the jsonl run (default 2)")
    parser.add_argument("--no-jsonl", action="store_true", help="skip the mjlens score --jsonl run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    report: dict = {"n": args.n, "seed": args.seed, "systems": bench_systems(args.n, args.seed)}
    if not args.no_jsonl:
        report["jsonl"] = bench_jsonl(args.n, args.seed, args.workers)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    systems = report["systems"]
    print(f"{args.n} seeded random winning hands (seed {args.seed}); per hand, microseconds")
    print(f"{'system':<12} {'median':>8} {'p99':>9} {'mean':>8} | {'cpu median':>10} {'cpu p99':>9}")
    for name, t in systems.items():
        w, c = t["wall"], t["cpu"]
        print(f"{name:<12} {w['median_us']:8.1f} {w['p99_us']:9.1f} {w['mean_us']:8.1f} | "
              f"{c['median_us']:10.1f} {c['p99_us']:9.1f}")
    if "pymahjonggb" in systems:
        ratio = systems["mcr"]["cpu"]["median_us"] / systems["pymahjonggb"]["cpu"]["median_us"]
        print(f"mcr / pymahjonggb (cpu median): {ratio:.1f}x")
    if "mahjong" in systems:
        ratio = systems["riichi"]["cpu"]["median_us"] / systems["mahjong"]["cpu"]["median_us"]
        print(f"riichi / mahjong alone (cpu median): {ratio:.1f}x")
    if "jsonl" in report:
        j = report["jsonl"]
        print(f"mjlens score --rules mcr --jsonl, {j['hands']} hands, {j['workers']} workers: {j['seconds']:.1f} s "
              f"({j['valid']} valid)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
