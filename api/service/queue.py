"""A bounded pool for detector work: inference runs off the event loop, and overload is refused early.

The detector is CPU-bound; letting requests pile up without limit only makes every one of them slow and
then time out. So at most ``workers`` run at once, at most ``queue_size`` more wait, and anything beyond
is answered 503 at once with ``Retry-After``, which a phone app can act on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from mjlens.i18n import msg

from .errors import ApiError

T = TypeVar("T")


class InferencePool:
    """``await pool.run(fn, *args)`` runs ``fn`` in a worker thread, or raises ApiError 503 ``busy`` when
    ``workers + queue_size`` calls are already in flight. The counter lives on the event loop thread only."""

    def __init__(self, workers: int, queue_size: int, retry_after_s: int = 1):
        self.workers = workers
        self.capacity = workers + queue_size
        self.retry_after_s = retry_after_s
        self.in_flight = 0
        self.closed = False
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mjlens-infer")

    @property
    def full(self) -> bool:
        return self.in_flight >= self.capacity

    def busy_message(self) -> str:
        """What a 503 says when the pool is full."""
        waiting = self.capacity - self.workers
        if self.workers == 1:
            return msg("the detector is busy: {workers} photo being read and {waiting} waiting, the most it holds; "
                       "retry shortly", workers=self.workers, waiting=waiting)
        return msg("the detector is busy: {workers} photos being read and {waiting} waiting, the most it holds; "
                   "retry shortly", workers=self.workers, waiting=waiting)

    async def run(self, fn: Callable[..., T], *args) -> T:
        if self.full:
            raise ApiError(503, "busy", self.busy_message(), headers={"Retry-After": str(self.retry_after_s)})
        self.in_flight += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self.in_flight -= 1

    def shutdown(self) -> None:
        self.closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
