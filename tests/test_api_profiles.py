"""``/v1/profiles``: a profile made from a synthetic calibration photo (the vendored art, the shipped models), read as a
layout or from the tiles its preview gives, kept in SQLite in a tmp folder, read, extended and deleted with its token
only, and named on ``/v1/recognize`` and ``/v1/photo-score``; the per-client limits. The store on its own:
test_profile_store.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("httpx")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import select  # noqa: E402

from mjlens.api.profiles.routes import fingerprint  # noqa: E402
from mjlens.api.profiles.store import StoredProfile  # noqa: E402
from mjlens.api.service.app import UPLOAD_PATHS, create_app  # noqa: E402
from mjlens.api.service.settings import Settings  # noqa: E402
from mjlens.scoring.tiles import DETECTOR_CLASSES  # noqa: E402
from mjlens.vision.profile.calibration import EXAMPLE_TILE_HEIGHTS, EXAMPLE_TURNS, EXAMPLE_VIEWS  # noqa: E402
from mjlens.vision.profile.layout import SHEET_ROWS  # noqa: E402
from mjlens.vision.profile.store import MAX_EXAMPLES_PER_CODE  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
HAND = REPO / "examples" / "hand.jpg"

#: Examples a layout tile gives (the sheets here show tiles taller than every reduced height).
PER_TILE = len(EXAMPLE_TILE_HEIGHTS) * len(EXAMPLE_TURNS) + EXAMPLE_VIEWS


@pytest.fixture(scope="module")
def sheet_path(vendored_layout_photo) -> Path:
    return vendored_layout_photo


@pytest.fixture(scope="module")
def sheet(sheet_path) -> bytes:
    return sheet_path.read_bytes()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    database = tmp_path_factory.mktemp("db") / "profiles.db"
    settings = Settings(profile_db=str(database), max_profiles_per_client=100, profiles_per_client_per_hour=100)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        if client.get("/readyz").status_code != 200:
            pytest.skip("the shipped models are not present")
        yield client


def jpeg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image)[1].tobytes()


def made(client, sheet, tiles: list | None = None) -> dict:
    form = {"tiles": json.dumps(tiles)} if tiles is not None else None
    answer = client.post("/v1/profiles", files={"image": ("sheet.jpg", sheet, "image/jpeg")}, data=form)
    assert answer.status_code == 201, answer.text
    return answer.json()


def stored_count(client) -> int:
    with client.app.state.profiles._session() as session:
        return len(session.scalars(select(StoredProfile)).all())


@pytest.fixture(scope="module")
def preview(client, sheet) -> dict:
    answer = client.post("/v1/profiles/preview", files={"image": ("sheet.jpg", sheet, "image/jpeg")})
    assert answer.status_code == 200, answer.text
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
    before = stored_count(client)
    for path in ("/v1/profiles", "/v1/profiles/preview"):
        answer = client.post(path, files={"image": ("sheet.jpg", photo, "image/jpeg")})
        assert answer.status_code == status and answer.json()["error"]["code"] == code
    assert stored_count(client) == before


def test_a_set_without_flowers_is_said(client, sheet_path):
    image = cv2.imread(str(sheet_path))
    labels = (sheet_path.parent.parent / "labels" / f"{sheet_path.stem}.txt").read_text().splitlines()
    flowers = [DETECTOR_CLASSES.index(code) for code in SHEET_ROWS[4]]
    top = min(float(y) - float(h) / 2 for c, _, y, _, h in (line.split() for line in labels) if int(c) in flowers)
    cut = image[: int(top * image.shape[0]) - 2]  # the flowers' row left out
    answer = client.post("/v1/profiles", files={"image": ("sheet.jpg", jpeg(cut), "image/jpeg")})
    assert answer.status_code == 201, answer.text
    assert not set(answer.json()["codes"]) & set(SHEET_ROWS[4]) and "flowers" in answer.json()["warnings"][0]


def test_a_set_without_flowers_is_said_in_the_language_asked(client, sheet, preview):
    tiles = [t for t in preview["tiles"] if not t["code"].endswith("f")] + [{**preview["tiles"][0], "code": "back"}]
    answer = client.post("/v1/profiles?lang=zh", files={"image": ("sheet.jpg", sheet, "image/jpeg")},
                         data={"tiles": json.dumps(tiles)})
    assert answer.status_code == 201, answer.text
    warnings = answer.json()["warnings"]
    assert warnings[0].startswith("略去 1 張") and "花牌與季節牌 1f-8f" in warnings[1]
    assert not any(word in " ".join(warnings) for word in ("flowers", "face-down", "row"))


def test_a_profile_that_changes_no_reading_is_said_on_create_and_on_examples(client, sheet, preview, monkeypatch):
    """As ``mjlens profile create`` says it (docs/experiments/profile-real-sets.md): the player learns that the
    photo taught the reader nothing, and which photos would."""
    from mjlens.vision.profile import Profile
    from mjlens.vision.profile.store import NO_CHANGE

    monkeypatch.setattr(Profile, "changes_no_reading", lambda self: True)
    created = made(client, sheet)
    assert created["warnings"] == [NO_CHANGE]
    tiles = json.dumps([{"code": t["code"], "box": t["box"]} for t in preview["tiles"][:3]])
    added = client.post(f"/v1/profiles/{created['id']}/examples?lang=zh", data={"tiles": tiles},
                        files={"image": ("sheet.jpg", sheet, "image/jpeg")},
                        headers={"X-Profile-Token": created["token"]})
    assert added.status_code == 200, added.text
    assert added.json()["warnings"][-1].startswith("這個設定檔不會改變任何讀法")
    monkeypatch.setattr(Profile, "changes_no_reading", lambda self: False)
    assert made(client, sheet)["warnings"] == []


def test_the_preview_is_the_layout_and_its_tiles_make_the_same_profile(client, sheet, sheet_path, preview):
    before = stored_count(client)
    layout = [c for row in SHEET_ROWS for c in row]
    assert preview["codes"] == layout and preview["warnings"] == [] and stored_count(client) == before
    height, width = cv2.imread(str(sheet_path)).shape[:2]
    assert (preview["width"], preview["height"]) == (width, height)
    assert [t["code"] for t in preview["tiles"]] == layout
    assert [t["row"] for t in preview["tiles"]] == [i for i, row in enumerate(SHEET_ROWS) for _ in row]
    assert all(0 <= t["confidence"] <= 1 for t in preview["tiles"])
    truth = {}  # each tile's box as the synthetic layout's labels place it
    for line in (sheet_path.parent.parent / "labels" / f"{sheet_path.stem}.txt").read_text().splitlines():
        k, x, y, w, h = (float(v) for v in line.split())
        truth[DETECTOR_CLASSES[int(k)]] = ((x - w / 2) * width, (y - h / 2) * height)
    assert all(abs(t["box"][0] - truth[t["code"]][0]) < 20 and abs(t["box"][1] - truth[t["code"]][1]) < 20
               for t in preview["tiles"])  # in pixels of the photo
    created = made(client, sheet, preview["tiles"])  # the preview's tiles sent back as they are
    assert created["codes"] == layout and created["warnings"] == []
    summary = client.get(f"/v1/profiles/{created['id']}", headers={"X-Profile-Token": created["token"]}).json()
    assert summary["complete"] and summary["examples"] == PER_TILE * len(layout) and summary["sources"] == ["sheet"]


def test_a_layout_photographed_from_a_side_is_previewed_in_its_own_pixels_and_its_tiles_make_a_profile(
        client, sheet_path, preview):
    """Taken from a side of the table with no EXIF orientation, the layout's tiles lie on their side."""
    upright = cv2.imread(str(sheet_path))
    sideways = jpeg(cv2.rotate(upright, cv2.ROTATE_90_CLOCKWISE))
    answer = client.post("/v1/profiles/preview", files={"image": ("sheet.jpg", sideways, "image/jpeg")})
    assert answer.status_code == 200, answer.text
    turned = answer.json()
    height = upright.shape[0]
    assert (turned["width"], turned["height"]) == (preview["height"], preview["width"])
    assert [t["code"] for t in turned["tiles"]] == [t["code"] for t in preview["tiles"]]
    for tile, as_laid in zip(turned["tiles"], preview["tiles"], strict=True):  # its centre turned back, upright
        x1, y1, x2, y2 = tile["box"]
        a1, b1, a2, b2 = as_laid["box"]
        assert abs((y1 + y2) / 2 - (a1 + a2) / 2) + abs(height - (x1 + x2) / 2 - (b1 + b2) / 2) < (b2 - b1) / 4
    created = made(client, sideways, turned["tiles"])
    assert created["codes"] == preview["codes"] and created["warnings"] == []


def test_tiles_short_of_a_set_make_a_profile_that_does_not_name_the_set(client, sheet, preview):
    tiles = [t for t in preview["tiles"] if t["code"] not in ("5p", "7z")] + [{**preview["tiles"][0], "code": "back"}]
    created = made(client, sheet, tiles)
    assert "5p" not in created["codes"] and "7z" not in created["codes"]
    assert "face-down" in created["warnings"][0] and "5p, 7z" in created["warnings"][1]
    assert not client.get(f"/v1/profiles/{created['id']}",
                          headers={"X-Profile-Token": created["token"]}).json()["complete"]
    no_flowers = made(client, sheet, [t for t in preview["tiles"] if not t["code"].endswith("f")])
    assert "flowers" in no_flowers["warnings"][0]
    token = {"X-Profile-Token": no_flowers["token"]}
    assert client.get(f"/v1/profiles/{no_flowers['id']}", headers=token).json()["complete"]


@pytest.mark.parametrize(("tiles", "says"), [
    ("not json", "not valid JSON"),
    ('{"code": "1m"}', "list"),
    ('[{"code": "1m", "box": [1, 2, 3]}]', "0.box"),
    ('[{"code": "1m", "box": [1, 2, 3, "x"]}]', "0.box"),
    ('[{"code": "1m", "box": [1, 2, 3, NaN]}]', "0.box"),
    ('[{"code": "0m", "box": [1, 2, 30, 40]}]', "unknown tile code '0m'"),
    ('[{"code": "1m", "box": [1, 2, 30, 40]}, {"code": "2m", "box": [1, 2, 30, 40000]}]', "tile 1 (2m)"),
    ('[{"code": "1m", "box": [30, 2, 1, 40]}]', "x1 < x2"),
    (json.dumps([{"code": "1m", "box": [1, 2, 30, 40]}] * 201), "limit is 200"),
    ("[" * 100 + "]" * 100, "nested"),
])
def test_bad_tiles_are_400_bad_tiles_and_store_nothing(client, sheet, tiles, says):
    before = stored_count(client)
    answer = client.post("/v1/profiles", files={"image": ("sheet.jpg", sheet, "image/jpeg")}, data={"tiles": tiles})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_tiles", answer.text
    assert says in answer.json()["error"]["message"]
    assert stored_count(client) == before


def test_corrections_are_added_to_a_profile_and_read_with_at_once(client, sheet, preview):
    created = made(client, sheet)
    token = {"X-Profile-Token": created["token"]}
    path = f"/v1/profiles/{created['id']}/examples"
    photo = {"image": ("hand.jpg", sheet, "image/jpeg")}
    read = client.post("/v1/recognize", files={"image": ("hand.jpg", HAND.read_bytes(), "image/jpeg")},
                       data={"profile": created["id"]}, headers=token)
    assert read.status_code == 200 and created["id"] in client.app.state.profile_readers._kept
    one_m = next(t for t in preview["tiles"] if t["code"] == "1m")
    tiles = [one_m] * 9 + [{**one_m, "code": "back"}, next(t for t in preview["tiles"] if t["code"] == "2z")]
    answer = client.post(path, files=photo, data={"tiles": json.dumps(tiles)}, headers=token)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["id"] == created["id"] and body["added"] == 10 and body["codes"] == created["codes"]
    kept_1m = min(PER_TILE + 9, MAX_EXAMPLES_PER_CODE)
    assert body["examples"]["1m"] == kept_1m and body["examples"]["2z"] == PER_TILE + 1
    assert body["examples"]["9m"] == PER_TILE
    dropped = PER_TILE + 9 - kept_1m  # the oldest dropped
    assert "face-down" in body["warnings"][0] and f"1m {dropped}" in body["warnings"][1]
    assert created["id"] not in client.app.state.profile_readers._kept  # the next photo reads with them
    again = client.post("/v1/recognize", files={"image": ("hand.jpg", HAND.read_bytes(), "image/jpeg")},
                        data={"profile": created["id"]}, headers=token)
    assert again.status_code == 200
    now = client.app.state.profiles.get(created["id"], created["token"])
    assert client.app.state.profile_readers._kept[created["id"]][0] == fingerprint(now)
    summary = client.get(f"/v1/profiles/{created['id']}", headers=token).json()
    assert summary["examples"] == 42 * PER_TILE + (kept_1m - PER_TILE) + 1
    assert summary["sources"] == ["sheet", "corrections"]
    for headers in ({"X-Profile-Token": "wrong"}, {}):
        gone = client.post(path, files=photo, data={"tiles": json.dumps(tiles)}, headers=headers)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "profile_not_found"
    bad = client.post(path, files=photo, data={"tiles": '[{"code": "1m"}]'}, headers=token)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_tiles"
    missing = client.post(path, files=photo, headers=token)
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "missing_field"
    only_backs = client.post(path, files=photo, data={"tiles": json.dumps([{**one_m, "code": "back"}])},
                             headers=token)
    assert only_backs.status_code == 400 and only_backs.json()["error"]["code"] == "no_examples"


def test_a_client_over_its_limits_is_429(tmp_path, sheet):
    settings = Settings(profile_db=str(tmp_path / "p.db"), max_profiles_per_client=1, profiles_per_client_per_hour=2)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        if client.get("/readyz").status_code != 200:
            pytest.skip("the shipped models are not present")
        created = made(client, sheet)
        kept = client.post("/v1/profiles", files={"image": ("sheet.jpg", sheet, "image/jpeg")})
        assert kept.status_code == 429 and kept.json()["error"]["code"] == "client_profile_limit"
        assert "Retry-After" not in kept.headers  # only deleting one makes room
        client.delete(f"/v1/profiles/{created['id']}", headers={"X-Profile-Token": created["token"]})
        made(client, sheet)
        rate = client.post("/v1/profiles", files={"image": ("sheet.jpg", sheet, "image/jpeg")})
        assert rate.status_code == 429 and rate.json()["error"]["code"] == "client_profile_limit"
        client.app.state.profiles.limits = dataclasses.replace(client.app.state.profiles.limits, max_per_client=5)
        rate = client.post("/v1/profiles", files={"image": ("sheet.jpg", sheet, "image/jpeg")})
        assert rate.status_code == 429 and rate.json()["error"]["code"] == "client_rate_limit"
        assert 3500 < int(rate.headers["Retry-After"]) <= 3600


def test_the_profile_uploads_get_the_upload_limit():
    assert all(path in UPLOAD_PATHS for path in ("/v1/profiles", "/v1/profiles/preview", "/v1/profiles/q9X/examples"))
    assert "/v1/profiles/q9X" not in UPLOAD_PATHS and "/v1/profiles/a/b/examples" not in UPLOAD_PATHS


# -- without the models ----------------------------------------------------------------------------------------------

class FakeRecognizer:
    def recognize(self, data: bytes, name: str) -> dict:
        return {"image": name, "width": 1, "height": 1, "tiles": [], "groups": [], "hand": None, "warnings": []}


def test_profiles_are_behind_the_api_key_and_need_the_classifier(tmp_path):
    settings = Settings(model="none.onnx", api_key="key", profile_db=str(tmp_path / "p.db"))
    with TestClient(create_app(settings, recognizer=FakeRecognizer()), raise_server_exceptions=False) as client:
        photo = {"image": ("a.jpg", jpeg(np.full((64, 64, 3), 90, np.uint8)), "image/jpeg")}
        assert client.post("/v1/profiles", files=photo).json()["error"]["code"] == "unauthorized"
        assert client.get("/v1/profiles/x").status_code == 401
        for path in ("/v1/profiles/preview", "/v1/profiles/x/examples"):
            assert client.post(path, files=photo, data={"tiles": "[]"}).json()["error"]["code"] == "unauthorized"
            answer = client.post(path, files=photo, data={"tiles": "[]"}, headers={"X-API-Key": "key"})
            assert answer.status_code == 503 and answer.json()["error"]["code"] == "model_unavailable"
        answer = client.post("/v1/profiles", files=photo, headers={"X-API-Key": "key"})
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "model_unavailable"
    assert not (tmp_path / "p.db").exists()  # never opened: no profile was ever stored or asked for
