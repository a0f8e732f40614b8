"""The HTTP API: every endpoint, every error path, the request id, the API key, CORS and the bounded queue.

A fake detector (tests/api_fakes.py) stands in for the model; it decodes photos with the real image layer,
so bad photos fail exactly as they would in production.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading

import httpx
import pytest
from api_fakes import BlockingRecognizer, FakeRecognizer, recognition_for, sample_photo
from fastapi.testclient import TestClient
from PIL import Image

from mjlens.api.service.app import create_app
from mjlens.api.service.errors import API_ERROR_CODES
from mjlens.api.service.logs import JsonFormatter
from mjlens.api.service.settings import Settings
from mjlens.scoring.engine import RULE_SYSTEMS, score
from mjlens.scoring.errors import ERROR_CODES
from mjlens.vision.runtime.decode import IMAGE_ERROR_CODES

WINNING_HAND = recognition_for("x.jpg", 100, 100)["hand"]
ALL_CODES = {**API_ERROR_CODES, **ERROR_CODES, **IMAGE_ERROR_CODES}


#: A winning hand per rule system (Taiwan plays 16 tiles + the winning one).
WINNING = {
    "mcr": WINNING_HAND,
    "cantonese": WINNING_HAND,
    "taiwan": {**WINNING_HAND, "concealed": ["1m", "2m", "3m", "2m", "3m", "4m", *WINNING_HAND["concealed"][3:]]},
    "riichi": WINNING_HAND,  # the pung of white dragons is a yaku
}


def implemented_rules() -> list:
    """Rule systems that score (the placeholders of systems still being built answer unknown_rules)."""
    out = []
    for rules in RULE_SYSTEMS:
        error = score(WINNING.get(rules, WINNING_HAND), rules).error
        out.append(rules if not error or error.code != "unknown_rules" else pytest.param(
            rules, marks=pytest.mark.skip(reason=f"{rules} is not built yet")))
    return out


def make_client(recognizer=None, **settings) -> TestClient:
    settings.setdefault("model", "no-such-model.onnx")
    return TestClient(create_app(Settings(**settings), recognizer=recognizer), raise_server_exceptions=False)


@pytest.fixture
def fake() -> FakeRecognizer:
    return FakeRecognizer()


@pytest.fixture
def client(fake) -> TestClient:
    with make_client(fake) as c:
        yield c


def assert_error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code and body["error"]["message"]
    assert code in ALL_CODES
    assert response.headers["X-Request-ID"]


def upload(data: bytes, name: str = "photo.jpg", mime: str = "image/jpeg") -> dict:
    return {"image": (name, data, mime)}


# -- health, rules, page ---------------------------------------------------------------------------------------
def test_healthz_and_readyz(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready"}


def test_readyz_without_model_is_503_but_scoring_works():
    with make_client(None) as c:
        assert_error(c.get("/readyz"), 503, "model_unavailable")
        assert_error(c.post("/v1/recognize", files=upload(sample_photo())), 503, "model_unavailable")
        assert c.get("/healthz").status_code == 200
        assert c.get("/v1/rules").status_code == 200


def test_rules_lists_every_system(client):
    systems = client.get("/v1/rules").json()
    assert [s["rules"] for s in systems] == list(RULE_SYSTEMS)
    for system in systems:
        assert system["name_zh"] and system["name_en"] and system["unit"] and isinstance(system["items"], list)


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<script" in page.text and "app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    assert "https://" not in page.text  # nothing from a CDN: the page works on a LAN without internet


def test_openapi_schema_and_docs(client):
    schema = client.get("/openapi.json").json()
    assert {"/v1/recognize", "/v1/score", "/v1/photo-score", "/v1/rules", "/healthz", "/readyz"} <= set(schema["paths"])
    assert client.get("/docs").status_code == 200


def test_not_found_and_wrong_method(client):
    assert_error(client.get("/v1/nothing"), 404, "not_found")
    assert_error(client.get("/v1/score"), 405, "method_not_allowed")


# -- /v1/score -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", implemented_rules())
def test_score_a_winning_hand(client, rules):
    hand = WINNING[rules]
    r = client.post("/v1/score", json={"rules": rules, "hand": hand, "options": {}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["valid"] is True and body["rules"] == rules and body["total"] > 0 and body["items"]
    assert body == score(hand, rules).to_json()


@pytest.mark.parametrize("rules", implemented_rules())
def test_score_a_hand_that_does_not_win_is_200_invalid(client, rules):
    hand = dict(WINNING[rules])
    hand["concealed"] = [*hand["concealed"][:-2], "2z", "3z"]  # the pair of East winds broken up
    r = client.post("/v1/score", json={"rules": rules, "hand": hand})
    assert r.status_code == 200, r.text
    assert r.json()["valid"] is False and r.json()["error"]["code"] in ERROR_CODES


@pytest.mark.parametrize("body, code", [
    ({"rules": "mcr", "hand": {**WINNING_HAND, "concealed": ["1m", "9x"]}}, "unknown_tile"),
    ({"rules": "mcr", "hand": {**WINNING_HAND, "colour": "red"}}, "bad_hand_json"),
    ({"rules": "mcr", "hand": {**WINNING_HAND, "melds": [{"kind": "chow", "tiles": ["1m", "3m", "5m"]}]}}, "bad_meld"),
    ({"rules": "mcr", "hand": {**WINNING_HAND, "context": {"seat_wind": "X"}}}, "bad_context"),
    ({"rules": "mcr", "hand": {**WINNING_HAND, "concealed": ["1m"] * 5 + ["2m"] * 5}}, "too_many_copies"),
    ({"rules": "poker", "hand": WINNING_HAND}, "unknown_rules"),
    ({"hand": WINNING_HAND}, "missing_field"),
    ({"rules": "mcr"}, "missing_field"),
    ({"rules": "mcr", "hand": [1, 2]}, "bad_field"),
    ({"rules": 7, "hand": WINNING_HAND}, "bad_field"),
    ({"rules": "mcr", "hand": WINNING_HAND, "options": "fast"}, "bad_field"),
    ({"rules": "mcr", "hand": WINNING_HAND, "extra": 1}, "bad_field"),
])
def test_score_bad_requests(client, body, code):
    assert_error(client.post("/v1/score", json=body), 400, code)


@pytest.mark.parametrize("content", [b"{not json", b"", b"[]", b"null", b"\xff\xfe"])
def test_score_malformed_body(client, content):
    r = client.post("/v1/score", content=content, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] in {"bad_json", "bad_field", "missing_field"}


# -- /v1/recognize ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt, mime", [("JPEG", "image/jpeg"), ("PNG", "image/png"), ("WEBP", "image/webp"),
                                       ("HEIF", "image/heic")])
def test_recognize_each_format(client, fake, fmt, mime):
    r = client.post("/v1/recognize", files=upload(sample_photo(fmt), f"table.{fmt.lower()}", mime))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["image"] == f"table.{fmt.lower()}" and (body["width"], body["height"]) == (960, 540)
    assert len(body["tiles"]) == 14 and body["hand"]["winning_tile"] == "9s"
    assert fake.calls == 1


def test_recognize_honours_exif_rotation(client):
    r = client.post("/v1/recognize", files=upload(sample_photo(exif_orientation=6)))
    assert (r.json()["width"], r.json()["height"]) == (540, 960)  # upright: a quarter turn swaps the sides


def test_recognize_keeps_only_the_file_name(client):
    r = client.post("/v1/recognize", files=upload(sample_photo(), "../../etc/photo.jpg"))
    assert r.json()["image"] == "photo.jpg"


def _gif() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 64)).save(out, "GIF")
    return out.getvalue()


@pytest.mark.parametrize("data, status, code", [
    (b"just some text, not a photo", 415, "not_an_image"),
    (b"", 415, "not_an_image"),
    (_gif(), 415, "unsupported_image"),
    (sample_photo()[:600], 400, "corrupt_image"),
    (sample_photo("PNG")[:300], 400, "corrupt_image"),
    (sample_photo(size=(20, 20)), 400, "image_too_small"),
], ids=["text", "empty", "gif", "truncated-jpeg", "truncated-png", "tiny"])
def test_recognize_bad_photos(client, fake, data, status, code):
    assert_error(client.post("/v1/recognize", files=upload(data)), status, code)


def test_upload_size_and_pixel_limits(fake):
    photo = sample_photo()
    with make_client(fake, max_upload_bytes=len(photo) - 1) as c:
        # declared length over the limit (plus multipart slack): refused before the body is read
        assert_error(c.post("/v1/recognize", files=upload(photo + b"\0" * 100_000)), 413, "request_too_large")
        assert_error(c.post("/v1/recognize", files=upload(photo)), 413, "image_too_large")
    with make_client(fake, max_pixels=960 * 540 - 1) as c:
        assert_error(c.post("/v1/recognize", files=upload(photo)), 413, "too_many_pixels")
    assert fake.calls == 0


def test_recognize_missing_or_wrong_field(client):
    assert_error(client.post("/v1/recognize"), 400, "missing_field")
    assert_error(client.post("/v1/recognize", data={"image": "a string"}), 400, "bad_field")
    assert_error(client.post("/v1/recognize", files={"photo": ("a.jpg", sample_photo(), "image/jpeg")}), 400,
                 "missing_field")


def test_bad_content_length_header(client):
    r = client.post("/v1/score", content=b"{}", headers={"Content-Type": "application/json", "Content-Length": "x"})
    assert r.status_code == 400


# -- /v1/photo-score -------------------------------------------------------------------------------------------
def test_photo_score_combines_recognition_and_score(client, fake):
    r = client.post("/v1/photo-score", files=upload(sample_photo()),
                    data={"rules": "mcr", "self_drawn": "true", "seat_wind": "S", "dealer": "false",
                          "dealer_streak": "2"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"recognition", "score"} and body["score"]["rules"] == "mcr"
    context = body["recognition"]["hand"]["context"]
    assert context == {"self_drawn": True, "seat_wind": "S", "dealer": False, "dealer_streak": 2}
    hand = body["recognition"]["hand"]
    assert body["score"] == score(hand, "mcr").to_json()  # the same as scoring the corrected hand yourself


@pytest.mark.parametrize("data, code", [
    ({"rules": "poker"}, "unknown_rules"),
    ({}, "missing_field"),
    ({"rules": "mcr", "seat_wind": "X"}, "bad_field"),
    ({"rules": "mcr", "dealer_streak": "-1"}, "bad_field"),
    ({"rules": "mcr", "self_drawn": "perhaps"}, "bad_field"),
    ({"rules": "mcr", "colour": "red"}, "bad_field"),
    ({"rules": "mcr", "options": "{nope"}, "bad_json"),
    ({"rules": "mcr", "options": "[1]"}, "bad_option"),
])
def test_photo_score_bad_fields_fail_before_the_detector_runs(client, fake, data, code):
    assert_error(client.post("/v1/photo-score", files=upload(sample_photo()), data=data), 400, code)
    assert fake.calls == 0


def test_photo_score_takes_riichi_context_fields(client):
    r = client.post("/v1/photo-score", files=upload(sample_photo()),
                    data={"rules": "riichi", "seat_wind": "S", "dora_indicators": ["4p", "7s"], "honba": "1",
                          "riichi_sticks": "2"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["recognition"]["hand"]["context"] == {"seat_wind": "S", "dora_indicators": ["4p", "7s"],
                                                      "honba": 1, "riichi_sticks": 2}
    assert body["score"] == score(body["recognition"]["hand"], "riichi").to_json()
    assert {i["key"]: i["count"] for i in body["score"]["items"]}["dora"] == 2  # 5p and 8s
    assert body["score"]["points"]["riichi_sticks_bonus"] == 2000
    bad = client.post("/v1/photo-score", files=upload(sample_photo()),
                      data={"rules": "riichi", "dora_indicators": ["9x"]})
    assert_error(bad, 400, "bad_context")


def test_photo_score_without_a_hand(fake):
    class NoHand(FakeRecognizer):
        def recognize(self, data, name):
            return {**super().recognize(data, name), "hand": None}

    with make_client(NoHand()) as c:
        r = c.post("/v1/photo-score", files=upload(sample_photo()), data={"rules": "taiwan"})
    assert r.status_code == 200
    assert r.json()["score"]["valid"] is False and r.json()["score"]["error"]["code"] == "tile_count"


# -- cross-cutting ---------------------------------------------------------------------------------------------
def test_request_id_is_echoed_or_generated(client):
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["X-Request-ID"] == "abc-123"
    generated = client.get("/healthz").headers["X-Request-ID"]
    assert len(generated) == 32
    assert client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"}).headers["X-Request-ID"] != ""
    assert client.post("/v1/score", json={}).headers["X-Request-ID"]


def test_logs_are_json_lines_with_the_request_id(client):
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(self.format(record))

    handler = Keep()
    handler.setFormatter(JsonFormatter())
    logging.getLogger("mjlens").addHandler(handler)
    try:
        client.get("/healthz", headers={"X-Request-ID": "trace-1"})
    finally:
        logging.getLogger("mjlens").removeHandler(handler)
    access = [json.loads(line) for line in lines]
    assert access and access[-1]["request_id"] == "trace-1"
    assert access[-1]["path"] == "/healthz" and access[-1]["status"] == 200 and access[-1]["duration_ms"] >= 0


def test_api_key(fake):
    with make_client(fake, api_key="s3cret") as c:
        assert_error(c.get("/v1/rules"), 401, "unauthorized")
        assert_error(c.get("/v1/rules", headers={"X-API-Key": "wrong"}), 401, "unauthorized")
        assert_error(c.post("/v1/recognize", files=upload(sample_photo())), 401, "unauthorized")
        assert c.get("/v1/rules", headers={"X-API-Key": "s3cret"}).status_code == 200
        assert c.get("/healthz").status_code == 200 and c.get("/readyz").status_code == 200
        assert c.get("/").status_code == 200
    assert fake.calls == 0


def test_cors(fake):
    with make_client(fake, cors_origins="http://phone.lan:8080") as c:
        r = c.options("/v1/score", headers={"Origin": "http://phone.lan:8080", "Access-Control-Request-Method": "POST"})
        assert r.headers["access-control-allow-origin"] == "http://phone.lan:8080"
        big = c.post("/v1/recognize", content=b"x", headers={"Origin": "http://phone.lan:8080",
                                                             "Content-Length": str(10**9)})
        assert big.status_code == 413 and big.headers["access-control-allow-origin"] == "http://phone.lan:8080"
        r = c.get("/healthz", headers={"Origin": "http://elsewhere.example"})
        assert "access-control-allow-origin" not in r.headers
    with make_client(fake) as c:  # no origins configured: no CORS headers at all
        assert "access-control-allow-origin" not in c.get("/healthz", headers={"Origin": "http://x"}).headers


def test_unexpected_errors_answer_500_internal_in_json(fake):
    class Broken(FakeRecognizer):
        def recognize(self, data, name):
            raise RuntimeError("a bug")

    with make_client(Broken()) as c:
        r = c.post("/v1/recognize", files=upload(sample_photo()), headers={"X-Request-ID": "bug-1"})
    assert_error(r, 500, "internal")
    assert r.headers["X-Request-ID"] == "bug-1" and "a bug" not in r.text


def test_full_queue_answers_503_with_retry_after():
    blocking = BlockingRecognizer()
    app = create_app(Settings(model="none.onnx", workers=1, queue_size=1, retry_after_s=3), recognizer=blocking)
    photo = sample_photo()

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            held = [asyncio.create_task(c.post("/v1/recognize", files=upload(photo))) for _ in range(2)]
            await asyncio.to_thread(blocking.started.acquire, True, 10)  # one runs, one waits in the queue
            for _ in range(500):
                if app.state.pool.in_flight == 2:
                    break
                await asyncio.sleep(0.01)
            assert app.state.pool.in_flight == 2
            refused = await c.post("/v1/recognize", files=upload(photo))
            scoring = await c.post("/v1/score", json={"rules": "poker", "hand": WINNING_HAND})
            blocking.release.set()
            return refused, scoring, await asyncio.gather(*held)

    refused, scoring, held = asyncio.run(scenario())
    assert_error(refused, 503, "busy")
    assert "detector is busy: 1 photo being read and 1 waiting" in refused.json()["error"]["message"]
    assert refused.headers["Retry-After"] == "3"
    assert scoring.status_code == 400  # scoring does not wait for the detector
    assert [r.status_code for r in held] == [200, 200]
    app.state.pool.shutdown()


def test_the_pool_itself_refuses_overflow():
    """The gate in front refuses before the upload is read; the pool refuses what slips past it."""
    from mjlens.api.service.errors import ApiError
    from mjlens.api.service.queue import InferencePool

    pool = InferencePool(workers=1, queue_size=0, retry_after_s=2)
    release = threading.Event()

    async def scenario():
        first = asyncio.create_task(pool.run(release.wait, 10))
        await asyncio.sleep(0.05)
        with pytest.raises(ApiError) as refused:
            await pool.run(lambda: None)
        release.set()
        assert await first is True
        return refused.value

    error = asyncio.run(scenario())
    assert (error.status, error.code, error.headers) == (503, "busy", {"Retry-After": "2"})
    assert pool.in_flight == 0
    pool.shutdown()


def test_a_failing_image_plugin_is_not_a_500(client, monkeypatch):
    """Libraries may hook PIL.Image.open (ultralytics does, to install a HEIF plugin on the first unidentified
    file); such a hook failing on an upload must still be a 4xx."""
    real_open = Image.open

    def hooked_open(fp, *args, **kwargs):
        try:
            return real_open(fp, *args, **kwargs)
        except Image.UnidentifiedImageError:
            raise ModuleNotFoundError("No module named 'some_plugin'") from None

    monkeypatch.setattr(Image, "open", hooked_open)
    assert_error(client.post("/v1/recognize", files=upload(b"plain text, not a photo")), 415, "not_an_image")
