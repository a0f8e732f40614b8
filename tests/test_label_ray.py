"""``mjlens label --engine ray``: the same outputs as the local engine, resumable, bad files counted, one
recognizer loaded per worker, and a stop that keeps what is done. Ray (extra ``cluster``) is started once for
the module, on this machine, with two CPUs."""

from __future__ import annotations

import filecmp
import json
import logging
import os
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import api_fakes  # noqa: E402 - after the skip: Ray is an optional extra
from api_fakes import FakeRecognizer, sample_photo  # noqa: E402
from test_label import review_data  # noqa: E402

import mjlens.api.cli.commands.label as label_command  # noqa: E402
from mjlens.api.cli.main import main  # noqa: E402
from mjlens.api.labelling.engines import StopRequest  # noqa: E402
from mjlens.api.labelling.inputs import find_photos  # noqa: E402
from mjlens.api.labelling.outputs import OutputFolder  # noqa: E402
from mjlens.api.labelling.ray_engine import RayEngine, RayOptions  # noqa: E402
from mjlens.api.labelling.work import LabelSettings, RecognizerRecipe  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    # the fakes live in the tests folder, which Ray's workers do not import from: send them by value
    ray.cloudpickle.register_pickle_by_value(api_fakes)
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    ray.shutdown()


class CountingRecipe:
    """Loads the fake recognizer and leaves a mark per load, named by the loading process."""

    def __init__(self, marks: Path) -> None:
        self.marks = marks

    def load(self, threads: int) -> FakeRecognizer:
        (self.marks / f"{os.getpid()}-{len(list(self.marks.iterdir()))}").touch()
        return FakeRecognizer()


@pytest.fixture
def photos(tmp_path) -> Path:
    folder = tmp_path / "photos"
    (folder / "day2").mkdir(parents=True)
    for i in range(6):
        (folder / f"p{i}.jpg").write_bytes(sample_photo())
    (folder / "day2" / "c.webp").write_bytes(sample_photo("WEBP"))
    (folder / "broken.jpg").write_bytes(sample_photo()[:700])
    (folder / "notes.jpg").write_bytes(b"not a photo at all")
    return folder


@pytest.fixture
def marks(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "marks"
    folder.mkdir()
    monkeypatch.setattr(label_command, "recognizer_recipe", lambda args: CountingRecipe(folder))
    return folder


def _loads_by_process(marks: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for mark in marks.iterdir():
        pid = mark.name.split("-")[0]
        counts[pid] = counts.get(pid, 0) + 1
    return counts


def test_ray_labels_resume_and_count_bad_files_with_one_load_per_worker(photos, marks, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out), "--engine", "ray", "--workers", "2"]) == 0
    err = capsys.readouterr().err
    assert "7 photos labelled" in err and "7 new" in err and "2 failed" in err
    assert "broken.jpg: corrupt_image" in err and "notes.jpg: not_an_image" in err
    failed = [json.loads(line) for line in (out / "failed.jsonl").read_text().splitlines()]
    assert sorted(f["path"] for f in failed) == ["broken.jpg", "notes.jpg"]
    assert len(list((out / "labels").iterdir())) == 7 and len(review_data(out)["photos"]) == 7

    loads = _loads_by_process(marks)
    workers = {pid: n for pid, n in loads.items() if pid != str(os.getpid())}  # the driver checks the model once
    assert loads.get(str(os.getpid())) == 1 and 1 <= len(workers) <= 2 and set(workers.values()) == {1}

    assert main(["label", str(photos), "--out", str(out), "--engine", "ray"]) == 0
    assert "0 new, 7 already done, 2 failed" in capsys.readouterr().err


def test_both_engines_write_the_same_label_files(tmp_path, monkeypatch):
    if not (REPO / "models" / "mjlens-tiles.onnx").is_file():
        pytest.skip("models/mjlens-tiles.onnx is not present")
    monkeypatch.setenv("MJLENS_THREADS", "1")  # the Ray workers read with one thread each: the same arithmetic
    local, clustered = tmp_path / "local", tmp_path / "ray"
    for out, engine in ((local, "local"), (clustered, "ray")):
        for fmt in ("yolo", "coco"):  # the second format is written from the recognitions the first one saved
            assert main(["label", str(EXAMPLES), "--out", str(out), "--format", fmt, "--engine", engine]) == 0
    compared = filecmp.dircmp(local / "labels", clustered / "labels")
    assert compared.left_list == sorted("__".join(photo.relative_to(EXAMPLES).with_suffix(".txt").parts)
                                        for photo in EXAMPLES.rglob("*.jpg"))
    assert not compared.diff_files and not compared.left_only and not compared.right_only
    assert all((local / "labels" / name).read_text() for name in compared.left_list)
    for name in ("data.yaml", "annotations.json", "review.html"):
        assert (local / name).read_bytes() == (clustered / name).read_bytes(), name


def test_a_stop_keeps_what_is_done_and_the_next_run_labels_the_rest(photos, tmp_path, marks):
    listing = find_photos(photos)
    out = OutputFolder(tmp_path / "out")
    for folder in (out.recognitions, out.images):
        folder.mkdir(parents=True)
    settings = LabelSettings(input_root=photos, out=out)
    stop, seen = StopRequest(), []

    def on_outcome(outcome) -> None:
        seen.append(outcome)
        stop.set()

    with RayEngine(CountingRecipe(marks), settings, RayOptions(workers=2)) as engine:
        engine.run(listing.photos, on_outcome, stop)
    assert len(seen) == 1
    done = {p.stem for p in out.recognitions.iterdir()}
    assert seen[0].failure or seen[0].photo.key in done

    assert main(["label", str(photos), "--out", str(out.root), "--engine", "ray"]) == 0
    # every photo's recognition, and nothing a worker killed mid-write left behind
    assert sorted(p.suffix for p in out.recognitions.iterdir()) == [".json"] * 7


def test_a_model_that_cannot_load_is_said_once(photos, tmp_path, capsys):
    code = main(["label", str(photos), "--out", str(tmp_path / "o"), "--engine", "ray", "--model",
                 str(tmp_path / "missing.onnx")])
    assert code == 2 and "Traceback" not in capsys.readouterr().err


def test_recipe_is_plain_data():
    import pickle

    recipe = RecognizerRecipe(model="m.onnx", conf=0.3)
    assert pickle.loads(pickle.dumps(recipe)) == recipe
