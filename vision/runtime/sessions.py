"""onnxruntime sessions for the shipped models: how many threads run one inference, and how they wait for work.

Between the operators of one run, onnxruntime's threads wait for their next piece of work either spinning on their
core or asleep. A sleeping thread takes a while to wake, several hundred times per run; a spinning one holds its
core. Measured with the shipped pair on 2 cores (docs/experiments/runtime-speed.md):

- cores free: 67-72 ms a photo spinning during each run and stopping after it, 84-95 ms asleep, and 116 ms spinning
  without the stop: the detector's threads go on spinning after its run while the classifier's want the cores;
- one core kept busy by another process: 183 ms spinning, 110 ms asleep: the spinning threads fight that process
  for the one core left.

So threads spin during a run and stop after it (``session.force_spinning_stop``), and only when the machine has a
core free for each of them when the session is made, judged by what other processes use of the cores
(``cores_free_for``; ``MJLENS_SPIN``: ``auto``, or
``1`` / ``0`` to force either way). One thread has nobody to wait for, and never spins.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import core_use  # imported with the reader's modules: from here it counts the cores' use

if TYPE_CHECKING:  # onnxruntime is imported where a session is made: the settings read cores() without it
    import onnxruntime as ort

THREADS_ENV = "MJLENS_THREADS"
SPIN_ENV = "MJLENS_SPIN"
#: Other processes' use of the cores (cores' worth, or runnable processes of the 1-minute load average) beyond the
#: cores the threads leave free that still counts as free: a shell, a browser tab, the tail of the last command.
SPARE_LOAD = 0.5


def cores() -> int:
    """The cores this process may run on (its affinity where the system says, else every core)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_threads(workers: int = 1) -> int:
    """``MJLENS_THREADS`` when set, else the cores shared among ``workers`` sessions running at once (at least one
    each): more threads than cores in all halved the service's throughput (benchmarks/bench_service.py)."""
    return int(os.environ.get(THREADS_ENV) or 0) or max(1, cores() // workers)


def default_workers() -> int:
    """Photos read at once where the caller does not say: one a core, each on one thread, when other processes
    leave every core free (``cores_free_for``); else one photo at a time on every core. On free cores two photos
    at once read 1.45x the photos a second of one at a time; on busy ones they lose (a worker holding the
    interpreter's lock waits for a core while the other waits for the lock): docs/experiments/startup.md."""
    count = cores()
    return count if count > 1 and cores_free_for(count) else 1


def cores_free_for(threads: int) -> bool:
    """Whether other processes leave a core for each of ``threads`` (``SPARE_LOAD`` allowed): their use of this
    process's cores since it started (``core_use``), else the 1-minute load average; True where the system says
    neither (onnxruntime's own default is to spin)."""
    busy = core_use.others_busy_cores()
    if busy is None:
        try:
            busy = os.getloadavg()[0]
        except (AttributeError, OSError):
            return True
    return busy + threads <= cores() + SPARE_LOAD


def should_spin(threads: int) -> bool:
    """Whether ``threads`` onnxruntime threads should spin during a run (module docstring): ``MJLENS_SPIN`` 1 / 0
    decides; otherwise (``auto``, unset) more than one thread and a core free for each."""
    setting = os.environ.get(SPIN_ENV, "auto").strip().lower()
    if setting in {"1", "on", "true", "yes"}:
        return True
    if setting in {"0", "off", "false", "no"}:
        return False
    return threads > 1 and cores_free_for(threads)


def session_options(threads: int | None = None, spin: bool | None = None) -> ort.SessionOptions:
    """CPU session options: ``threads`` intra-op threads (default ``default_threads``), run one operator at a
    time, spinning during a run when ``spin`` (default ``should_spin``) and never after it."""
    import onnxruntime as ort

    threads = threads or default_threads()
    spin = should_spin(threads) if spin is None else spin
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    options.add_session_config_entry("session.force_spinning_stop", "1")
    return options
