"""``/v1/profiles``: a profile made from a synthetic calibration photo (the vendored art, the shipped models), kept in
SQLite in a tmp folder, read and deleted with its token only, and named on ``/v1/recognize`` and ``/v1/photo-score``;
the store's limits and tokens on their own."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("httpx")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import create_engine, select  # noqa: E402

from mjlens.api.app import create_app  # noqa: E402
from mjlens.api.profile_store import ProfileStore, StoredProfile, StoreError, token_digest  # noqa: E402
from mjlens.api.settings import Settings  # noqa: E402
from mjlens.scoring.tiles import DETECTOR_CLASSES  # noqa: E402
from mjlens.vision.profile import Profile  # noqa: E402
from mjlens.vision.profile.layout import SHEET_ROWS  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VENDORED_ART = REPO / "datasets" / "tile-art"
ART_SET = "xhokir_regular_flowers"
HAND = REPO / "examples" / "hand.jpg"


def small_profile() -> Profile:
    features = np.eye(3, 8, dtype=np.float32)
    return Profile.of_examples(["1m", "2m", "5z"], features, "a" * 64, "labels")


@pytest.fixture(scope="module")
def sheet_path(tmp_path_factory) -> Path:
    from mjlens.vision.synth.sheet import write_sheets

    out = tmp_path_factory.mktemp("sheet")
    write_sheets(out, 1, 0, VENDORED_ART, ART_SET)
    return next((out / "images").glob("*.jpg"))


@pytest.fixture(scope="module")
def sheet(sheet_path) -> bytes:
    return sheet_path.read_bytes()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    database = tmp_path_factory.mktemp("db") / "profiles.db"
    with TestClient(create_app(Settings(profile_db=str(database))), raise_server_exceptions=False) as client:
        if client.get("/readyz").status_code != 200:
            pytest.skip("the shipped models are not present")
        yield client


def jpeg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image)[1].tobytes()


def made(client, sheet) -> dict:
    answer = client.post("/v1/profiles", files={"image": ("sheet.jpg", sheet, "image/jpeg")})
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_create_read_delete(client, sheet):
    created = made(client, sheet)
    assert created["codes"] == [c for row in SHEET_ROWS for c in row] and created["warnings"] == []
    token = {"X-Profile-Token": created["token"]}
    summary = client.get(f"/v1/profiles/{created['id']}", headers=token)
    assert summary.status_code == 200 and summary.json()["complete"] and summary.json()["id"] == created["id"]
    assert client.delete(f"/v1/profiles/{created['id']}", headers=token).status_code == 204
    gone = client.get(f"/v1/profiles/{created['id']}", headers=token)
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "profile_not_found"


def test_a_wrong_or_missing_token_is_as_an_unknown_id(client, sheet):
    created = made(client, sheet)
    path = f"/v1/profiles/{created['id']}"
    answers = [client.get(path, headers={"X-Profile-Token": "wrong"}), client.get(path),
               client.get("/v1/profiles/unknown", headers={"X-Profile-Token": created["token"]}),
               client.delete(path, headers={"X-Profile-Token": "wrong"}),
               client.post("/v1/recognize", files={"image": ("hand.jpg", HAND.read_bytes(), "image/jpeg")},
                           data={"profile": created["id"]}, headers={"X-Profile-Token": "wrong"})]
    assert [a.status_code for a in answers] == [404] * len(answers)
    assert len({a.json()["error"]["message"] for a in answers}) == 1  # nothing tells an id from a token
    assert client.get(path, headers={"X-Profile-Token": created["token"]}).status_code == 200  # not deleted


def test_photos_are_read_with_a_profile(client, sheet):
    created = made(client, sheet)
    token = {"X-Profile-Token": created["token"]}
    photo = {"image": ("hand.jpg", HAND.read_bytes(), "image/jpeg")}
    read = client.post("/v1/recognize", files=photo, data={"profile": created["id"]}, headers=token)
    assert read.status_code == 200 and read.json()["tiles"]
    scored = client.post("/v1/photo-score", files=photo, data={"rules": "mcr", "profile": created["id"]},
                         headers=token)
    assert scored.status_code == 200 and scored.json()["recognition"]["tiles"]
    assert "profile" not in (scored.json()["recognition"]["hand"] or {}).get("context", {})


@pytest.mark.parametrize(("photo", "status", "code"), [
    (jpeg(np.full((600, 800, 3), 120, np.uint8)), 400, "no_tiles"),
    (b"not a photo", 415, "not_an_image"),
])
def test_a_bad_calibration_photo_stores_nothing(client, photo, status, code):
    store = client.app.state.profiles
    with store._session() as session:
        before = len(session.scalars(select(StoredProfile)).all())
    answer = client.post("/v1/profiles", files={"image": ("sheet.jpg", photo, "image/jpeg")})
    assert answer.status_code == status and answer.json()["error"]["code"] == code
    with store._session() as session:
        assert len(session.scalars(select(StoredProfile)).all()) == before


def test_a_set_without_flowers_is_said(client, sheet_path):
    image = cv2.imread(str(sheet_path))
    labels = (sheet_path.parent.parent / "labels" / f"{sheet_path.stem}.txt").read_text().splitlines()
    flowers = [DETECTOR_CLASSES.index(code) for code in SHEET_ROWS[4]]
    top = min(float(y) - float(h) / 2 for c, _, y, _, h in (line.split() for line in labels) if int(c) in flowers)
    cut = image[: int(top * image.shape[0]) - 2]  # the flowers' row left out
    answer = client.post("/v1/profiles", files={"image": ("sheet.jpg", jpeg(cut), "image/jpeg")})
    assert answer.status_code == 201, answer.text
    assert not set(answer.json()["codes"]) & set(SHEET_ROWS[4]) and "flowers" in answer.json()["warnings"][0]


# -- the store and the gate without the models ---------------------------------------------------------------------

def test_the_store_keeps_tokens_hashed_and_limits_count_and_size(tmp_path):
    store = ProfileStore(str(tmp_path / "p.db"), max_profiles=1, max_bytes=1_000_000)
    created = store.create(small_profile())
    with store._session() as session:
        row = session.get(StoredProfile, created.id)
        assert row.token_sha256 == token_digest(created.token) and created.token not in row.token_sha256
    assert store.get(created.id, created.token).codes == ("1m", "2m", "5z")
    assert store.get(created.id, "wrong") is None and store.get(created.id, None) is None
    with pytest.raises(StoreError) as err:
        store.create(small_profile())
    assert err.value.code == "profile_limit"
    assert store.delete(created.id, created.token) and not store.delete(created.id, created.token)
    with pytest.raises(StoreError) as err:
        ProfileStore(str(tmp_path / "q.db"), max_profiles=5, max_bytes=100).create(small_profile())
    assert err.value.code == "profile_too_large"


def test_the_store_takes_a_url(tmp_path):
    url = f"sqlite:///{tmp_path / 'url.db'}"
    store = ProfileStore(url, max_profiles=5, max_bytes=1_000_000)
    created = store.create(small_profile())
    with create_engine(url).connect() as connection:
        assert connection.execute(select(StoredProfile.id)).scalars().all() == [created.id]
    assert len(DETECTOR_CLASSES) == len(store.get(created.id, created.token).reliance)


class FakeRecognizer:
    def recognize(self, data: bytes, name: str) -> dict:
        return {"image": name, "width": 1, "height": 1, "tiles": [], "groups": [], "hand": None, "warnings": []}


def test_profiles_are_behind_the_api_key_and_need_the_classifier(tmp_path):
    settings = Settings(model="none.onnx", api_key="key", profile_db=str(tmp_path / "p.db"))
    with TestClient(create_app(settings, recognizer=FakeRecognizer()), raise_server_exceptions=False) as client:
        photo = {"image": ("a.jpg", jpeg(np.full((64, 64, 3), 90, np.uint8)), "image/jpeg")}
        assert client.post("/v1/profiles", files=photo).json()["error"]["code"] == "unauthorized"
        assert client.get("/v1/profiles/x").status_code == 401
        answer = client.post("/v1/profiles", files=photo, headers={"X-API-Key": "key"})
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "model_unavailable"
    assert not (tmp_path / "p.db").exists()  # never opened: no profile was ever stored or asked for
