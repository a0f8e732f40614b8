"""The engines that run ``label_photo`` over many photos, and the stop request Ctrl-C makes.

The local engine is a thread pool in this process (the recognizer is thread-safe and its ONNX runtime releases
the GIL); the Ray engine (api.labelling.ray_engine) spreads the same work over a cluster. Both take photos in order,
hand each outcome to the caller as it comes, and on a stop request take no more photos.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import Protocol

from .inputs import Photo
from .work import LabelSettings, Outcome, TileRecognizer, label_photo

OnOutcome = Callable[[Outcome], None]


class StopRequest:
    """Set by SIGINT or SIGTERM (or a caller): the engine takes no more photos."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.signum: int | None = None

    def set(self, signum: int | None = None) -> None:
        self.signum = self.signum or signum
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()


@contextmanager
def stop_on_signals(notify: Callable[[], None]) -> Iterator[StopRequest]:
    """SIGINT and SIGTERM set the stop request (and call ``notify``) instead of killing the run; a second one
    stops at once (KeyboardInterrupt). Signal handlers live in the main thread only; elsewhere, none is set."""
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handle(signum, frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set(signum)
        notify()

    # a signal the parent set to be ignored (a background job's SIGINT, nohup) stays ignored
    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(sig) is not signal.SIG_IGN}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class Engine(Protocol):
    def run(self, photos: list[Photo], on_outcome: OnOutcome, stop: StopRequest) -> None: ...


class LocalEngine:
    """``workers`` threads sharing one recognizer. A photo is handed over only when a thread is free, so none
    waits in a queue: on a stop, the ones being read finish (a fraction of a second) and no other starts."""

    def __init__(self, recognizer: TileRecognizer, settings: LabelSettings, workers: int) -> None:
        self.recognizer, self.settings, self.workers = recognizer, settings, workers

    def run(self, photos: list[Photo], on_outcome: OnOutcome, stop: StopRequest) -> None:
        queue = iter(photos)
        pending: set[Future[Outcome]] = set()
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="mjlens-label")
        try:
            while True:
                while not stop.is_set() and len(pending) < self.workers:
                    photo = next(queue, None)
                    if photo is None:
                        break
                    pending.add(pool.submit(label_photo, self.recognizer, photo, self.settings))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    on_outcome(future.result())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
