"""The service with the shipped detector (models/mjlens-tiles.onnx, or $MJLENS_MODEL) on real photos; skipped
while the model file is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings
from mjlens.vision.runtime.detector import default_model_path

MODEL = default_model_path()
REPO_EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hand.jpg"
pytestmark = pytest.mark.skipif(not MODEL.is_file(), reason="the shipped model is not present")


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(Settings(model=MODEL, workers=2))) as c:
        yield c


def test_ready_with_the_real_model(client):
    assert client.get("/readyz").json() == {"status": "ready", "detector": "mjlens-tiles.onnx",
                                            "classifier": "mjlens-tile-crops.onnx"}


def test_recognize_and_photo_score_the_example(client):
    if not REPO_EXAMPLE.is_file():
        pytest.skip("examples/hand.jpg is not present")
    photo = {"image": ("hand.jpg", REPO_EXAMPLE.read_bytes(), "image/jpeg")}
    rec = client.post("/v1/recognize", files=photo)
    assert rec.status_code == 200, rec.text
    body = rec.json()
    assert body["image"] == "hand.jpg" and (body["width"], body["height"]) == (640, 640)
    assert isinstance(body["tiles"], list)  # the detector's accuracy is measured by the vision tests, not here
    for tile in body["tiles"]:
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 640 and 0 < tile["confidence"] <= 1
    both = client.post("/v1/photo-score", files=photo, data={"rules": "mcr", "self_drawn": "true"})
    assert both.status_code == 200, both.text
    assert set(both.json()) == {"recognition", "score"} and both.json()["score"]["rules"] == "mcr"


def test_a_corrupt_photo_with_the_real_model(client):
    data = REPO_EXAMPLE.read_bytes()[:2000] if REPO_EXAMPLE.is_file() else b"\xff\xd8\xff\xe0" + b"\0" * 100
    assert client.post("/v1/recognize", files={"image": ("x.jpg", data, "image/jpeg")}).status_code == 400


def test_real_photos_from_the_shared_set(client, shared_dir):
    photos = sorted((shared_dir / "datasets" / "hk-photos" / "valid" / "images").glob("*.jpg"))[:3]
    if not photos:
        pytest.skip("no hk-photos validation images")
    for path in photos:
        r = client.post("/v1/photo-score", files={"image": (path.name, path.read_bytes(), "image/jpeg")},
                        data={"rules": "cantonese"})
        assert r.status_code == 200, (path.name, r.text)
        rec = r.json()["recognition"]
        assert rec["image"] == path.name and isinstance(rec["tiles"], list)
        for tile in rec["tiles"]:
            x1, y1, x2, y2 = tile["box"]
            assert 0 <= x1 < x2 <= rec["width"] and 0 <= y1 < y2 <= rec["height"]
