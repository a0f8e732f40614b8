"""``mjlens label``: YOLO and COCO labels in the 43-class order, data.yaml, the review page, parallel workers,
resuming, and bad files that are logged and counted without stopping the run."""

from __future__ import annotations

import json

import pytest
import yaml
from api_fakes import FakeRecognizer, sample_photo

import mjlens.api.commands.label as label_command
from mjlens.api.cli import main
from mjlens.scoring.tiles import DETECTOR_CLASSES


@pytest.fixture
def fake(monkeypatch) -> FakeRecognizer:
    recognizer = FakeRecognizer()
    monkeypatch.setattr(label_command, "load_recognizer", lambda args: recognizer)
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
    assert review.count("<figure") == 3 and "3 photos with tiles below 0.60" in review
    assert review.count("class='b low'") == 3 and "broken.jpg" in review and "images/day2__c.webp" in review
    assert len((out / "failed.txt").read_text().splitlines()) == 2

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
