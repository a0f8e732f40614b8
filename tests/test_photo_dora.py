"""A photo's row of dora indicators (a ``dora`` group) on the way to the score: ``mjlens photo --rules riichi`` and
``POST /v1/photo-score`` count them as the context's ``dora_indicators``; indicators given win (warning
``dora_overridden`` where they differ); other rule systems ignore them (warning ``dora_ignored``)."""

from __future__ import annotations

import json

import pytest
from api_fakes import DORA_INDICATORS, LaidOutRecognizer, dora_row_recognition, sample_photo
from fastapi.testclient import TestClient

import mjlens.api.cli.commands.photo as photo_command
from mjlens.api.cli.main import main
from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings


def _codes(details: list[dict]) -> list[str]:
    return [d["code"] for d in details]


def _dora(score: dict) -> int:
    return sum(item["count"] for item in score["items"] if item["key"] == "dora")


@pytest.fixture
def dora_photo(tmp_path, monkeypatch):
    monkeypatch.setattr(photo_command, "load_recognizer", lambda args: LaidOutRecognizer(dora_row_recognition))
    path = tmp_path / "table.jpg"
    path.write_bytes(sample_photo())
    return path


@pytest.fixture
def client():
    with TestClient(create_app(Settings(model="none.onnx"),
                               recognizer=LaidOutRecognizer(dora_row_recognition))) as c:
        yield c


def _photo_score(client, data: dict) -> dict:
    response = client.post("/v1/photo-score", files={"image": ("table.jpg", sample_photo(), "image/jpeg")}, data=data)
    assert response.status_code == 200
    return response.json()


def test_the_reading_keeps_the_indicators_apart_from_the_hand():
    recognition = dora_row_recognition("t.jpg", 960, 540)
    (group,) = [g for g in recognition["groups"] if g["role"] == "dora"]
    assert tuple(recognition["tiles"][i]["code"] for i in group["tiles"]) == DORA_INDICATORS
    assert "1p" not in recognition["hand"]["concealed"] and recognition["hand"]["winning_tile"] == "5s"


def test_cli_photo_riichi_counts_the_photo_s_indicators_as_the_api_does(dora_photo, client, capsys):
    assert main(["photo", str(dora_photo), "--rules", "riichi", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"]["valid"] is True and _dora(out["score"]) == 2  # 1p shows 2p, the pair
    assert out["recognition"]["hand"]["context"]["dora_indicators"] == list(DORA_INDICATORS)
    assert not {"dora_overridden", "dora_ignored"} & set(_codes(out["recognition"]["warning_details"]))
    assert _photo_score(client, {"rules": "riichi"}) == out


def test_indicators_given_win_and_a_difference_is_said(dora_photo, client, capsys):
    assert main(["photo", str(dora_photo), "--rules", "riichi", "--dora", "9m", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert _dora(out["score"]) == 0 and out["recognition"]["hand"]["context"]["dora_indicators"] == ["9m"]
    (said,) = [d for d in out["recognition"]["warning_details"] if d["code"] == "dora_overridden"]
    assert "9m" in said["message"] and "1p" in said["message"] and said["message"] in out["recognition"]["warnings"]
    assert out["recognition"]["groups"][said["group"]]["role"] == "dora"
    assert _photo_score(client, {"rules": "riichi", "dora_indicators": ["9m"]}) == out


def test_indicators_given_as_the_photo_shows_them_say_nothing(client):
    out = _photo_score(client, {"rules": "riichi", "dora_indicators": list(DORA_INDICATORS)})
    assert _dora(out["score"]) == 2 and "dora_overridden" not in _codes(out["recognition"]["warning_details"])


@pytest.mark.parametrize("rules", ["mcr", "cantonese"])
def test_other_rule_systems_ignore_the_dora_row_and_say_so(dora_photo, client, capsys, rules):
    main(["photo", str(dora_photo), "--rules", rules, "--json"])
    out = json.loads(capsys.readouterr().out)
    (said,) = [d for d in out["recognition"]["warning_details"] if d["code"] == "dora_ignored"]
    assert "1p" in said["message"] and out["recognition"]["groups"][said["group"]]["role"] == "dora"
    assert "dora" not in {item["key"] for item in out["score"].get("items", ())}
    assert _photo_score(client, {"rules": rules}) == out
