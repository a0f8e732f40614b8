"""A function over items, a few at a time in threads, its results handed back in the items' order as they come.

``concurrent.futures.Executor.map`` submits every item at once and holds every result until it is read; this keeps
only a few items ahead of the one being read, so a long list costs no more memory than a short one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")
#: Items submitted ahead of the one being read, per worker: enough that no worker waits for the reader.
AHEAD = 2


def map_in_order(function: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """``function(item)`` for each item in order, ``workers`` running at once (one: in this thread). An exception
    raised by ``function`` is raised here when its item's turn comes; leaving early cancels the items not started
    and waits for those running."""
    if workers <= 1:
        yield from map(function, items)
        return
    remaining = iter(items)
    with ThreadPoolExecutor(workers, thread_name_prefix="mjlens-read") as pool:
        pending: deque[Future[R]] = deque(pool.submit(function, item) for item in islice(remaining, workers * AHEAD))
        try:
            while pending:
                result = pending.popleft().result()
                pending.extend(pool.submit(function, item) for item in islice(remaining, 1))
                yield result
        finally:
            for future in pending:
                future.cancel()
