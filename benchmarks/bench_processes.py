"""Whole processes, start-up included: ``mjlens recognize`` over N photos against the peer package
``mahjong-detector`` reading the same photos in one process of its own, side by side in one run.

Each round runs both contenders once, one after the other, the one going first alternating round by round
(A B, B A, ...) so that both see the same drift in the machine's load; the figures are medians over the rounds.
Each contender runs once untimed first (its bytecode written, as an installed wheel holds it; files cached). A
process is timed from its start to its exit (wall clock) and by the CPU it used (user + system, its threads
included). The peer is run through its public function ``detect_tiles``, as its ``python -m mahjong_detector
IMAGE`` runs it, once per photo in one process; ours as a user runs it, ``mjlens recognize PHOTO...`` printing
the listing. ``--single`` adds one-photo processes of each (``mjlens recognize IMAGE`` against ``python -m
mahjong_detector IMAGE``): start-up, model loading and one photo. ``--busy-settings`` adds a third contender: ours
with the settings it takes on busy cores (one photo at a time, threads asleep between operators: ``--workers 1``,
``MJLENS_SPIN=0``), to see what reading on free cores gains. The load average is written before and after.

    python benchmarks/bench_processes.py --data <hk-photos>/data.yaml              # 40 photos, 5 rounds
    python benchmarks/bench_processes.py --data <hk-photos>/data.yaml --photos 40 --rounds 7 --single --json out.json
    python benchmarks/bench_processes.py --data <hk-photos>/data.yaml --busy-settings

The peer: ``pip install mahjong-detector`` (it needs Pillow, numpy and onnxruntime, which mjlens has already).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "datasets" / "hk-photos" / "data.yaml"
#: The peer over many photos in one process: its ``python -m mahjong_detector IMAGE`` once per photo.
PEER_SCRIPT = ("import sys\nfrom mahjong_detector import detect_tiles\n"
               "for path in sys.argv[1:]:\n    print(path, detect_tiles(path))\n")


def photos_of(data: str, split: str, count: int) -> list[Path]:
    """The first ``count`` photos of the split, in the order ``mjlens eval`` reads them."""
    from mjlens.vision.evaluate import read_dataset

    _, pairs = read_dataset(data, split)
    return [image for image, _ in pairs[:count]]


#: What ``--busy-settings`` sets: the settings ``mjlens recognize`` takes where other processes keep its cores busy.
BUSY_SETTINGS = (["--workers", "1"], {"MJLENS_SPIN": "0"})


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one child process (``env`` added to ours), its output
    discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # bytecode may be written, as on a user's machine (an installed wheel holds it), whatever this shell says
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env={**environment, **(env or {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]}... exited {done.returncode}: {done.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def race(contenders: dict[str, tuple[list[str], dict[str, str]]], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Each contender (its command and environment) once a round, the order reversed every other round, after one
    run of each that is not timed (bytecode written, files in the page cache)."""
    names = list(contenders)
    for name in names:
        timed(*contenders[name])
    runs: dict[str, dict[str, list[float]]] = {name: {"wall": [], "cpu": []} for name in names}
    for n in range(rounds):
        for name in names if n % 2 == 0 else names[::-1]:
            wall, cpu = timed(*contenders[name])
            runs[name]["wall"].append(wall)
            runs[name]["cpu"].append(cpu)
    return runs


def summary(runs: dict[str, dict[str, list[float]]], photos: int, peer: str) -> dict:
    """Medians over the rounds; each of ours against the peer round by round (ours / the peer's), then the
    median of those ratios."""
    rows = {}
    for name, r in runs.items():
        rows[name] = {"wall_s": round(statistics.median(r["wall"]), 3), "cpu_s": round(statistics.median(r["cpu"]), 3),
                      "ms_a_photo": round(1000 * statistics.median(r["wall"]) / photos, 1),
                      "wall_runs_s": [round(w, 3) for w in r["wall"]]}
        if name != peer:
            ratios = [a / b for a, b in zip(r["wall"], runs[peer]["wall"], strict=True)]
            cpu_ratios = [a / b for a, b in zip(r["cpu"], runs[peer]["cpu"], strict=True)]
            rows[name].update(ratio_wall=round(statistics.median(ratios), 2),
                              ratio_cpu=round(statistics.median(cpu_ratios), 2),
                              ratios_wall=[round(v, 2) for v in ratios])
    return {"photos": photos, "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="a YOLO data.yaml (default: hk-photos)")
    parser.add_argument("--split", default="val")
    parser.add_argument("--photos", type=int, default=40, help="photos each process reads (default 40)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each contender once a round (default 5)")
    parser.add_argument("--single", action="store_true", help="also one-photo processes (start-up and one photo)")
    parser.add_argument("--busy-settings", action="store_true",
                        help="also ours with the settings it takes on busy cores (one photo at a time, no spinning)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    if importlib.util.find_spec("mahjong_detector") is None:
        print("the peer is not installed: pip install mahjong-detector", file=sys.stderr)
        return 2
    paths = [str(p) for p in photos_of(args.data, args.split, args.photos)]
    peer = "mahjong-detector"
    python = sys.executable

    def contenders(photos: list[str], peer_command: list[str]) -> dict[str, tuple[list[str], dict[str, str]]]:
        ours = [python, "-m", "mjlens", "recognize", *photos]
        chosen = {"mjlens recognize": (ours, {}), peer: (peer_command, {})}
        if args.busy_settings:
            flags, env = BUSY_SETTINGS
            chosen["mjlens recognize, busy-core settings"] = (ours + flags, env)
        return chosen

    load_before = os.getloadavg()
    batch = race(contenders(paths, [python, "-c", PEER_SCRIPT, *paths]), args.rounds)
    figures = {"batch": summary(batch, len(paths), peer)}
    if args.single:
        single = race(contenders(paths[:1], [python, "-m", "mahjong_detector", paths[0]]), args.rounds)
        figures["single"] = summary(single, 1, peer)
    load_after = os.getloadavg()
    figures.update(cpus=len(os.sched_getaffinity(0)), rounds=args.rounds,
                   load_average_before=[round(v, 1) for v in load_before],
                   load_average_after=[round(v, 1) for v in load_after])
    print(f"{len(paths)} photos of {args.data} [{args.split}], {args.rounds} rounds (A B, B A, ...), "
          f"{figures['cpus']} CPUs, load average (1, 5, 15 min) {figures['load_average_before']} before, "
          f"{figures['load_average_after']} after")
    print("| processes | contender | wall s (median) | ms a photo | CPU s (median) | ours / peer, wall | CPU |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for kind, result in (("batch", figures["batch"]), ("single", figures.get("single"))):
        if result is None:
            continue
        label = f"{result['photos']} photos in one" if kind == "batch" else "one photo"
        for name, row in result["rows"].items():
            ratio = f"**{row['ratio_wall']}x** | {row['ratio_cpu']}x" if name != peer else " | "
            print(f"| {label} | {name} | {row['wall_s']} | {row['ms_a_photo']} | {row['cpu_s']} | {ratio} |")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
