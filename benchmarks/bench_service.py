"""Service throughput under concurrent clients, against the recognizer called directly in one process.

    python benchmarks/bench_service.py [--model M] [--photo P ...] [--clients 8] [--duration 60]
                                       [--workers N] [--threads T] [--queue-size Q] [--json]

1. Baseline: the recognizer in this process, driven by ``--workers`` threads for ``--baseline-s`` seconds
   (the most the service could do with the same threads), and single-threaded.
2. The service: ``mjlens serve`` in a child process on a free loopback port; ``--clients`` threads post photos
   to ``/v1/recognize`` in a closed loop for ``--duration`` seconds. Throughput, p50/p99 latency of the 200s,
   the count of 5xx other than 503 (must be 0), and the server's resident memory before and after.
3. Overload: ``--overload-clients`` (default 4x the service's capacity) for ``--overload-s`` seconds: the
   surplus must get quick 503s with Retry-After, never another 5xx, and the 200s stay as fast.

The figures depend on the machine; benchmarks/README.md says where each was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = REPO / "models" / "mjlens-tiles.onnx"


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def rss_mib(pid: int) -> float | None:
    """Resident memory of a process (Linux /proc), in MiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def cpu_s(pid: int) -> float | None:
    """User + system CPU seconds a process has used (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def baseline(model: Path, photos: list[bytes], threads: int, seconds: float,
             ort_threads: int | None) -> tuple[float, float]:
    """Photos per second of the in-process recognizer driven by ``threads`` threads, each inference using
    ``ort_threads`` onnxruntime threads (None: the detector's default, every core), and CPU ms per photo."""
    from mjlens.vision.reading.reader import load_tile_reader
    from mjlens.vision.recognize import Recognizer

    recognizer = Recognizer(model, detector=load_tile_reader(model, threads=ort_threads))
    recognizer.recognize(photos[0], "warmup.jpg")
    done = [0] * threads
    end = time.perf_counter() + seconds

    def loop(k: int) -> None:
        i = k
        while time.perf_counter() < end:
            recognizer.recognize(photos[i % len(photos)], "p.jpg")
            done[k] += 1
            i += 1

    start, cpu0 = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(loop, range(threads)))
    cpu = time.process_time() - cpu0
    return sum(done) / (time.perf_counter() - start), 1000 * cpu / max(1, sum(done))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(model: Path, port: int, env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "mjlens", "serve", "--port", str(port), "--model", str(model)],
                            cwd=REPO, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with status {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    proc.terminate()
    raise SystemExit("the server did not become ready in 120 s")


def load(url: str, photos: list[bytes], clients: int, seconds: float, server_pid: int) -> dict:
    """``clients`` closed-loop clients for ``seconds``: statuses, latencies of the 200s and of the 503s, and the
    CPU the server and the clients (this process) used, which share the machine's cores."""
    lock = threading.Lock()
    statuses: Counter = Counter()
    ok_latency: list[float] = []
    busy_latency: list[float] = []
    end = time.perf_counter() + seconds

    def client(k: int) -> None:
        i = k
        with httpx.Client(timeout=60) as http:
            while time.perf_counter() < end:
                t0 = time.perf_counter()
                try:
                    r = http.post(url, files={"image": ("p.jpg", photos[i % len(photos)], "image/jpeg")})
                    status = r.status_code
                    if status == 503 and "Retry-After" in r.headers:
                        time.sleep(min(0.05, float(r.headers["Retry-After"])))  # a polite but eager client
                except httpx.HTTPError:
                    status = 0
                elapsed = time.perf_counter() - t0
                with lock:
                    statuses[status] += 1
                    (ok_latency if status == 200 else busy_latency if status == 503 else []).append(elapsed)
                i += 1

    start, client_cpu0, server_cpu0 = time.perf_counter(), time.process_time(), cpu_s(server_pid)
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    client_cpu = time.process_time() - client_cpu0
    server_cpu = (cpu_s(server_pid) or 0) - (server_cpu0 or 0) if server_cpu0 is not None else None
    return {
        "clients": clients, "seconds": round(wall, 1), "requests": sum(statuses.values()),
        "ok": statuses[200], "throughput_per_s": round(statuses[200] / wall, 2),
        "p50_s": round(percentile(ok_latency, 0.5) or 0, 3), "p99_s": round(percentile(ok_latency, 0.99) or 0, 3),
        "mean_s": round(statistics.fmean(ok_latency), 3) if ok_latency else None,
        "busy_503": statuses[503], "busy_p99_s": round(percentile(busy_latency, 0.99) or 0, 3),
        "server_errors_5xx": sum(n for s, n in statuses.items() if s >= 500 and s != 503),
        "transport_errors": statuses[0],
        "server_cpu_ms_per_ok": round(1000 * server_cpu / max(1, statuses[200]), 1) if server_cpu is not None else None,
        "client_cpu_cores": round(client_cpu / wall, 2), "server_cpu_cores": round(server_cpu / wall, 2)
        if server_cpu is not None else None,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=Path(os.environ.get("MJLENS_MODEL") or DEFAULT_MODEL))
    parser.add_argument("--photo", type=Path, nargs="+", default=sorted((REPO / "examples").glob("*.jpg")))
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (default 60)")
    parser.add_argument("--baseline-s", type=float, default=20.0, help="seconds of the in-process baseline")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="server inference threads")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads per inference "
                                                                  "(MJLENS_THREADS; default: cores // workers)")
    parser.add_argument("--queue-size", type=int, default=8)
    parser.add_argument("--overload-clients", type=int, default=None)
    parser.add_argument("--overload-s", type=float, default=15.0)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    if not args.model.is_file():
        print(f"bench_service: no model at {args.model}; pass --model", file=sys.stderr)
        return 2
    photos = [p.read_bytes() for p in args.photo]
    if not photos:
        print("bench_service: no photos; pass --photo", file=sys.stderr)
        return 2
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.workers)
    env = {"MJLENS_WORKERS": str(args.workers), "MJLENS_QUEUE_SIZE": str(args.queue_size),
           "MJLENS_LOG_LEVEL": "WARNING", "MJLENS_THREADS": str(threads)}
    capacity = args.workers + args.queue_size
    overload = args.overload_clients or 4 * capacity

    report: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
                    "model": args.model.name, "photos": [p.name for p in args.photo],
                    "workers": args.workers, "threads": threads, "queue_size": args.queue_size}
    # the service's own configuration, in-process; and the recognizer as `mjlens recognize` runs it
    rate, cpu_ms = baseline(args.model, photos, args.workers, args.baseline_s, threads)
    report["baseline_per_s"], report["baseline_cpu_ms_per_photo"] = round(rate, 2), round(cpu_ms, 1)
    rate, cpu_ms = baseline(args.model, photos, 1, args.baseline_s / 2, None)
    report["baseline_single_call_per_s"] = round(rate, 2)
    report["baseline_single_call_cpu_ms_per_photo"] = round(cpu_ms, 1)

    port = free_port()
    server = start_server(args.model, port, env)
    url = f"http://127.0.0.1:{port}/v1/recognize"
    try:
        with httpx.Client(timeout=60) as http:
            for photo in photos:
                http.post(url, files={"image": ("warm.jpg", photo, "image/jpeg")})
        report["server_rss_mib_before"] = rss_mib(server.pid)
        report["load"] = load(url, photos, args.clients, args.duration, server.pid)
        report["server_rss_mib_after"] = rss_mib(server.pid)
        report["overload"] = load(url, photos, overload, args.overload_s, server.pid)
        report["server_rss_mib_after_overload"] = rss_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)
    report["ratio_vs_baseline"] = round(report["load"]["throughput_per_s"] / report["baseline_per_s"], 3)
    report["ratio_vs_single_call"] = round(report["load"]["throughput_per_s"] / report["baseline_single_call_per_s"], 3)
    report["goal"] = {
        "ratio_at_least_0.9": report["ratio_vs_baseline"] >= 0.9,
        "p99_under_1s": report["load"]["p99_s"] < 1.0,
        "zero_5xx": report["load"]["server_errors_5xx"] == 0 and report["overload"]["server_errors_5xx"] == 0,
        "503s_beyond_capacity": report["overload"]["busy_503"] > 0,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        lo, ov = report["load"], report["overload"]
        print(f"baseline in-process, {args.workers} workers x {threads} threads: {report['baseline_per_s']}/s; "
              f"one call at a time, default threads: {report['baseline_single_call_per_s']}/s")
        print(f"service, {lo['clients']} clients, {lo['seconds']} s: {lo['throughput_per_s']}/s "
              f"({report['ratio_vs_baseline']}x baseline, {report['ratio_vs_single_call']}x single call), "
              f"p50 {lo['p50_s']} s, p99 {lo['p99_s']} s, "
              f"5xx {lo['server_errors_5xx']}, 503 {lo['busy_503']}")
        print(f"overload, {ov['clients']} clients, {ov['seconds']} s: {ov['throughput_per_s']}/s, p99 {ov['p99_s']} s, "
              f"503 {ov['busy_503']} (p99 {ov['busy_p99_s']} s), other 5xx {ov['server_errors_5xx']}")
        print(f"CPU per photo: {report['baseline_cpu_ms_per_photo']} ms in-process, "
              f"{lo['server_cpu_ms_per_ok']} ms in the server; the clients used {lo['client_cpu_cores']} cores, "
              f"the server {lo['server_cpu_cores']}")
        print(f"server memory: {report['server_rss_mib_before']} MiB before, {report['server_rss_mib_after']} MiB "
              f"after, {report['server_rss_mib_after_overload']} MiB after overload")
        print("goals: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in report["goal"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
