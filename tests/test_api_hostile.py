"""The service against hostile input: bodies bounded as they arrive, the key checked before any body is read,
uploads in flight bounded, JSON nesting bounded, slow clients timed out, short error messages, every route
behind the key but the open ones, and photos whose decode would cost too much refused from the header.

The timed part (load, memory, CPU per file) is benchmarks/bench_hostile.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import socket
import struct
import threading
import time
import zlib

import httpx
import pytest
from api_fakes import BlockingRecognizer, FakeRecognizer, sample_photo
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from PIL import Image
from starlette.routing import Mount

from mjlens.api.service.app import FORM_OVERHEAD_BYTES, OPEN_PATHS, OPEN_PREFIXES, create_app
from mjlens.api.service.errors import MAX_MESSAGE_CHARS
from mjlens.api.service.middleware import LOGGED_PATH_CHARS
from mjlens.api.service.settings import Settings
from mjlens.vision.runtime.decode import DecodeBudget, ImageError, load_image

HAND = {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z"],
        "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"]}], "winning_tile": "9s"}


def make_app(recognizer=None, **settings):
    settings.setdefault("model", "no-such-model.onnx")
    return create_app(Settings(**settings), recognizer=recognizer or FakeRecognizer())


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    return response.json()["error"]


# -- raw ASGI calls: what the server hands the app, chunk by chunk ---------------------------------------------
class Body:
    """A request body as the server delivers it: ``chunks`` then the end, or forever (``endless``); counts what
    the app pulled, and can stall (``stall_s``) before each chunk like a slow client."""

    def __init__(self, chunks=(), endless: bytes | None = None, stall_s: float = 0.0):
        self.chunks, self.endless, self.stall_s = list(chunks), endless, stall_s
        self.pulled = 0

    async def receive(self):
        if self.stall_s:
            await asyncio.sleep(self.stall_s)
        self.pulled += 1
        if self.endless is not None and self.chunks:
            return {"type": "http.request", "body": self.chunks.pop(0), "more_body": True}
        if self.endless is not None:
            return {"type": "http.request", "body": self.endless, "more_body": True}
        if self.chunks:
            chunk = self.chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(self.chunks)}
        await asyncio.sleep(3600)  # the body is over: wait for a disconnect that never comes


async def asgi_call(app, method: str, path: str, body: Body, headers: dict[str, str] | None = None,
                    client: str = "127.0.0.1"):
    """(status, response headers, JSON body) of one request sent straight to the ASGI app from ``client``."""
    sent: list[dict] = []
    raw_headers = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "path": path,
             "raw_path": path.encode(), "root_path": "", "scheme": "http", "query_string": b"",
             "headers": raw_headers, "client": (client, 5000), "server": ("127.0.0.1", 8000), "state": {}}

    async def send(message):
        sent.append(message)

    await app(scope, body.receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), json.loads(content) if content else None


def run(coroutine):
    return asyncio.run(coroutine)


CHUNKED = {"Transfer-Encoding": "chunked", "Content-Type": "application/json"}
UPLOAD = {"Transfer-Encoding": "chunked", "Content-Type": "multipart/form-data; boundary=b"}
#: The start of a multipart photo upload; endless bytes of photo follow.
PART = b'--b\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'


def endless_upload(chunk: int, stall_s: float = 0.0) -> Body:
    return Body(chunks=[PART], endless=b"x" * chunk, stall_s=stall_s)


def test_a_chunked_json_body_is_refused_as_soon_as_it_passes_the_limit():
    app = make_app(max_json_bytes=100_000)
    body = Body(endless=b"[" * 10_000)
    status, headers, answer = run(asgi_call(app, "POST", "/v1/score", body, CHUNKED))
    assert (status, answer["error"]["code"]) == (413, "request_too_large")
    assert body.pulled == 11  # the chunk that passed 100 000 bytes was the last one read
    assert headers[b"connection"] == b"close"
    assert "100000 bytes" in answer["error"]["message"]


def test_a_chunked_upload_is_refused_as_soon_as_it_passes_the_limit():
    app = make_app(max_upload_bytes=1_000_000)
    body = endless_upload(65_536)
    status, _, answer = run(asgi_call(app, "POST", "/v1/recognize", body, UPLOAD))
    assert (status, answer["error"]["code"]) == (413, "request_too_large")
    assert (body.pulled - 1) * 65_536 <= 1_000_000 + FORM_OVERHEAD_BYTES + 65_536  # the form's start, then data
    # the message and the docs say the same limit: the photo's, plus the form around it
    assert "1000000 bytes of photo" in answer["error"]["message"]


def test_only_a_form_gets_the_upload_limit_on_an_upload_path():
    body = Body(endless=b"[" * 65_536)
    status, _, answer = run(asgi_call(make_app(), "POST", "/v1/recognize", body, CHUNKED))
    assert status == 413 and "JSON body" in answer["error"]["message"] and body.pulled == 5


def test_a_declared_length_over_the_limit_is_refused_before_reading():
    app = make_app()
    body = Body(endless=b"x")
    headers = {"Content-Length": str(21 * 2**20), "Content-Type": "multipart/form-data; boundary=b"}
    status, _, answer = run(asgi_call(app, "POST", "/v1/recognize", body, headers))
    assert (status, body.pulled) == (413, 0)
    assert "20971520 bytes of photo" in answer["error"]["message"]


@pytest.mark.parametrize("path", ["/v1/score", "/v1/recognize", "/v1/nothing-here", "/openapi.json", "/docs"])
def test_without_the_key_nothing_is_read(path):
    app = make_app(api_key="s3cret")
    body = Body(endless=b"{" * 65_536)
    status, _, answer = run(asgi_call(app, "POST", path, body, CHUNKED))
    assert (status, answer["error"]["code"], body.pulled) == (401, "unauthorized", 0)


def test_without_the_key_a_declared_length_over_the_limit_is_401_not_413():
    """A client without the key learns nothing of the service, its limits included."""
    body = Body(endless=b"x")
    headers = {"Content-Length": str(21 * 2**20), "Content-Type": "multipart/form-data; boundary=b"}
    status, _, answer = run(asgi_call(make_app(api_key="s3cret"), "POST", "/v1/recognize", body, headers))
    assert (status, answer["error"]["code"], body.pulled) == (401, "unauthorized", 0)


def test_a_body_that_does_not_arrive_in_time_is_answered_408():
    app = make_app(body_timeout_s=0.3)
    body = Body(chunks=[b'{"rules": ', b'"mcr"}'], stall_s=0.2)
    status, headers, answer = run(asgi_call(app, "POST", "/v1/score", body, CHUNKED))
    assert (status, answer["error"]["code"]) == (408, "request_timeout")
    assert headers[b"connection"] == b"close"


def test_answers_to_bodies_read_whole_keep_the_connection():
    status, headers, _ = run(asgi_call(make_app(), "GET", "/healthz", Body()))
    assert status == 200 and b"connection" not in headers
    with TestClient(make_app()) as c:
        r = c.post("/v1/recognize", files={"image": ("a.jpg", sample_photo(), "image/jpeg")})
        assert r.status_code == 200 and "connection" not in r.headers
        r = c.post("/v1/score", json={"rules": "mcr", "hand": HAND})
        assert r.status_code == 200 and "connection" not in r.headers


# -- uploads in flight -----------------------------------------------------------------------------------------
def whole_upload(stall_s: float = 0.0, photo: bytes | None = None, chunk: int = 16_384) -> Body:
    """A photo's whole upload, in chunks of ``chunk`` bytes."""
    data = PART + (photo or sample_photo()) + b"\r\n--b--\r\n"
    return Body(chunks=[data[i:i + chunk] for i in range(0, len(data), chunk)], stall_s=stall_s)


async def until(condition, timeout_s: float = 10.0) -> None:
    for _ in range(int(timeout_s / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition was not met in time")


def test_uploads_in_flight_are_bounded_in_count():
    """An upload whose photo is in holds its place while it is read: one more than the bound is a 503 once its
    first bytes show it is arriving, saying that the upload places are what is full."""
    blocking = BlockingRecognizer()
    app = make_app(blocking, max_uploads_in_flight=1)

    async def scenario():
        held = asyncio.create_task(asgi_call(app, "POST", "/v1/recognize", whole_upload(), UPLOAD))
        assert await asyncio.to_thread(blocking.started.acquire, True, 10)  # read, holding its place
        second = endless_upload(16_384)
        refused = await asgi_call(app, "POST", "/v1/photo-score", second, UPLOAD, client="10.0.0.2")
        blocking.release.set()
        return refused, second.pulled, await held

    (status, headers, answer), pulled, (held_status, _, _) = run(scenario())
    assert (status, answer["error"]["code"], held_status) == (503, "busy", 200)
    assert "every upload place is taken" in answer["error"]["message"] and "worker" not in answer["error"]["message"]
    assert pulled * 16_384 <= 64 * 1024 + 2 * 16_384  # refused once it showed its first 64 KiB
    assert headers[b"retry-after"] == b"1"


def test_headers_and_a_trickle_hold_no_place():
    """Uploads that send their headers and then trickle take no place: an honest photo is read beside them, and
    each trickle is 408 once its grace has passed below the least rate."""
    app = make_app(max_uploads_in_flight=1, upload_grace_s=0.5, min_upload_rate=50_000)

    async def scenario():
        trickles = [asyncio.create_task(asgi_call(app, "POST", "/v1/recognize", endless_upload(100, stall_s=0.05),
                                                  UPLOAD, client=f"10.0.0.{k}")) for k in range(1, 4)]
        await asyncio.sleep(0.1)
        honest = await asgi_call(app, "POST", "/v1/recognize", whole_upload(), UPLOAD, client="10.0.1.1")
        return honest, await asyncio.gather(*trickles)

    (honest_status, _, _), trickled = run(scenario())
    assert honest_status == 200
    for status, headers, answer in trickled:
        assert (status, answer["error"]["code"]) == (408, "request_timeout")
        assert "bytes/s" in answer["error"]["message"] and headers[b"connection"] == b"close"
    gate = _busy_gate(app)
    assert (gate.uploads, gate.upload_bytes, gate.places, gate.per_client) == (0, 0, {"open": 0, "reserved": 0}, {})


def test_one_client_holds_only_its_share_of_uploads():
    app = make_app(max_uploads_per_client=2)

    async def scenario():
        mine = [asyncio.create_task(asgi_call(app, "POST", "/v1/recognize", endless_upload(100, stall_s=0.05),
                                              UPLOAD)) for _ in range(2)]
        await until(lambda: app.middleware_stack and _busy_gate(app).per_client.get("127.0.0.1") == 2)
        third = endless_upload(100)
        refused = await asgi_call(app, "POST", "/v1/recognize", third, UPLOAD)
        other = await asgi_call(app, "POST", "/v1/recognize", whole_upload(), UPLOAD, client="10.0.0.9")
        for task in mine:
            task.cancel()
        return refused, third.pulled, other

    (status, _, answer), pulled, (other_status, _, _) = run(scenario())
    assert (status, answer["error"]["code"], pulled, other_status) == (429, "client_upload_limit", 0, 200)


class StallingBody(Body):
    """Sends its chunks quickly, then no more, the body unfinished."""

    async def receive(self):
        if self.chunks:
            self.pulled += 1
            return {"type": "http.request", "body": self.chunks.pop(0), "more_body": True}
        await asyncio.sleep(3600)


def test_an_upload_that_slows_in_a_reserved_place_moves_to_an_open_one_or_is_408():
    blocking = BlockingRecognizer()
    app = make_app(blocking, max_uploads_in_flight=2, reserved_upload_slots=1, min_upload_rate=1_000,
                   normal_upload_rate=5_000_000, upload_grace_s=2.0)  # time enough for the first to finish

    async def scenario(release_first: bool):
        held = asyncio.create_task(asgi_call(app, "POST", "/v1/recognize", whole_upload(), UPLOAD, client="10.0.0.1"))
        assert await asyncio.to_thread(blocking.started.acquire, True, 10)  # the open place is taken
        fast_then_still = StallingBody(chunks=[PART, b"x" * 70_000])
        stalled = asyncio.create_task(asgi_call(app, "POST", "/v1/recognize", fast_then_still, UPLOAD,
                                                client="10.0.0.2"))
        await until(lambda: _busy_gate(app).places["reserved"] == 1)
        if release_first:
            blocking.release.set()
            await held
            await until(lambda: _busy_gate(app).places == {"open": 1, "reserved": 0})  # moved at its deadline
            stalled.cancel()
            return None
        answer = await stalled
        blocking.release.set()
        await held
        return answer

    status, _, answer = run(scenario(release_first=False))
    assert (status, answer["error"]["code"]) == (408, "request_timeout")
    assert "5000000 bytes/s" in answer["error"]["message"]  # the reserved place's rate
    blocking.release.clear()
    run(scenario(release_first=True))


def test_the_reserved_places_leave_an_open_one():
    assert Settings(model="m.onnx", max_uploads_in_flight=5).reserved_uploads() == 2  # half, by default
    with pytest.raises(ValueError, match="reserved_upload_slots"):
        Settings(model="m.onnx", max_uploads_in_flight=4, reserved_upload_slots=4)


def test_the_reserved_places_go_to_photos_arriving_at_a_normal_rate():
    """Slow uploads (above the least rate) take the open places only; a photo arriving at the normal rate still
    finds a reserved one."""
    blocking = BlockingRecognizer()
    # the slow ones: 16 KiB each 100 ms, a tenth of the normal rate; the fast one: a 140 kB photo at once, which
    # leaves the event loop 140 ms to hand it over (a busy machine's pauses must not make it slow)
    app = make_app(blocking, max_uploads_in_flight=2, reserved_upload_slots=1, min_upload_rate=1_000,
                   normal_upload_rate=1_000_000)
    big_photo = sample_photo(size=(3000, 2000))

    async def scenario():
        slow = asyncio.create_task(asgi_call(app, "POST", "/v1/recognize", whole_upload(stall_s=0.1), UPLOAD,
                                             client="10.0.0.1"))
        assert await asyncio.to_thread(blocking.started.acquire, True, 10)  # the open place is taken
        slower = await asgi_call(app, "POST", "/v1/recognize", whole_upload(stall_s=0.1), UPLOAD,
                                 client="10.0.0.2")
        fast = asyncio.create_task(asgi_call(app, "POST", "/v1/recognize",
                                             whole_upload(photo=big_photo, chunk=len(big_photo) + 1024), UPLOAD,
                                             client="10.0.0.3"))
        assert await asyncio.to_thread(blocking.started.acquire, True, 10)
        places = dict(_busy_gate(app).places)
        blocking.release.set()
        return slower, places, await slow, await fast

    (slower_status, _, answer), places, (slow_status, _, _), (fast_status, _, _) = run(scenario())
    assert (slower_status, answer["error"]["code"]) == (503, "busy")
    assert places == {"open": 1, "reserved": 1}
    assert (slow_status, fast_status) == (200, 200)


def test_uploads_in_flight_are_bounded_in_bytes():
    app = make_app(max_upload_bytes_in_flight=200_000)
    body = endless_upload(50_000)
    status, _, answer = run(asgi_call(app, "POST", "/v1/recognize", body, UPLOAD))
    assert (status, answer["error"]["code"]) == (503, "busy")
    assert body.pulled == 5  # the form's start, then 50 000 bytes at a time until 200 000 would be passed
    declared = {"Content-Length": "300000", "Content-Type": "multipart/form-data; boundary=b"}
    status, _, _ = run(asgi_call(app, "POST", "/v1/recognize", Body(endless=b"x"), declared))
    assert status == 503
    # the counts are given back when the requests end
    gate = _busy_gate(app)
    assert (gate.uploads, gate.upload_bytes) == (0, 0)


def _busy_gate(app):
    from mjlens.api.service.middleware import BusyGate

    layer = app.middleware_stack  # built on the app's first call
    while not isinstance(layer, BusyGate):
        layer = layer.app
    return layer


# -- JSON --------------------------------------------------------------------------------------------------------
@pytest.fixture
def client():
    with TestClient(make_app(), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("depth", [40, 1_000, 100_000])
def test_deep_json_bodies_are_400(client, depth):
    body = '{"rules": "mcr", "hand": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
    r = client.post("/v1/score", content=body[:200_000], headers={"Content-Type": "application/json"})
    assert_error(r, 400, "bad_json")  # the deepest cut short: too deep before it is seen to be incomplete


def test_deep_json_without_a_content_type_is_400_bad_json(client):
    r = client.post("/v1/score", content=b'{"rules": "mcr", "hand": ' + b"[" * 5_000 + b"]" * 5_000 + b"}")
    assert "nested" in assert_error(r, 400, "bad_json")["message"]


def test_a_browser_preflight_needs_no_key():
    with TestClient(make_app(api_key="s3cret", cors_origins="http://phone.lan")) as c:
        r = c.options("/v1/score", headers={"Origin": "http://phone.lan", "Access-Control-Request-Method": "POST"})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "http://phone.lan"


def test_deep_json_in_the_options_field_is_400_not_500(client):
    options = "[" * 1_000 + "]" * 1_000
    r = client.post("/v1/photo-score", files={"image": ("a.jpg", sample_photo(), "image/jpeg")},
                    data={"rules": "mcr", "options": options})
    assert "nested" in assert_error(r, 400, "bad_json")["message"]
    r = client.post("/v1/photo-score", files={"image": ("a.jpg", sample_photo(), "image/jpeg")},
                    data={"rules": "mcr", "options": json.dumps({"k": "v" * 300_000})})
    assert_error(r, 400, "bad_field")


def test_context_must_be_an_object(client):
    for context in ([], "E", 3):
        assert_error(client.post("/v1/score", json={"rules": "mcr", "hand": {**HAND, "context": context}}),
                     400, "bad_context")
    assert client.post("/v1/score", json={"rules": "mcr", "hand": {**HAND, "context": None}}).status_code == 200


def test_error_messages_quote_only_a_prefix(client):
    r = client.post("/v1/score", json={"rules": "x" * 200_000, "hand": HAND})
    error = assert_error(r, 400, "unknown_rules")
    assert len(error["message"]) <= MAX_MESSAGE_CHARS and len(r.content) < 1000
    assert "x" * 41 not in error["message"] and "mcr" in error["message"]  # a prefix, and what to send instead
    r = client.post("/v1/score", json={"rules": "mcr", "hand": HAND, "z" * 100_000: 1})
    assert len(assert_error(r, 400, "bad_field")["message"]) <= MAX_MESSAGE_CHARS


#: A JSON key holding a lone surrogate: valid JSON, but no UTF-8 can carry it back in an error message.
LONE_KEY = '"\\ud800"'
LONE_KEY_PLACES = {
    "hand": ("mcr", {**HAND, "@": 1}, {}),
    "hand.context": ("mcr", {**HAND, "context": {"@": 1}}, {}),
    "taiwan options": ("taiwan", HAND, {"@": 1}),
    "cantonese options": ("cantonese", HAND, {"@": 1}),
    "taiwan house_rules": ("taiwan", HAND, {"house_rules": {"@": 1}}),
    "cantonese house_rules": ("cantonese", HAND, {"house_rules": {"@": 1}}),
}


def _with_lone_key(value) -> str:
    return json.dumps(value).replace('"@"', LONE_KEY)


@pytest.mark.parametrize("place", sorted(LONE_KEY_PLACES))
def test_a_key_no_utf8_can_carry_is_400_and_quoted_safely(client, place):
    rules, hand, options = LONE_KEY_PLACES[place]
    body = _with_lone_key({"rules": rules, "hand": hand, "options": options})
    r = client.post("/v1/score", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert "\\ud800" in r.json()["error"]["message"]  # the key, escaped
    if options:
        r = client.post("/v1/photo-score", files={"image": ("a.jpg", sample_photo(), "image/jpeg")},
                        data={"rules": rules, "options": _with_lone_key(options)})
        assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_option"), r.text


def test_a_long_path_is_logged_cut_short(client, caplog):
    with caplog.at_level("INFO", logger="mjlens.access"):
        assert client.get("/v1/profiles/" + "x" * 10_000).status_code == 404
    [line] = [r for r in caplog.records if r.name == "mjlens.access"]
    assert len(line.path) == LOGGED_PATH_CHARS + 3 and line.path.startswith("/v1/profiles/xxx")


def test_head_on_the_page_and_health(client):
    for path in ("/", "/healthz", "/readyz"):
        r = client.head(path)
        assert r.status_code == 200 and r.content == b""


def test_redoc_is_not_served(client):
    assert_error(client.get("/redoc"), 404, "not_found")


# -- every route with and without the key ----------------------------------------------------------------------
def _every_path(routes, prefix: str = "") -> list[tuple[str, str]]:
    """(method, a concrete path) for every route and mount of the app, routers included from it too."""
    out = []
    for route in routes:
        if hasattr(route, "original_router"):  # a router included by reference (FastAPI >= 0.16x)
            out += _every_path(route.original_router.routes, prefix + getattr(route.include_context, "prefix", ""))
        elif isinstance(route, Mount):
            out.append(("GET", prefix + route.path + ("/style.css" if route.path == "/static" else "/x.css")))
        elif isinstance(route, APIRoute) or hasattr(route, "methods"):
            path = prefix + route.path.replace("{", "").replace("}", "")
            out.extend((method, path) for method in sorted(route.methods or {"GET"}))
    return out


def _is_open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


def test_every_route_needs_the_key_but_the_open_ones():
    app = make_app(api_key="s3cret")
    paths = _every_path(app.routes)
    assert {("GET", "/openapi.json"), ("GET", "/docs"), ("POST", "/v1/score"), ("GET", "/static/style.css")} <= \
        set(paths)
    with TestClient(app, raise_server_exceptions=False) as c:
        for method, path in paths:
            without = c.request(method, path)
            with_key = c.request(method, path, headers={"X-API-Key": "s3cret"})
            if _is_open(path):
                assert without.status_code != 401, (method, path)
            else:
                assert without.status_code == 401, (method, path)
            assert with_key.status_code not in (401, 500), (method, path, with_key.text)


# -- photos whose decode would cost too much ----------------------------------------------------------------------
def _png_header(width: int, height: int, bit_depth: int = 8, color_type: int = 2, crc_ok: bool = True,
                padding: int = 0) -> bytes:
    def chunk(kind: bytes, body: bytes, ok: bool = True) -> bytes:
        crc = zlib.crc32(kind + body) ^ (0 if ok else 1)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    text = chunk(b"tEXt", b"padding\0" + b"x" * padding) if padding else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr, crc_ok) + text + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def _image_error(data: bytes, **kwargs) -> ImageError:
    with pytest.raises(ImageError) as info:
        load_image(data, **kwargs)
    return info.value


def test_a_bad_crc_png_is_corrupt_not_alien(client):
    assert _image_error(_png_header(100, 100, crc_ok=False)).code == "corrupt_image"
    r = client.post("/v1/recognize", files={"image": ("a.png", _png_header(100, 100, crc_ok=False), "image/png")})
    assert_error(r, 400, "corrupt_image")


def test_a_huge_png_is_refused_in_the_services_words():
    error = _image_error(_png_header(30_000, 30_000))
    assert error.code == "too_many_pixels" and "bomb" not in error.message.lower()
    assert "50 megapixels" in error.message


def test_a_sixteen_bit_rgba_png_is_refused_from_its_header():
    started = time.process_time()
    png = _png_header(7_000, 7_000, bit_depth=16, color_type=6, padding=60_000)  # as many bytes as a photo's
    error = _image_error(png, target_side=1024)
    assert error.code == "too_many_pixels" and "pixel data" in error.message
    assert time.process_time() - started < 5  # refused without inflating 392 MB (a loose bound, not a timing)


def test_a_sparse_lossless_webp_is_refused_from_its_header():
    buf = io.BytesIO()
    Image.new("RGB", (4_000, 3_000), (120, 130, 140)).save(buf, "WEBP", lossless=True)
    error = _image_error(buf.getvalue(), target_side=1024)
    assert error.code == "too_many_pixels" and "bytes per megapixel" in error.message


def test_a_jpeg_of_too_many_scans_is_refused_before_decoding():
    buf = io.BytesIO()
    Image.new("RGB", (800, 600), (100, 120, 140)).save(buf, "JPEG", progressive=True)
    data = buf.getvalue()
    first, second = [i for i in range(len(data) - 1) if data[i:i + 2] == b"\xff\xda"][:2]
    assert load_image(data).width == 800  # a progressive JPEG as cameras write it
    repeated = data[:second] + data[first:second] * 200 + data[second:]  # the first scan 200 times over
    assert _image_error(repeated).code == "unsupported_image"


def test_files_of_more_parts_than_any_encoder_writes_are_refused():
    png = _png_header(640, 480)
    chunk = struct.pack(">I", 0) + b"zzZz" + struct.pack(">I", zlib.crc32(b"zzZz"))
    many_chunks = png[:33] + chunk * 100_001 + png[33:]  # after the signature and IHDR
    assert _image_error(many_chunks).code == "unsupported_image"
    buf = io.BytesIO()
    Image.new("RGB", (640, 480)).save(buf, "JPEG")
    many_segments = buf.getvalue()[:2] + b"\xff\xfe\x00\x02" * 1_001 + buf.getvalue()[2:]  # empty comments
    assert _image_error(many_segments).code == "unsupported_image"
    assert load_image(buf.getvalue()[:2] + b"\xff\xfe\x00\x02" * 10 + buf.getvalue()[2:]).width == 640


def test_png_and_webp_are_reduced_to_the_size_the_reader_asks_for():
    for fmt in ("PNG", "WEBP"):
        buf = io.BytesIO()
        Image.effect_noise((3_000, 2_000), 60).convert("RGB").save(buf, fmt)
        decoded = load_image(buf.getvalue(), target_side=640)
        assert (decoded.width, decoded.height) == (3_000, 2_000)
        assert 640 <= decoded.bgr.shape[1] < 1_280 and decoded.scale == pytest.approx(decoded.bgr.shape[1] / 3_000)


def test_the_decode_budget_makes_a_decode_wait_for_room():
    budget = DecodeBudget(100)
    budget.acquire(80)
    waited = threading.Event()

    def second():
        budget.acquire(50)
        waited.set()
        budget.release(50)

    thread = threading.Thread(target=second)
    thread.start()
    assert not waited.wait(0.2)
    budget.release(80)
    assert waited.wait(5)
    thread.join()
    assert budget.in_use == 0


def test_a_photo_over_the_whole_decode_budget_is_refused():
    error = _image_error(sample_photo("PNG", size=(2000, 1500)), budget=DecodeBudget(1_000_000))
    assert error.code == "too_many_pixels" and "MiB" in error.message


# -- the server: header timeout, forwarded headers ---------------------------------------------------------------
@contextlib.contextmanager
def served(app, **options):
    """``app`` under uvicorn on a free port of 127.0.0.1, with ``options``; yields the port."""
    uvicorn = pytest.importorskip("uvicorn")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, **{"log_level": "error", "lifespan": "off", **options}))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.05)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def test_slow_headers_are_cut_off():
    from mjlens.api.service.server import protocol_with_header_timeout

    with served(make_app(), http=protocol_with_header_timeout(0.5), timeout_keep_alive=5) as port:
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # headers never finished
        slow.settimeout(5)
        started = time.monotonic()
        assert slow.recv(100) == b""  # closed by the server, with nothing sent
        assert time.monotonic() - started < 4
        quick = socket.create_connection(("127.0.0.1", port))
        quick.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        quick.settimeout(5)
        assert quick.recv(100).startswith(b"HTTP/1.1 200")
        quick.close()


async def client_address(scope, receive, send):
    """An app that answers the client's address as the server gives it."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": scope["client"][0].encode()})


@pytest.mark.parametrize(("allowed", "seen"), [("", "127.0.0.1"), ("10.9.9.9", "127.0.0.1"),
                                               ("127.0.0.1", "203.0.113.7")])
def test_forwarded_headers_are_believed_only_from_the_configured_proxies(allowed, seen):
    """Per-client limits count against the address the server gives the app: by default a client cannot name
    it with X-Forwarded-For, not even from this machine."""
    from mjlens.api.service.server import server_options

    options = server_options(Settings(model="none.onnx", forwarded_allow_ips=allowed))
    options = {k: v for k, v in options.items() if k != "log_level"}
    with served(client_address, **options) as port:
        r = httpx.get(f"http://127.0.0.1:{port}/", headers={"X-Forwarded-For": "203.0.113.7"}, timeout=10)
    assert r.text == seen
