"""The API's language (docs/i18n.md): ``lang`` or ``Accept-Language`` says the ``message``, ``warnings`` and
``reason`` texts in Chinese, codes, keys and numbers unchanged; English without either."""

from __future__ import annotations

import pytest
from api_fakes import FakeRecognizer, sample_photo
from fastapi.testclient import TestClient
from test_lang_zh import english_sentences

from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings

HAND = {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z", "5z", "5z", "5z"],
        "winning_tile": "9s"}


@pytest.fixture
def client():
    with TestClient(create_app(Settings(model="no-such-model.onnx"), recognizer=FakeRecognizer()),
                    raise_server_exceptions=False) as c:
        yield c


def test_warnings_follow_the_query_and_keep_the_numbers(client):
    english = client.post("/v1/score", json={"rules": "mcr", "hand": HAND})
    chinese = client.post("/v1/score?lang=zh", json={"rules": "mcr", "hand": HAND})
    assert english.status_code == chinese.status_code == 200
    assert english.headers["content-language"] == "en" and chinese.headers["content-language"] == "zh"
    en, zh = english.json(), chinese.json()
    assert en["warnings"][0].startswith("discarder not given") and zh["warnings"][0].startswith("未給放銃者")
    assert {k: v for k, v in zh.items() if k != "warnings"} == {k: v for k, v in en.items() if k != "warnings"}


@pytest.mark.parametrize("ask", [{"params": {"lang": "zh"}}, {"headers": {"Accept-Language": "zh-TW,zh;q=0.9"}},
                                 {"headers": {"Accept-Language": "fr-FR, zh-Hant;q=0.5"}}])
def test_an_error_keeps_its_code_and_says_its_message_in_chinese(client, ask):
    answer = client.post("/v1/score", json={"rules": "mcr", "hand": {**HAND, "concealed": ["1x"]}}, **ask)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "unknown_tile" and "不是牌代碼" in error["message"] and not english_sentences(
        error["message"])


def test_english_is_the_default_and_wins_over_a_header_the_query_contradicts(client):
    body = {"rules": "mcr", "hand": {**HAND, "concealed": ["1x"]}}
    assert "is not a tile code" in client.post("/v1/score", json=body).json()["error"]["message"]
    said = client.post("/v1/score?lang=en", json=body, headers={"Accept-Language": "zh"}).json()
    assert "is not a tile code" in said["error"]["message"]


def test_the_service_own_refusals_are_said_too(client):
    missing = client.post("/v1/score?lang=zh", json={"hand": HAND}).json()["error"]
    assert missing["code"] == "missing_field" and missing["message"] == "必須給出 'rules'"
    assert client.get("/v1/nosuch?lang=zh").json()["error"]["code"] == "not_found"


def test_a_language_not_offered_is_a_bad_field(client):
    answer = client.post("/v1/score?lang=fr", json={"rules": "mcr", "hand": HAND})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_field"


def test_advice_reasons_and_photo_warnings_in_chinese(client):
    hand = {**HAND, "concealed": HAND["concealed"][:-1] + ["9m"], "winning_tile": "6s"}
    advice = client.post("/v1/advise?lang=zh", json={"rules": "mcr", "hand": hand}).json()
    assert advice["discards"] and all(not english_sentences(d["reason"]) for d in advice["discards"])
    photo = client.post("/v1/photo-score", params={"lang": "zh"}, data={"rules": "mcr"},
                        files={"image": ("t.jpg", sample_photo(), "image/jpeg")})
    assert photo.status_code == 200
    out = photo.json()
    texts = out["recognition"]["warnings"] + out["score"].get("warnings", []) + [out["score"].get("error", {}).get(
        "message", "")]
    assert all(not english_sentences(text) for text in texts), texts


TWICE = ["1m", "2m", "3m", "1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"]
HONOURS = ["1z", "1z", "1z", "2z", "2z", "2z", "3z", "3z", "3z", "4z", "4z", "4z", "5z"]


@pytest.mark.parametrize(("rules", "concealed"), [("mcr", TWICE), ("taiwan", TWICE + ["7p", "8p", "9p"]),
                                                  ("cantonese", HONOURS)])
def test_why_an_item_is_not_counted_is_said_in_chinese(client, rules, concealed):
    hand = {"concealed": concealed, "winning_tile": "5z", "context": {"self_drawn": True}}
    score = client.post("/v1/score?lang=zh", json={"rules": rules, "hand": hand}).json()
    assert score["valid"] and score["excluded"], score
    assert all(not english_sentences(x["reason"]) for x in score["excluded"]), score["excluded"]
