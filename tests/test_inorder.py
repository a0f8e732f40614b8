"""``api.cli.inorder.map_in_order``: results in the items' order whatever order the threads finish in, an item's
exception at its turn, and only a few items ahead of the reader."""

from __future__ import annotations

import threading
import time

import pytest

from mjlens.api.cli.inorder import AHEAD, map_in_order


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_results_come_in_the_items_order(workers):
    def slow_first(n: int) -> int:
        time.sleep(0.02 if n % 3 == 0 else 0.0)  # the threads finish out of order
        return n * n

    assert list(map_in_order(slow_first, range(20), workers)) == [n * n for n in range(20)]


def test_an_items_exception_is_raised_at_its_turn():
    def fails_on_three(n: int) -> int:
        if n == 3:
            raise ValueError("three")
        return n

    seen = []
    with pytest.raises(ValueError, match="three"):
        for value in map_in_order(fails_on_three, range(10), 2):
            seen.append(value)
    assert seen == [0, 1, 2]


def test_only_a_few_items_run_ahead_of_the_reader():
    started, lock = [], threading.Lock()

    def record(n: int) -> int:
        with lock:
            started.append(n)
        return n

    results = map_in_order(record, range(1000), 2)
    assert next(results) == 0
    time.sleep(0.05)
    assert len(started) <= 2 * AHEAD + 1
    results.close()  # leaving early: nothing more starts
    count = len(started)
    time.sleep(0.05)
    assert len(started) == count
