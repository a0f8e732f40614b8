"""onnxruntime session settings: how many threads, and whether they spin during a run (``vision.runtime.sessions``)."""

from __future__ import annotations

import os

import pytest

from mjlens.vision.runtime import core_use, sessions
from mjlens.vision.runtime.core_use import CoreTicks, others_busy_cores, read_ticks
from mjlens.vision.runtime.sessions import SPIN_ENV, THREADS_ENV, cores_free_for, session_options, should_spin


@pytest.fixture
def machine(monkeypatch):
    """A 4-core machine that gives no per-core counts, whose 1-minute load average the test sets."""
    monkeypatch.delenv(SPIN_ENV, raising=False)
    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.setattr(sessions, "cores", lambda: 4)
    monkeypatch.setattr(core_use, "others_busy_cores", lambda: None)

    def set_load(load: float) -> None:
        monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))

    return set_load


@pytest.mark.parametrize(("load", "threads", "free"), [
    (0.0, 4, True), (0.5, 4, True), (0.6, 4, False), (2.0, 2, True), (2.6, 2, False), (3.9, 1, False),
])
def test_cores_are_free_when_the_load_leaves_one_per_thread(machine, load, threads, free):
    machine(load)
    assert cores_free_for(threads) is free


def test_a_system_without_a_load_average_spins_as_onnxruntime_does(machine, monkeypatch):
    def no_load():
        raise OSError("no load average")

    monkeypatch.setattr(os, "getloadavg", no_load)
    assert cores_free_for(4) and should_spin(4)


def test_auto_spins_only_with_several_threads_and_free_cores(machine):
    machine(0.0)
    assert should_spin(2)
    assert not should_spin(1)  # one thread waits for nobody
    machine(3.0)
    assert not should_spin(2)


@pytest.mark.parametrize(("setting", "expected"), [("1", True), ("on", True), ("0", False), ("off", False)])
def test_the_setting_forces_either_way(machine, monkeypatch, setting, expected):
    machine(10.0 if expected else 0.0)  # against what the load would say
    monkeypatch.setenv(SPIN_ENV, setting)
    assert should_spin(2) is expected


def spins(options) -> bool:
    return options.get_session_config_entry("session.intra_op.allow_spinning") == "1"


def test_options_spin_during_a_run_and_stop_after_it(machine):
    machine(0.0)
    options = session_options(2)
    assert options.intra_op_num_threads == 2
    assert spins(options)
    assert options.get_session_config_entry("session.force_spinning_stop") == "1"
    assert not spins(session_options(2, spin=False))


def test_threads_default_to_the_setting_then_every_core(machine, monkeypatch):
    machine(0.0)
    assert session_options().intra_op_num_threads == 4
    monkeypatch.setenv(THREADS_ENV, "3")
    assert session_options().intra_op_num_threads == 3


@pytest.mark.parametrize(("load", "workers"), [(0.0, 4), (0.5, 4), (1.0, 1), (20.0, 1)])
def test_photos_are_read_one_a_core_only_on_free_cores(machine, load, workers):
    machine(load)
    assert sessions.default_workers() == workers


def test_one_core_reads_one_photo_at_a_time(machine, monkeypatch):
    machine(0.0)
    monkeypatch.setattr(sessions, "cores", lambda: 1)
    assert sessions.default_workers() == 1


@pytest.mark.parametrize(("others", "threads", "free"), [(0.0, 4, True), (0.4, 4, True), (0.7, 4, False),
                                                        (1.9, 2, True), (3.6, 1, False)])
def test_the_cores_measured_busy_decide_before_the_load_average(machine, monkeypatch, others, threads, free):
    machine(30.0 if free else 0.0)  # against what the load average would say
    monkeypatch.setattr(core_use, "others_busy_cores", lambda: others)
    assert cores_free_for(threads) is free


STAT = """cpu  900 0 100 1000 50 0 0 0 0 0
cpu0 500 0 50 400 20 0 0 0 0 0
cpu1 400 0 50 600 30 0 0 0 0 0
cpu2 7 0 0 0 0 0 0 0 0 0
intr 123 4 5
"""


def test_ticks_are_read_for_the_cores_this_process_may_use(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    stat.write_text(STAT)
    monkeypatch.setattr(core_use, "_allowed_cores", lambda: {0, 1})
    ticks = read_ticks(str(stat))
    assert (ticks.busy, ticks.all) == (1000, 2050)  # idle and disk waits are not busy; cpu2 is another's
    monkeypatch.setattr(core_use, "_allowed_cores", lambda: {0, 1, 5})
    assert read_ticks(str(stat)) is None  # a core without counts: nothing measured
    assert read_ticks(str(tmp_path / "absent")) is None


def test_what_others_used_is_the_busy_ticks_less_this_process(monkeypatch):
    monkeypatch.setattr(core_use, "_allowed_cores", lambda: {0, 1})
    monkeypatch.setattr(os, "sysconf", lambda name: 100)  # ticks a second
    since = CoreTicks(busy=0, all=0, own_s=1.0)
    # 1 s on 2 cores: 200 ticks, 150 busy, 0.5 s of them this process's: the others kept one core busy
    assert others_busy_cores(since, CoreTicks(busy=150, all=200, own_s=1.5)) == pytest.approx(1.0)
    assert others_busy_cores(since, CoreTicks(busy=40, all=200, own_s=1.5)) == 0.0  # never below none
    assert others_busy_cores(since, CoreTicks(busy=10, all=10, own_s=1.0)) is None  # 0.05 s: too short to tell
    assert others_busy_cores(None, CoreTicks(busy=10, all=400, own_s=1.0)) is None


def test_this_machine_measures_its_cores_where_it_can():
    ticks = read_ticks()
    if ticks is None:
        pytest.skip("no per-core counts here")
    assert 0 <= ticks.busy <= ticks.all and ticks.own_s > 0
