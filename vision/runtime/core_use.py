"""How many of this process's cores other processes keep busy, measured rather than guessed from the load average.

The load average counts tasks that wait on the disk, and on some machines (containers, virtual machines) tasks the
process cannot see: a machine measured idle (398 of 400 idle ticks on both cores over 2 s) said a load of 1.3, and
reading 40 photos as on busy cores took 1.3x the time (docs/experiments/startup.md). So the cores' own tick
counts (Linux ``/proc/stat``, the lines of the cores this process may run on) are read when this module is imported
and again when asked, and this process's own CPU time over the same span is taken out: what is left is the others'.
Elsewhere, or over too short a span, the answer is None and the caller falls back to the load average.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

STAT = "/proc/stat"
#: Shortest span that measures: the kernel counts in ticks (10 ms at the usual 100 Hz), so under a tenth of a second
#: one tick more or less is a tenth of a core.
MIN_SPAN_S = 0.1


@dataclass(frozen=True)
class CoreTicks:
    """Ticks of this process's cores since boot: ``busy`` (every state but idle and waiting on the disk) and ``all``,
    summed over those cores; ``own_s``: this process's CPU seconds (its threads included) when they were read."""

    busy: int
    all: int
    own_s: float


def _allowed_cores() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return set(range(os.cpu_count() or 1))


def read_ticks(path: str = STAT) -> CoreTicks | None:
    """The ticks now, or None where the system gives no per-core counts for every core this process may use."""
    cores = _allowed_cores()
    busy = every = 0
    seen: set[int] = set()
    try:
        with open(path, encoding="ascii") as stat:
            for line in stat:
                name, *fields = line.split()
                if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cores:
                    continue
                # user nice system idle iowait irq softirq steal (guest time is counted in user already)
                ticks = [int(v) for v in fields[:8]]
                every += sum(ticks)
                busy += sum(ticks) - ticks[3] - ticks[4]
                seen.add(int(name[3:]))
    except (OSError, ValueError, IndexError):
        return None
    if seen != cores or every == 0:
        return None
    times = os.times()
    return CoreTicks(busy, every, times.user + times.system)


#: The counts when the process started reading its arguments and loading its modules.
STARTED = read_ticks()


def others_busy_cores(since: CoreTicks | None = STARTED, now: CoreTicks | None = None) -> float | None:
    """Cores' worth of work other processes did on this process's cores from ``since`` to ``now`` (default: now),
    or None when either count is missing or the span is under ``MIN_SPAN_S``."""
    now = now or read_ticks()
    if since is None or now is None:
        return None
    tick_s = 1.0 / os.sysconf("SC_CLK_TCK")
    cores = len(_allowed_cores())
    span_s = (now.all - since.all) * tick_s / cores
    if span_s < MIN_SPAN_S:
        return None
    others_s = (now.busy - since.busy) * tick_s - (now.own_s - since.own_s)
    return max(0.0, others_s / span_s)
