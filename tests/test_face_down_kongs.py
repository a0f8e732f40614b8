"""A concealed kong laid with four backs: the reading asks for its tile (warning code ``face_down_kong``) and never
guesses it; ``mjlens photo --kong-tile CODE`` and the API field ``kongs`` give the answer (CONVENTIONS §2)."""

from __future__ import annotations

import json

import pytest
from api_fakes import FaceDownKongRecognizer, face_down_kong_recognition, laid_out_recognition, sample_photo
from fastapi.testclient import TestClient

import mjlens.api.cli.commands.photo as photo_command
from mjlens.api.cli.main import main
from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings
from mjlens.vision.reading.red_fives import with_red_fives
from mjlens.vision.recognize import answer_kongs


def _asked(recognition: dict) -> list[dict]:
    return [d for d in recognition["warning_details"] if d["code"] == "face_down_kong"]


def test_the_reading_asks_and_the_warning_is_also_a_plain_string():
    recognition = face_down_kong_recognition("t.jpg", 960, 540)
    assert recognition["hand"] is None
    (asked,) = _asked(recognition)
    assert asked["message"] in recognition["warnings"]  # readers of the plain warnings see it as before
    group = recognition["groups"][asked["group"]]
    assert group["kind"] == "kong" and group["concealed"] and group["face_down"] and "tile" not in group
    assert all(recognition["tiles"][i]["code"] == "back" for i in group["tiles"])


def test_an_answer_lays_the_tiles_out_again_with_the_kong_told():
    recognition = face_down_kong_recognition("t.jpg", 960, 540)
    told = answer_kongs(recognition, ["5z"])
    assert told == face_down_kong_recognition("t.jpg", 960, 540, kongs=("5z",))
    assert _asked(told) == [] and not any("four backs" in w for w in told["warnings"])
    (meld,) = told["hand"]["melds"]
    assert meld == {"kind": "kong", "tiles": ["5z"] * 4, "concealed": True}
    assert "back" not in json.dumps(told["hand"])
    assert answer_kongs(recognition, []) is recognition



def test_an_answer_keeps_a_red_five_in_its_meld():
    # the layout reads plain fives (a chow of 4p 0p 6p is no chow to it): the answer lays out plain codes and marks
    # the red five again by its box, as the first reading does
    parts = [(["1m", "2m", "3m", "7s", "8s", "9s", "1z"], 1.2), (["1z"], 1.2), (["4p", "5p", "6p"], 1.2),
             (["back"] * 4, 1.2)]
    plain = laid_out_recognition("t.jpg", 960, 540, parts)
    five = next(i for i, t in enumerate(plain["tiles"]) if t["code"] == "5p")
    told = answer_kongs(with_red_fives(plain, {five}), ["5z"])
    assert told == with_red_fives(laid_out_recognition("t.jpg", 960, 540, parts, ("5z",)), {five})
    assert told["tiles"][five]["code"] == "0p"
    assert told["hand"]["melds"][0] == {"kind": "chow", "tiles": ["4p", "0p", "6p"], "concealed": False}
    assert told["hand"]["concealed"] == ["1m", "2m", "3m", "7s", "8s", "9s", "1z"]

@pytest.fixture
def kong_photo(tmp_path, monkeypatch):
    monkeypatch.setattr(photo_command, "load_recognizer", lambda args: FaceDownKongRecognizer())
    path = tmp_path / "table.jpg"
    path.write_bytes(sample_photo())
    return path


def test_cli_photo_asks_for_the_kong_and_exits_2(kong_photo, capsys):
    assert main(["photo", str(kong_photo), "--rules", "cantonese", "--json"]) == 2
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["score"]["valid"] is False and out["score"]["error"]["code"] == "face_down_kong"
    assert _asked(out["recognition"]) and "face_down_kong" in captured.err and "--kong-tile" in captured.err


def test_cli_photo_kong_scores_the_hand_as_the_api_does(kong_photo, capsys):
    assert main(["photo", str(kong_photo), "--rules", "cantonese", "--kong-tile", "5z", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"]["valid"] is True
    assert out["recognition"]["hand"]["melds"] == [{"kind": "kong", "tiles": ["5z"] * 4, "concealed": True}]
    with TestClient(create_app(Settings(model="none.onnx"), recognizer=FaceDownKongRecognizer())) as client:
        api = client.post("/v1/photo-score", files={"image": ("table.jpg", kong_photo.read_bytes(), "image/jpeg")},
                          data={"rules": "cantonese", "kongs": ["5z"]}).json()
    assert out == api


@pytest.mark.parametrize("bad", ["back", "1f", "5x"])
def test_cli_photo_refuses_a_kong_that_is_no_playing_tile(kong_photo, capsys, bad):
    assert main(["photo", str(kong_photo), "--rules", "mcr", "--kong-tile", bad]) == 2
    assert "bad_kong" in capsys.readouterr().err


def test_cli_photo_too_many_kongs_says_so(kong_photo, capsys):
    assert main(["photo", str(kong_photo), "--rules", "cantonese", "--kong-tile", "5z", "--kong-tile", "6z",
                 "--json"]) == 0
    details = json.loads(capsys.readouterr().out)["recognition"]["warning_details"]
    assert [d["code"] for d in details] == ["kong_answer_unused"] and "6z" in details[0]["message"]


@pytest.fixture
def client():
    with TestClient(create_app(Settings(model="none.onnx"), recognizer=FaceDownKongRecognizer())) as c:
        yield c


def _post(client, path: str, data: dict):
    return client.post(path, files={"image": ("table.jpg", sample_photo(), "image/jpeg")}, data=data)


def test_api_recognize_asks_and_takes_the_kongs_field(client):
    asked = _post(client, "/v1/recognize", {}).json()
    assert asked["hand"] is None and _asked(asked)
    told = _post(client, "/v1/recognize", {"kongs": "7z"}).json()
    assert told["hand"]["melds"][0]["tiles"] == ["7z"] * 4 and not _asked(told)


def test_api_photo_score_says_face_down_kong_without_the_answer(client):
    out = _post(client, "/v1/photo-score", {"rules": "mcr"}).json()
    assert out["score"]["error"]["code"] == "face_down_kong"
    assert _asked(out["recognition"])[0]["message"] == out["score"]["error"]["message"]


@pytest.mark.parametrize("path, data", [("/v1/recognize", {"kongs": "back"}),
                                        ("/v1/photo-score", {"rules": "mcr", "kongs": ["1m", "8f"]})])
def test_api_refuses_a_kong_that_is_no_playing_tile(client, path, data):
    response = _post(client, path, data)
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_kong"
