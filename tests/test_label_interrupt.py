"""``mjlens label`` stopped by SIGINT (Ctrl-C) or SIGTERM part-way: the queued photos are not started, the ones in
flight finish, everything finished is written (labels, review page, the resumable state), the count left is
said, and the exit status is 128 + the signal. No timing is assumed: the fake recognizer holds every photo after
the first two until the test has sent the signal."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from api_fakes import FakeRecognizer, sample_photo
from test_label import review_data

import mjlens.api.cli.commands.label as label_command
from mjlens.api.cli.main import main

PHOTOS = 12
TESTS = Path(__file__).resolve().parent

#: Run in a child process: photos after the first two wait for the file "release" before being read.
CHILD = """
import sys, time
from pathlib import Path
from api_fakes import FakeRecognizer
import mjlens.api.cli.commands.label as label_command
from mjlens.api.cli.main import main

release = Path(sys.argv[1])

class HeldRecognizer(FakeRecognizer):
    def recognize(self, data, name):
        with self._lock:
            started = self.calls
        if started >= 2:
            sys.stdout.write("held\\n")  # one write: two threads' prints may interleave their parts
            sys.stdout.flush()
            for _ in range(6000):  # at most a minute: never hang the test run
                if release.exists():
                    break
                time.sleep(0.01)
        return super().recognize(data, name)

class Recipe:
    def load(self, threads):
        return HeldRecognizer()

label_command.recognizer_recipe = lambda args: Recipe()
sys.exit(main(["label", sys.argv[2], "--out", sys.argv[3], "--workers", "2"]))
"""


@pytest.fixture
def photos(tmp_path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in range(PHOTOS):
        (folder / f"p{i:02d}.jpg").write_bytes(sample_photo())
    return folder


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_part_way_keeps_what_is_done_and_resumes(photos, tmp_path, monkeypatch, signum):
    out, release = tmp_path / "out", tmp_path / "release"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(release), str(photos), str(out)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=TESTS,
                             env={**_env(), "PYTHONPATH": str(TESTS)}, preexec_fn=_signals_as_at_a_terminal)
    try:
        assert child.stdout.readline().startswith("held")  # two photos done, the next ones held in flight
        child.send_signal(signum)
        _wait_for_stop_notice(child)
        release.touch()
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 128 + signum, err
    assert "Traceback" not in err

    done = sorted(p.stem for p in (out / "recognitions").glob("*.json"))
    assert 2 <= len(done) < PHOTOS
    assert sorted(p.stem for p in (out / "labels").iterdir()) == done
    assert sorted(p.stem for p in (out / "images").iterdir()) == done
    assert (out / "data.yaml").exists() and len(review_data(out)["photos"]) == len(done)
    remain = PHOTOS - len(done)
    assert f"{len(done)} photos labelled" in err and f"{remain} photo{'s' if remain > 1 else ''} remain" in err
    assert not list(out.rglob("*.part")) and not list(out.rglob(".*.part"))

    # resuming labels only the rest
    fake = FakeRecognizer()
    monkeypatch.setattr(label_command, "recognizer_recipe", lambda args: _Recipe(fake))
    assert main(["label", str(photos), "--out", str(out)]) == 0
    assert fake.calls == remain
    assert len(list((out / "labels").iterdir())) == PHOTOS
    assert json.loads((out / "recognitions" / "p00.json").read_text())["tiles"]


class _Recipe:
    def __init__(self, recognizer) -> None:
        self.recognizer = recognizer

    def load(self, threads: int):
        return self.recognizer


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _signals_as_at_a_terminal() -> None:
    """The child takes SIGINT as a terminal's process does: a test run started in the background (``cmd &``, nohup)
    has SIGINT ignored, which the child would inherit and `mjlens label` deliberately keep ignoring."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_stop_notice(child: subprocess.Popen) -> None:
    """The child says it is stopping (on stderr) once its handler has run; only then are the held photos let go,
    so that the signal is taken while they are in flight."""
    for line in child.stderr:
        if "stopping" in line:
            return
    raise AssertionError("the child ended without saying it was stopping")
