"""``POST /v1/waits``, ``POST /v1/advise``, and the waits or advice ``/v1/photo-score`` adds when the photo's hand
does not win."""

from __future__ import annotations

from typing import Any

import pytest
from api_fakes import FakeRecognizer, recognition_for, sample_photo
from fastapi.testclient import TestClient

from mjlens.api.service.app import create_app
from mjlens.api.service.pipeline import photo_score
from mjlens.api.service.settings import Settings

READY = {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z"],
         "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"], "concealed": False}], "winning_tile": None}
ONE_TOO_MANY = {**READY, "winning_tile": "9m"}  # 14 tiles, not a win: 9m is the tile to throw


class HandRecognizer(FakeRecognizer):
    """Reads every photo as ``hand``."""

    def __init__(self, hand: dict[str, Any]) -> None:
        super().__init__()
        self.hand = hand

    def recognize(self, data: bytes, name: str) -> dict[str, Any]:
        out = super().recognize(data, name)
        return {**out, "hand": self.hand}


def _client(recognizer=None, **settings) -> TestClient:
    return TestClient(create_app(Settings(model="no-such-model.onnx", **settings), recognizer=recognizer),
                      raise_server_exceptions=False)


@pytest.fixture
def client():
    with _client(FakeRecognizer()) as c:
        yield c


def test_waits_endpoint(client):
    r = client.post("/v1/waits", json={"rules": "mcr", "hand": READY, "seen": ["9s"], "discards": {"S": ["6s"]}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["valid"] and body["shanten"] == 0
    assert {w["tile"]: w["left"] for w in body["waits"]} == {"6s": 3, "9s": 3}
    assert body["waits"][0]["discard"]["unit"] == "fan"


def test_advise_endpoint(client):
    r = client.post("/v1/advise", json={"rules": "mcr", "hand": ONE_TOO_MANY, "discards": {"S": ["9m"]}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["shanten"] == 0 and body["wins"] is False
    first = body["discards"][0]
    assert first["tile"] == "9m" and first["reason"] and first["safety"][0]["rule"] == "follow_discarded"


@pytest.mark.parametrize("body,status,code", [
    ({"rules": "zung_jung", "hand": READY}, 400, "unknown_rules"),
    ({"rules": "mcr", "hand": {"concealed": ["1m"] * 5}}, 400, "too_many_copies"),
    ({"rules": "mcr", "hand": READY, "seen": ["5z", "5z"]}, 400, "too_many_copies"),
    ({"rules": "mcr", "hand": READY, "discards": {"X": []}}, 400, "bad_hand_json"),
    ({"rules": "mcr", "hand": READY, "options": {"nonsense": 1}}, 400, "bad_option"),
    ({"rules": "mcr", "hand": READY, "extra": 1}, 400, "bad_field"),
    ({"rules": "mcr"}, 400, "missing_field"),
])
def test_bad_requests_are_400_with_a_code(client, body, status, code):
    for path in ("/v1/waits", "/v1/advise"):
        r = client.post(path, json=body)
        assert r.status_code == status and r.json()["error"]["code"] == code, r.text


def test_a_hand_of_the_wrong_size_is_valid_false(client):
    r = client.post("/v1/waits", json={"rules": "mcr", "hand": ONE_TOO_MANY})
    assert r.status_code == 200
    assert r.json()["error"]["code"] == "tile_count" and "13" in r.json()["error"]["message"]


def test_the_api_key_guards_them():
    with _client(FakeRecognizer(), api_key="k3y") as c:
        assert c.post("/v1/waits", json={"rules": "mcr", "hand": READY}).status_code == 401
        ok = c.post("/v1/waits", json={"rules": "mcr", "hand": READY}, headers={"X-API-Key": "k3y"})
        assert ok.status_code == 200


@pytest.mark.parametrize("hand,key", [(READY, "waits"), (ONE_TOO_MANY, "advice")])
def test_photo_score_adds_waits_or_advice(hand, key):
    with _client(HandRecognizer(hand)) as c:
        r = c.post("/v1/photo-score", files={"image": ("p.jpg", sample_photo(), "image/jpeg")},
                   data={"rules": "mcr"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["score"]["valid"] is False and body[key]["valid"] and body[key]["shanten"] == 0
    assert not ({"waits", "advice"} - {key}) & set(body)


def test_a_winning_photo_has_neither():
    out = photo_score(recognition_for("x.jpg", 100, 100), "mcr", {})
    assert out["score"]["valid"] and "waits" not in out and "advice" not in out


def test_photo_score_object_the_cli_and_api_share():
    recognition = {**recognition_for("x.jpg", 100, 100), "hand": READY}
    out = photo_score(recognition, "taiwan", {})
    assert "waits" not in out and "advice" not in out  # 13 tiles: not one short of Taiwan's 17
    out = photo_score(recognition, "cantonese", {})
    assert {w["tile"] for w in out["waits"]["waits"]} == {"6s", "9s"}


@pytest.mark.parametrize("hand,key,shown", [(READY, "waits", "6s"), (ONE_TOO_MANY, "advice", "9m")])
def test_mjlens_photo_prints_waits_or_advice(monkeypatch, tmp_path, capsys, hand, key, shown):
    import json

    import mjlens.api.cli.commands.photo as photo_command
    from mjlens.api.cli.main import main

    monkeypatch.setattr(photo_command, "load_recognizer", lambda args: HandRecognizer(hand))
    path = tmp_path / "table.jpg"
    path.write_bytes(sample_photo())
    assert main(["photo", str(path), "--rules", "mcr", "--json"]) == 2  # the hand does not win: exit 2, as before
    out = json.loads(capsys.readouterr().out)
    assert out[key]["valid"] and out[key]["shanten"] == 0
    assert main(["photo", str(path), "--rules", "mcr"]) == 2
    captured = capsys.readouterr()
    assert "ready" in captured.out and shown in captured.out
