"""The service with the shipped detector (models/mjlens-tiles.onnx) on the example photo; skipped until the
model file is in the repository."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import DEFAULT_MODEL, Settings

REPO_EXAMPLE = DEFAULT_MODEL.parent.parent / "examples" / "hand.jpg"
pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="the shipped model is not present")


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(Settings(model=DEFAULT_MODEL, workers=2))) as c:
        yield c


def test_ready_with_the_real_model(client):
    assert client.get("/readyz").json() == {"status": "ready"}


def test_recognize_and_photo_score_the_example(client):
    if not REPO_EXAMPLE.is_file():
        pytest.skip("examples/hand.jpg is not present")
    photo = {"image": ("hand.jpg", REPO_EXAMPLE.read_bytes(), "image/jpeg")}
    rec = client.post("/v1/recognize", files=photo)
    assert rec.status_code == 200, rec.text
    body = rec.json()
    assert body["image"] == "hand.jpg" and (body["width"], body["height"]) == (640, 640)
    assert len(body["tiles"]) >= 10  # a row of 14 tiles; the detector's accuracy is measured elsewhere
    for tile in body["tiles"]:
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 640 and 0 < tile["confidence"] <= 1
    both = client.post("/v1/photo-score", files=photo, data={"rules": "mcr", "self_drawn": "true"})
    assert both.status_code == 200, both.text
    assert set(both.json()) == {"recognition", "score"} and both.json()["score"]["rules"] == "mcr"


def test_a_corrupt_photo_with_the_real_model(client):
    data = REPO_EXAMPLE.read_bytes()[:2000] if REPO_EXAMPLE.is_file() else b"\xff\xd8\xff\xe0" + b"\0" * 100
    assert client.post("/v1/recognize", files={"image": ("x.jpg", data, "image/jpeg")}).status_code == 400
