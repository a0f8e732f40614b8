"""Batch labelling throughput: ``mjlens label`` with the local engine and with Ray at 1 and 2 workers.

    python benchmarks/bench_label.py [--photos DIR] [--count 120] [--repeats 2] [--json]

Each run labels the same ``--count`` photos (in name order, from ``--photos``; default the validation photos of
the hk-photos data set where it is beside the repository, else the shipped examples, repeated) into a fresh
output folder with the shipped models, through the engines ``mjlens label`` uses. It reports the engine's
start (the local pool: loading the models; Ray: starting Ray on this machine with as many CPUs as workers) and
the labelling itself as photos a second, from the first photo handed over to the last outcome (for Ray, its
workers' start and model loads included: they happen once a run, as in ``mjlens label``), the time to the
first photo labelled, the steady rate from the first report to the last (what a long run tends to), and
the CPU time a photo: the local pool's process, or Ray's labelling workers (their start and model loads
included), the figure that does not depend on what else shares the cores.

Ray reports a block's photos together (blocks of up to 32 photos), and a short run has few blocks: its steady
rate is rough, its overall rate the one to quote. The figures depend on the machine and what else runs on it;
the 1-minute load average is printed with them.
benchmarks/README.md says where each was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from contextlib import nullcontext
from pathlib import Path

from mjlens.api.labelling.engines import LocalEngine, StopRequest
from mjlens.api.labelling.inputs import find_photos
from mjlens.api.labelling.outputs import OutputFolder
from mjlens.api.labelling.work import LabelSettings, RecognizerRecipe
from mjlens.vision.runtime.sessions import default_threads

REPO = Path(__file__).resolve().parent.parent
HK_VALID = REPO.parent / "shared" / "datasets" / "hk-photos" / "valid" / "images"

#: (engine, workers) in the order they run; each repeat runs them all again, interleaved.
CONFIGS = (("local", 1), ("local", 2), ("ray", 1), ("ray", 2))


def photo_folder(source: Path | None, count: int, scratch: Path) -> Path:
    """A folder holding exactly ``count`` photos: copies of the first ones of ``source`` (repeated if short)."""
    if source is None:
        source = HK_VALID if HK_VALID.is_dir() else REPO / "examples"
    photos = sorted(p for p in source.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not photos:
        sys.exit(f"no photos in {source}")
    folder = scratch / "photos"
    folder.mkdir()
    for i in range(count):
        original = photos[i % len(photos)]
        shutil.copyfile(original, folder / f"{i:05d}-{original.name}")
    return folder


class WorkerCpu:
    """CPU seconds of Ray's labelling workers (processes named ray::MapWorker), sampled from /proc while they
    live: each worker's last sample counts (at most one interval of a worker's last CPU time is missed)."""

    def __init__(self, interval_s: float = 0.1) -> None:
        self.interval_s, self.last = interval_s, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> WorkerCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def total_s(self) -> float:
        return sum(self.last.values())

    def _sample(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        while not self._stop.wait(self.interval_s):
            for entry in Path("/proc").iterdir():
                try:
                    if not entry.name.isdigit() or not (entry / "comm").read_text().startswith("ray::MapWorker"):
                        continue
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                self.last[entry.name] = (int(fields[11]) + int(fields[12])) / tick


def run_once(engine_name: str, workers: int, folder: Path, scratch: Path) -> dict:
    out = OutputFolder(Path(tempfile.mkdtemp(dir=scratch, prefix=f"{engine_name}{workers}-")))
    for path in (out.recognitions, out.images):
        path.mkdir(parents=True)
    settings = LabelSettings(input_root=folder, out=out)
    recipe = RecognizerRecipe()
    photos = find_photos(folder).photos
    started = time.perf_counter()
    if engine_name == "local":
        context = nullcontext(LocalEngine(recipe.load(default_threads(workers)), settings, workers))
    else:
        from mjlens.api.labelling.ray_engine import RayEngine, RayOptions

        context = RayEngine(recipe, settings, RayOptions(workers=workers))
    failures, finished = [], []

    def on_outcome(outcome) -> None:
        finished.append(time.perf_counter())
        if outcome.failure:
            failures.append(outcome.failure)

    with context as engine, WorkerCpu() as workers_cpu:
        ready, cpu_before = time.perf_counter(), _cpu_s()
        engine.run(photos, on_outcome, StopRequest())
        done, cpu = time.perf_counter(), _cpu_s() - cpu_before
    if engine_name == "ray":
        cpu = workers_cpu.total_s
    # Ray reports a block's photos together: the steady rate counts the photos reported after the first report
    after_first = sum(t > finished[0] + 0.01 for t in finished)
    return {"engine": engine_name, "workers": workers, "photos": len(photos), "failed": len(failures),
            "start_s": round(ready - started, 2), "label_s": round(done - ready, 2),
            "photos_per_s": round(len(photos) / (done - ready), 2), "first_photo_s": round(finished[0] - ready, 2),
            "steady_photos_per_s": round(after_first / (finished[-1] - finished[0]), 2),
            "cpu_ms_per_photo": round(1000 * cpu / len(photos), 1),
            "load_1min": round(os.getloadavg()[0], 2)}


def _cpu_s() -> float:
    times = os.times()
    return times.user + times.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, help="folder of photos (default: hk-photos valid, else examples/)")
    parser.add_argument("--count", type=int, default=120, help="photos a run labels (default 120)")
    parser.add_argument("--repeats", type=int, default=2, help="times each engine runs (default 2; the best kept)")
    parser.add_argument("--json", action="store_true", help="print every run as JSON")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-label-") as tmp:
        scratch = Path(tmp)
        folder = photo_folder(args.photos, args.count, scratch)
        runs = [run_once(engine, workers, folder, scratch) for _ in range(args.repeats) for engine, workers in CONFIGS]
    if args.json:
        print(json.dumps(runs, indent=1))
        return
    local_one = max(r["steady_photos_per_s"] for r in runs if (r["engine"], r["workers"]) == ("local", 1))
    print(f"{args.count} photos, {os.cpu_count()} cores; best of {args.repeats} runs\n")
    print("| engine | workers | start s | first photo s | photos/s | steady photos/s | vs local 1 worker (steady) "
          "| CPU ms a photo | load (1 min) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for engine, workers in CONFIGS:
        mine = [r for r in runs if (r["engine"], r["workers"]) == (engine, workers)]
        best = max(mine, key=lambda r: r["photos_per_s"])
        print(f"| {engine} | {workers} | {statistics.median(r['start_s'] for r in mine):.1f} | "
              f"{best['first_photo_s']:.1f} | {best['photos_per_s']:.2f} | {best['steady_photos_per_s']:.2f} | "
              f"{best['steady_photos_per_s'] / local_one:.2f}x | {min(r['cpu_ms_per_photo'] for r in mine):.0f} | "
              f"{best['load_1min']:.1f} |")


if __name__ == "__main__":
    main()
