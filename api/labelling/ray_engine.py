"""The Ray engine of ``mjlens label`` (extra ``cluster``): the photos become a Ray Data dataset, mapped by a pool
of actors that each load the recognizer once and run the same ``label_photo`` as the local engine. The input and
output folders must be the same path on every node (a shared folder: docs/label-cluster.md).

Without ``address`` (or ``RAY_ADDRESS``) it starts Ray on this machine alone (quiet, no dashboard); with one it
joins that cluster.
A stop request stops taking results and shuts the run down: the photos in flight are dropped, and the next
run labels them (their outputs are written whole or not at all).
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import ray

from .engines import OnOutcome, StopRequest
from .inputs import Photo
from .outputs import Failure
from .work import LabelSettings, Outcome, RecognizerRecipe, label_photo

#: Blocks a worker gets at least, so that no worker waits while another has a queue.
BLOCKS_PER_WORKER = 4
#: Photos a dataset block holds at most. The command's process schedules every block (about 12 ms of its time a
#: block, measured on 2 busy cores), so a big cluster needs big blocks; a worker hands back a block's results
#: only when all of its photos are done, so smaller blocks report progress more often and stop sooner.
MAX_PHOTOS_PER_BLOCK = 32


@dataclass(frozen=True)
class RayOptions:
    address: str | None = None  # None: $RAY_ADDRESS where set, else a Ray of this machine alone, started for the run
    workers: int | None = None  # actors; None: one per CPU the cluster has
    cpus_per_worker: int = 1  # CPUs Ray reserves for each actor, and its inference threads


class PhotoLabeller:
    """A Ray Data actor: the recognizer is loaded once, when the actor starts, and labels every photo it gets."""

    def __init__(self, recipe: RecognizerRecipe, settings: LabelSettings, threads: int) -> None:
        import cv2

        cv2.setNumThreads(threads)  # the actor's process is its own: OpenCV keeps to the CPUs Ray gave it
        self.recognizer = recipe.load(threads)
        self.settings = settings

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        codes, messages = [], []
        for source, relative, key in zip(batch["source"], batch["relative"], batch["key"], strict=True):
            photo = Photo(source=Path(os.fsdecode(source)), relative=os.fsdecode(relative), key=os.fsdecode(key))
            outcome = label_photo(self.recognizer, photo, self.settings)
            codes.append(outcome.failure.code if outcome.failure else "")
            messages.append(outcome.failure.message if outcome.failure else "")
        return {"relative": batch["relative"], "code": np.array(codes, dtype=object),
                "message": np.array(messages, dtype=object)}


class RayEngine:
    """Use as a context manager: Ray is started (or joined) on entering, and left on leaving when this engine
    started it."""

    def __init__(self, recipe: RecognizerRecipe, settings: LabelSettings, options: RayOptions) -> None:
        self.recipe, self.settings, self.options = recipe, settings, options
        self._started = False

    def __enter__(self) -> RayEngine:
        if not ray.is_initialized():
            # RAY_ADDRESS is how `ray job submit` and KubeRay's RayJob point a command at their cluster
            address = self.options.address or os.environ.get("RAY_ADDRESS") or None
            cpus = None if address else (self.options.workers or os.cpu_count() or 1) * self.options.cpus_per_worker
            ray.init(address=address, num_cpus=cpus, include_dashboard=False, logging_level=logging.ERROR,
                     log_to_driver=False)
            self._started = True
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        logging.getLogger("ray.data").setLevel(logging.ERROR)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._started:
            ray.shutdown()

    @property
    def workers(self) -> int:
        if self.options.workers:
            return self.options.workers
        return max(1, int(ray.cluster_resources().get("CPU", 1)) // self.options.cpus_per_worker)

    def run(self, photos: list[Photo], on_outcome: OnOutcome, stop: StopRequest) -> None:
        if not photos:
            return
        by_relative = {os.fsencode(photo.relative): photo for photo in photos}
        workers = min(self.workers, len(photos))
        per_block = max(1, min(MAX_PHOTOS_PER_BLOCK, len(photos) // (workers * BLOCKS_PER_WORKER)))
        blocks = math.ceil(len(photos) / per_block)
        # Names travel as bytes: Arrow holds text as UTF-8 only, and a file name on Linux need not be.
        items = [{"source": os.fsencode(p.source), "relative": os.fsencode(p.relative), "key": os.fsencode(p.key)}
                 for p in photos]
        dataset = ray.data.from_items(items, override_num_blocks=blocks).map_batches(
            PhotoLabeller, fn_constructor_args=(self.recipe, self.settings, self.options.cpus_per_worker),
            batch_size=None, compute=ray.data.ActorPoolStrategy(size=workers),
            num_cpus=self.options.cpus_per_worker)
        rows = dataset.iter_rows()
        try:
            for row in rows:
                photo = by_relative[bytes(row["relative"])]
                failure = Failure(photo.relative, str(row["code"]), str(row["message"])) if row["code"] else None
                on_outcome(Outcome(photo, failure))
                if stop.is_set():
                    return
        except Exception:
            if not stop.is_set():  # a Ctrl-C in a terminal reaches Ray's workers too: their end is expected then
                raise
        finally:
            close = getattr(rows, "close", None)
            if close:
                close()
