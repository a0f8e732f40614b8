"""Photo -> Recognition JSON, with a tiny constant ONNX model; and ``mjlens recognize`` on good and bad files."""

from __future__ import annotations

import io
import json
import threading
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image
from test_detector import anchor, tiny_model

from mjlens.api.cli.main import main
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.recognize import NO_LAYOUT_WARNING, NO_TILES_WARNING, Recognizer
from mjlens.vision.runtime.detector import Detector

# Three tiles in the 64x64 model input; a 128x128 photo is scaled by 0.5, without padding.
ROWS = [anchor(40, 20, 50, 36, t7z=0.8), anchor(8, 20, 18, 36, t3s=0.9, t2s=0.2), anchor(24, 20, 34, 36, t3s=0.85)]


# these tests read with tiny detectors of their own, alone
pytestmark = pytest.mark.usefixtures("detector_alone")


@pytest.fixture
def model(tmp_path):
    return tiny_model(tmp_path / "tiny.onnx", ROWS, list(DETECTOR_CLASSES))


@pytest.fixture
def photo_bytes():
    buf = io.BytesIO()
    Image.new("RGB", (128, 128), (30, 120, 40)).save(buf, "JPEG")
    return buf.getvalue()


def without_layout(recognizer: Recognizer) -> Recognizer:
    recognizer._assemble = None
    return recognizer


def test_recognition_json(model, photo_bytes):
    result = without_layout(Recognizer(model)).recognize(photo_bytes, "table.jpg")
    assert set(result) == {"image", "width", "height", "tiles", "groups", "hand", "warnings", "warning_details"}
    assert (result["image"], result["width"], result["height"]) == ("table.jpg", 128, 128)
    assert [t["code"] for t in result["tiles"]] == ["3s", "3s", "7z"]  # left to right
    first = result["tiles"][0]
    assert first["box"] == pytest.approx([16, 40, 36, 72]) and first["confidence"] == pytest.approx(0.9)
    assert first["alternatives"][0]["code"] == "2s" and first["group"] is None
    assert result["hand"] is None and NO_LAYOUT_WARNING in result["warnings"] and result["warning_details"] == []
    json.dumps(result)


def test_layout_groups_and_hand_are_reported(model, photo_bytes):
    hand = SimpleNamespace(to_json=lambda: {"concealed": ["3s", "3s"], "melds": [], "winning_tile": "7z"})
    seen = {}

    def assemble(detections, width, height):
        seen.update(count=len(detections), size=(width, height))
        groups = [{"role": "concealed", "kind": None, "concealed": True, "tiles": [0, 1, 2]}]
        return SimpleNamespace(groups=groups, tile_group=[0, 0, 0], hand=hand, warnings=["a layout note"])

    recognizer = Recognizer(model)
    recognizer._assemble = assemble
    result = recognizer.recognize(photo_bytes, "table.jpg")
    assert seen == {"count": 3, "size": (128, 128)}
    assert [t["group"] for t in result["tiles"]] == [0, 0, 0]
    assert result["groups"][0]["tiles"] == [0, 1, 2]
    assert result["hand"]["winning_tile"] == "7z" and result["warnings"] == ["a layout note"]


def test_no_tiles_is_a_warning_not_an_error(tmp_path, photo_bytes):
    empty = tiny_model(tmp_path / "empty.onnx", [anchor(0, 0, 5, 5, t1m=0.01)], list(DETECTOR_CLASSES))
    result = without_layout(Recognizer(empty)).recognize(photo_bytes, "x.jpg")
    assert result["tiles"] == [] and NO_TILES_WARNING in result["warnings"]


def test_recognizer_is_shared_across_threads(model, photo_bytes):
    recognizer = without_layout(Recognizer(detector=Detector(model, threads=1)))
    results: list[dict] = []
    workers = [threading.Thread(target=lambda: results.append(recognizer.recognize(photo_bytes, "t.jpg")))
               for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 4 and all(r["tiles"] == results[0]["tiles"] for r in results)


def test_cli_recognize_json_and_bad_files(model, photo_bytes, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MJLENS_MODEL", str(model))
    good = tmp_path / "good.jpg"
    good.write_bytes(photo_bytes)
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a photo")
    assert main(["recognize", str(good), str(bad), str(good), "--json"]) == 2
    out, err = capsys.readouterr()
    results = json.loads(out)
    assert [r["image"] for r in results] == ["good.jpg", str(bad), "good.jpg"]
    assert results[1]["error"]["code"] == "not_an_image" and "not_an_image" in err
    assert len(results[0]["tiles"]) == 3


def test_cli_recognize_listing(model, photo_bytes, tmp_path, capsys):
    good = tmp_path / "good.jpg"
    good.write_bytes(photo_bytes)
    assert main(["recognize", str(good), "--model", str(model)]) == 0
    out = capsys.readouterr().out
    assert "good.jpg (128x128): 3 tiles" in out and "3s" in out


def test_cli_recognize_missing_model_and_bad_conf(tmp_path, capsys):
    assert main(["recognize", "x.jpg", "--model", str(tmp_path / "absent.onnx")]) == 2
    assert "missing" in capsys.readouterr().err
    assert main(["recognize", "x.jpg", "--conf", "1.5"]) == 2
    assert main(["recognize", "x.jpg", "--bonus-conf", "0"]) == 2
    assert "--bonus-conf must be between 0 and 1" in capsys.readouterr().err


def test_reduced_decoding_keeps_boxes_in_original_pixels(model):
    buf = io.BytesIO()
    Image.new("RGB", (1024, 1024), (30, 120, 40)).save(buf, "JPEG")
    recognizer = without_layout(Recognizer(model))
    decoded = recognizer.decode(buf.getvalue())
    assert decoded.bgr.shape[0] < 1024  # decoded reduced for a 64 px model
    result = recognizer.recognize(buf.getvalue(), "big.jpg")
    assert (result["width"], result["height"]) == (1024, 1024)
    assert result["tiles"][0]["box"] == pytest.approx([128, 320, 288, 576], abs=0.5)
    assert np.isfinite(result["tiles"][0]["confidence"])
