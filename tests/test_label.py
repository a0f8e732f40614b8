"""``mjlens label``: YOLO and COCO labels in the 43-class order, data.yaml, the review page, parallel workers,
resuming, and bad files that are logged and counted without stopping the run."""

from __future__ import annotations

import json
import os
import re

import pytest
import yaml
from api_fakes import FakeRecognizer, sample_photo

import mjlens.api.cli.commands.label as label_command
from mjlens.api.cli.main import main
from mjlens.scoring.tiles import DETECTOR_CLASSES


class FakeRecipe:
    """Loads the fake recognizer in place of the shipped models."""

    def __init__(self, recognizer: FakeRecognizer) -> None:
        self.recognizer = recognizer

    def load(self, threads: int) -> FakeRecognizer:
        return self.recognizer


@pytest.fixture
def fake(monkeypatch) -> FakeRecognizer:
    recognizer = FakeRecognizer()
    monkeypatch.setattr(label_command, "recognizer_recipe", lambda args: FakeRecipe(recognizer))
    return recognizer


@pytest.fixture
def photos(tmp_path):
    folder = tmp_path / "photos"
    (folder / "day2").mkdir(parents=True)
    (folder / "a.jpg").write_bytes(sample_photo())
    (folder / "b.png").write_bytes(sample_photo("PNG", size=(800, 600)))
    (folder / "day2" / "c.webp").write_bytes(sample_photo("WEBP"))
    (folder / "broken.jpg").write_bytes(sample_photo()[:700])  # truncated
    (folder / "notes.jpg").write_bytes(b"not a photo at all")
    (folder / "readme.txt").write_text("ignored: not a photo suffix")
    return folder


def test_yolo_labels_review_and_resume(fake, photos, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out), "--workers", "3"]) == 0
    err = capsys.readouterr().err
    assert "3 photos labelled" in err and "2 failed" in err
    assert "broken.jpg" in err and "corrupt_image" in err and "notes.jpg" in err
    assert fake.calls == 3

    data = yaml.safe_load((out / "data.yaml").read_text())
    assert data["nc"] == 43 and data["names"] == list(DETECTOR_CLASSES) and data["names"][-1] == "back"
    assert sorted(p.name for p in (out / "labels").iterdir()) == ["a.txt", "b.txt", "day2__c.txt"]
    assert sorted(p.name for p in (out / "images").iterdir()) == ["a.jpg", "b.png", "day2__c.webp"]
    lines = (out / "labels" / "b.txt").read_text().splitlines()
    assert len(lines) == 14
    classes = [DETECTOR_CLASSES[int(line.split()[0])] for line in lines]
    assert classes[:3] == ["1m", "2m", "3m"] and classes[-1] == "9s"
    for line in lines:
        cx, cy, w, h = map(float, line.split()[1:])
        assert 0 < cx < 1 and 0 < cy < 1 and 0 < w < 1 and 0 < h < 1
    assert abs(float(lines[0].split()[2]) - 0.5) < 1e-6  # the fake's tiles sit across the middle

    review = (out / "review.html").read_text()
    assert "3 photos with tiles below 0.60" in review and "broken.jpg" in review
    shown = review_data(out)
    assert [p["src"] for p in shown["photos"]] == ["images/a.jpg", "images/b.png", "images/day2__c.webp"]
    assert sum(t["confidence"] < shown["low"] for p in shown["photos"] for t in p["tiles"]) == 3
    failed = [json.loads(line) for line in (out / "failed.jsonl").read_text().splitlines()]
    assert sorted((f["path"], f["code"]) for f in failed) == [("broken.jpg", "corrupt_image"),
                                                              ("notes.jpg", "not_an_image")]

    # a second run resumes: nothing is recognized again, the bad files are retried and counted again
    assert main(["label", str(photos), "--out", str(out)]) == 0
    assert fake.calls == 3
    assert "0 new, 3 already done, 2 failed" in capsys.readouterr().err

    # a damaged saved result is redone
    (out / "recognitions" / "a.json").write_text("{half")
    assert main(["label", str(photos), "--out", str(out)]) == 0
    assert fake.calls == 4


def test_coco_format(fake, photos, tmp_path):
    out = tmp_path / "coco"
    assert main(["label", str(photos), "--out", str(out), "--format", "coco"]) == 0
    doc = json.loads((out / "annotations.json").read_text())
    assert [c["name"] for c in doc["categories"]] == list(DETECTOR_CLASSES)
    assert len(doc["images"]) == 3 and len(doc["annotations"]) == 42
    first = doc["annotations"][0]
    assert doc["categories"][first["category_id"] - 1]["name"] == "1m"
    x, y, w, h = first["bbox"]
    assert w > 0 and h > 0 and first["area"] == pytest.approx(w * h, rel=1e-2)
    assert not (out / "labels").exists()


def test_output_inside_the_input_folder_is_not_relabelled(fake, photos):
    assert main(["label", str(photos), "--out", str(photos / "labels-out")]) == 0
    assert main(["label", str(photos), "--out", str(photos / "labels-out")]) == 0
    assert fake.calls == 3


@pytest.mark.parametrize("argv, message", [
    (["--workers", "0"], "--workers"),
    (["--review-conf", "2"], "--review-conf"),
])
def test_bad_arguments(fake, photos, tmp_path, capsys, argv, message):
    assert main(["label", str(photos), "--out", str(tmp_path / "o"), *argv]) == 2
    assert message in capsys.readouterr().err


def test_empty_or_missing_folder(fake, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["label", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert main(["label", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def review_data(out) -> dict:
    """What the review page of ``out`` shows and edits: the JSON inlined in it."""
    page = (out / "review.html").read_text(encoding="utf-8", errors="replace")
    found = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page, re.S)
    assert found, "the review page holds no data"
    return json.loads(found.group(1))


def _failed(out) -> list[dict]:
    return [json.loads(line) for line in (out / "failed.jsonl").read_text(encoding="utf-8").splitlines()]


def test_coco_file_names_are_relative_to_the_images_folder_and_one_photo_is_singular(fake, tmp_path, capsys):
    folder = tmp_path / "one"
    (folder / "day1").mkdir(parents=True)
    (folder / "day1" / "hand.jpg").write_bytes(sample_photo())
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out), "--format", "coco"]) == 0
    doc = json.loads((out / "annotations.json").read_text())
    assert [image["file_name"] for image in doc["images"]] == ["day1__hand.jpg"]
    assert (out / "images" / doc["images"][0]["file_name"]).is_file()
    err = capsys.readouterr().err
    assert "1 photo labelled" in err and "1 photos" not in err
    assert "<p>1 photo, 14 tiles." in (out / "review.html").read_text()


def test_a_link_out_of_the_input_folder_is_not_read_unless_asked(fake, tmp_path, capsys):
    folder, elsewhere = tmp_path / "photos", tmp_path / "private"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "a.jpg").write_bytes(sample_photo())
    (elsewhere / "secret.jpg").write_bytes(sample_photo())
    (folder / "outside.jpg").symlink_to(elsewhere / "secret.jpg")
    (folder / "inside.jpg").symlink_to(folder / "a.jpg")
    (folder / "linked").symlink_to(elsewhere, target_is_directory=True)
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out)]) == 0
    assert fake.calls == 2  # a.jpg and the link to it inside the folder
    assert sorted(p.name for p in (out / "images").iterdir()) == ["a.jpg", "inside.jpg"]
    assert not (out / "images" / "inside.jpg").is_symlink()
    assert {(f["path"], f["code"]) for f in _failed(out)} == {("outside.jpg", "link_outside_input"),
                                                              ("linked", "linked_folder")}
    err = capsys.readouterr().err
    assert "outside.jpg: link_outside_input" in err and "--follow-links" in err

    out2 = tmp_path / "out2"
    assert main(["label", str(folder), "--out", str(out2), "--follow-links"]) == 0
    assert sorted(p.name for p in (out2 / "images").iterdir()) == ["a.jpg", "inside.jpg", "linked__secret.jpg",
                                                                   "outside.jpg"]
    assert _failed(out2) == []


def test_dangling_links_pipes_and_folders_named_as_photos_each_get_a_line(fake, tmp_path, capsys):
    folder = tmp_path / "photos"
    (folder / "album.jpg").mkdir(parents=True)
    (folder / "album.jpg" / "b.jpg").write_bytes(sample_photo())
    (folder / "a.jpg").write_bytes(sample_photo())
    (folder / "gone.jpg").symlink_to(folder / "deleted.jpg")
    os.mkfifo(folder / "pipe.jpg")
    (folder / "to-pipe.png").symlink_to(folder / "pipe.jpg")
    (folder / "notes.txt").write_text("not named as a photo: not listed")
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out)]) == 0
    assert sorted(p.name for p in (out / "images").iterdir()) == ["a.jpg", "album.jpg__b.jpg"]
    assert sorted((f["path"], f["code"]) for f in _failed(out)) == [
        ("album.jpg", "not_a_file"), ("gone.jpg", "dangling_link"), ("pipe.jpg", "not_a_file"),
        ("to-pipe.png", "not_a_file")]
    assert "4 failed" in capsys.readouterr().err


def test_a_run_where_every_file_failed_exits_2(fake, tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "broken.jpg").write_bytes(sample_photo()[:700])
    (folder / "gone.jpg").symlink_to(folder / "deleted.jpg")
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no photo labelled: every file failed" in err and "Traceback" not in err
    assert sorted(f["code"] for f in _failed(out)) == ["corrupt_image", "dangling_link"]
    (folder / "good.jpg").write_bytes(sample_photo())
    assert main(["label", str(folder), "--out", str(out)]) == 0  # one labelled: the run did its job


def test_a_link_loop_is_entered_once(fake, tmp_path):
    folder = tmp_path / "photos"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.jpg").write_bytes(sample_photo())
    (folder / "sub" / "up").symlink_to(folder, target_is_directory=True)
    assert main(["label", str(folder), "--out", str(tmp_path / "out"), "--follow-links"]) == 0
    assert fake.calls == 1


def test_output_photos_are_copies_unless_links_are_asked_for(fake, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(sample_photo())
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out)]) == 0
    copy = out / "images" / "a.jpg"
    assert copy.read_bytes() == (folder / "a.jpg").read_bytes()
    assert copy.stat().st_ino != (folder / "a.jpg").stat().st_ino
    copy.write_bytes(b"edited")
    assert (folder / "a.jpg").read_bytes() != b"edited"

    linked = tmp_path / "linked"
    assert main(["label", str(folder), "--out", str(linked), "--link"]) == 0
    assert (linked / "images" / "a.jpg").stat().st_ino == (folder / "a.jpg").stat().st_ino


def test_the_output_folder_may_not_be_the_input_folder(fake, photos, capsys):
    assert main(["label", str(photos), "--out", str(photos)]) == 2
    assert "--out must be a folder other than DIR" in capsys.readouterr().err


def test_any_file_name_survives_the_list_of_failed_files(fake, tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    odd = ["two\nlines.jpg", "tab\there.jpg", 'quote"s.jpg', "[draft].jpg", os.fsdecode(b"caf\xe9.jpg")]
    for name in odd:
        (folder / name).write_bytes(b"not a photo")
    (folder / "good #1?.jpg").write_bytes(sample_photo())
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out)]) == 0
    failed = _failed(out)
    assert sorted(f["path"] for f in failed) == sorted(odd) and {f["code"] for f in failed} == {"not_an_image"}
    err = capsys.readouterr().err
    assert "two\\nlines.jpg: not_an_image" in err and "[draft].jpg: not_an_image" in err
    assert [p["src"] for p in review_data(out)["photos"]] == ["images/good%20%231%3F.jpg"]


def test_long_and_colliding_names_are_labelled_under_names_that_say_so(fake, tmp_path, capsys):
    folder = tmp_path / "photos"
    (folder / "day2").mkdir(parents=True)
    long_name = "x" * 246 + ".jpg"  # 250 characters: the file system's limit leaves no room for a longer output
    for relative in ("day2/photo.jpg", "day2__photo.jpg", "a.jpg", "a.png", long_name, f"day2/{long_name}"):
        (folder / relative).write_bytes(sample_photo())
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "6 photos labelled" in err and "0 failed" in err
    assert "day2__photo.jpg: labelled as day2__photo~" in err and "taken by day2/photo.jpg" in err
    assert "a.png: labelled as a~" in err
    assert f"day2/{long_name}: labelled as day2__{'x' * 200}" in err and "too long" in err
    names = sorted(p.name for p in (out / "images").iterdir())
    assert len(names) == 6 and long_name in names and max(len(os.fsencode(n)) for n in names) <= 255
    assert len(list((out / "labels").iterdir())) == 6

    # the same names again: nothing is labelled twice
    assert main(["label", str(folder), "--out", str(out)]) == 0
    assert fake.calls == 6 and "0 new, 6 already done" in capsys.readouterr().err


def test_the_ray_engine_without_ray_says_what_to_install(fake, photos, tmp_path, monkeypatch, capsys):
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "ray" else found(name, *rest))
    assert main(["label", str(photos), "--out", str(tmp_path / "o"), "--engine", "ray"]) == 2
    assert "pip install 'mjlens[cluster]'" in capsys.readouterr().err


def test_an_address_needs_the_ray_engine(fake, photos, tmp_path, capsys):
    assert main(["label", str(photos), "--out", str(tmp_path / "o"), "--address", "auto"]) == 2
    assert "--address needs --engine ray" in capsys.readouterr().err


def test_a_fault_on_one_photo_is_reported_with_it_and_the_run_goes_on(photos, tmp_path, monkeypatch, capsys):
    class FaultyOnB(FakeRecognizer):
        def recognize(self, data: bytes, name: str):
            if name == "b.png":
                raise SystemError("a fault in the reader")
            return super().recognize(data, name)

    monkeypatch.setattr(label_command, "recognizer_recipe", lambda args: FakeRecipe(FaultyOnB()))
    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out)]) == 0
    assert {f["path"]: f["code"] for f in _failed(out)}["b.png"] == "internal_error"
    assert "b.png: internal_error: SystemError: a fault in the reader" in capsys.readouterr().err
    assert len(list((out / "labels").iterdir())) == 2


def test_an_engine_that_fails_still_writes_what_is_done(fake, photos, tmp_path, monkeypatch, capsys):
    from mjlens.api.labelling.engines import LocalEngine

    real_run = LocalEngine.run

    def run_then_fail(self, photos, on_outcome, stop):
        real_run(self, photos[:1], on_outcome, stop)
        raise ConnectionError("the cluster went away")

    monkeypatch.setattr(LocalEngine, "run", run_then_fail)
    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out)]) == 1
    assert "the cluster went away" in capsys.readouterr().err
    assert len(list((out / "labels").iterdir())) == 1 and (out / "review.html").exists()


def test_a_killed_runs_temporary_files_are_removed_and_a_second_run_into_the_folder_is_refused(fake, photos, tmp_path,
                                                                                               capsys):
    from mjlens.api.labelling.outputs import OutputFolder, exclusive_run

    out = tmp_path / "out"
    (out / "recognitions").mkdir(parents=True)
    (out / "images").mkdir()
    left = [out / "recognitions" / ".0123456789ab.part", out / "images" / ".ba9876543210.part"]
    for path in left:
        path.write_bytes(b"half a file")  # what a worker killed mid-write leaves
    with exclusive_run(OutputFolder(out)):
        assert all(not path.exists() for path in left)
        assert main(["label", str(photos), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "another mjlens label run is writing into" in err and "Traceback" not in err
        assert not list((out / "recognitions").iterdir())
    assert main(["label", str(photos), "--out", str(out)]) == 0
    assert sorted(p.name for p in (out / "recognitions").iterdir()) == ["a.json", "b.json", "day2__c.json"]


def test_a_red_five_is_labelled_as_its_five_not_left_out():
    from mjlens.api.labelling.labels import coco, yolo_lines
    from mjlens.api.labelling.labels import review_data as page_data

    reading = {"image": "a.jpg", "width": 100, "height": 50,
               "tiles": [{"code": "0s", "box": [10, 10, 30, 40], "confidence": 0.9},
                         {"code": "3m", "box": [40, 10, 60, 40], "confidence": 0.9}]}
    assert [line.split()[0] for line in yolo_lines(reading)] == [str(DETECTOR_CLASSES.index("5s")),
                                                                 str(DETECTOR_CLASSES.index("3m"))]
    photo = type("Photo", (), {"image_name": "a.jpg"})()
    assert [a["category_id"] - 1 for a in coco([(photo, reading)])["annotations"]] == [
        DETECTOR_CLASSES.index("5s"), DETECTOR_CLASSES.index("3m")]
    assert [t["code"] for t in page_data([(photo, reading)], 0.6, ["yolo"])["photos"][0]["tiles"]] == ["5s", "3m"]
