"""The outer layers of the service, pure ASGI (no per-request task switching), outside FastAPI's handling.

``RequestIdMiddleware``: request ids, access logs, and the last line of defence for bugs (an unexpected
exception gets the standard JSON body, status 500 with code ``internal``, and the request id). Then the guards
that act on the headers and the raw body before any route runs, so nothing is parsed or buffered unbounded:
``ApiKeyGate`` (the key checked before anything else, a byte of body included), ``BodyLimitMiddleware`` (bytes
counted as they arrive, body timeout), ``BusyGate`` (photo uploads in flight bounded in count, bytes, per client
and rate, overload refused early), ``JsonLimitMiddleware`` (JSON nesting depth).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass

from mjlens.i18n import msg

from .errors import error_response
from .jsonlimits import JsonLimitError, loads_limited
from .logs import new_request_id, request_id_var

access_log = logging.getLogger("mjlens.access")
log = logging.getLogger("mjlens.api")

#: The most characters of a request's path a log line quotes: a client chooses the path, up to the size of the
#: headers, and one request should not write kilobytes to the log.
LOGGED_PATH_CHARS = 256


def logged_path(path: str | None) -> str | None:
    """``path`` as a log line quotes it: cut to ``LOGGED_PATH_CHARS``, marked where it was cut."""
    if path is None or len(path) <= LOGGED_PATH_CHARS:
        return path
    return path[:LOGGED_PATH_CHARS] + "..."


class RequestIdMiddleware:
    """Sets the request id for the request's logs, adds ``X-Request-ID`` to the answer, writes one access-log
    line (method, path, status, duration), and answers 500 ``internal`` for an exception nothing else caught."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-request-id"), None)
        rid = new_request_id(incoming)
        token = request_id_var.set(rid)
        start = time.perf_counter()
        state = {"status": 500, "started": False}

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                state["status"], state["started"] = message["status"], True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"]
                headers.append((b"x-request-id", rid.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception("unexpected error", extra={"path": logged_path(scope.get("path"))})
            if state["started"]:
                raise
            response = error_response(500, "internal",
                                      msg("an unexpected error; the request id identifies it in the logs"))
            await response(scope, receive, send_with_id)
        finally:
            access_log.info("request", extra={
                "method": scope.get("method"), "path": logged_path(scope.get("path")), "status": state["status"],
                "duration_ms": round((time.perf_counter() - start) * 1000, 1),
            })
            request_id_var.reset(token)


class RequestRefused(Exception):
    """Raised from ``receive`` once a guard has answered the request itself: the app stops reading."""


class _Exchange:
    """One request seen by a guard: it can answer the request itself while the app is reading the body
    (``refuse``), after which the app's own answer is dropped; an answer sent before the whole body arrived
    closes the connection, so the server does not read the rest of an unwanted body."""

    def __init__(self, scope, send):
        self.scope, self._send = scope, send
        self.started = self.refused = False
        self.body_done = not _has_body(scope)

    def received(self, message) -> None:
        """Note a message the app received: the last of the body ends the need to close."""
        if message["type"] == "http.request" and not message.get("more_body", False):
            self.body_done = True

    async def send(self, message) -> None:
        if self.refused:
            return
        if message["type"] == "http.response.start":
            self.started = True
            if not self.body_done:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await self._send(message)

    async def answer(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        """Answer now, before the app reads the body (nothing has been sent yet)."""
        await error_response(status, code, message, headers)(self.scope, _no_body, self.send)

    async def refuse(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        """Answer now (if the app has not begun its own answer) and stop the app reading: raises."""
        if not self.started:
            await self.answer(status, code, message, headers)
        self.refused = True
        raise RequestRefused(code)


async def _no_body():
    return {"type": "http.request", "body": b"", "more_body": False}


def _header(scope, name: bytes) -> bytes | None:
    return next((v for k, v in scope.get("headers", []) if k == name), None)


def _has_body(scope) -> bool:
    length = _header(scope, b"content-length")
    return _header(scope, b"transfer-encoding") is not None or (length is not None and length.strip() not in (b"0",))


def _path_in(path: str, exact: frozenset[str], prefixes: tuple[str, ...]) -> bool:
    return path in exact or path.startswith(prefixes)


class BodyLimitMiddleware:
    """Every request body is counted as it arrives, chunked or not, before anything parses it: over the limit
    for its path the answer is 413 at once (a declared Content-Length over it: before reading a byte); a body
    that does not arrive within ``timeout_s`` of the headers is answered 408. Either way the connection closes.

    ``limit_of(path, content_type) -> (bytes, what)``: the limit for a request and how the 413 message names it.
    """

    def __init__(self, app, limit_of, timeout_s: float):
        self.app = app
        self.limit_of = limit_of
        self.timeout_s = timeout_s

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(scope, send)
        content_type = (_header(scope, b"content-type") or b"").strip().lower()
        limit, what = self.limit_of(scope.get("path", ""), content_type)
        too_large = msg("the request body is over {limit} bytes, the limit for {what}", limit=limit, what=what)
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.strip().isdigit():
                await exchange.answer(400, "bad_request", "the Content-Length header is not a number")
                return
            if int(length) > limit:
                await exchange.answer(413, "request_too_large", too_large)
                return
        deadline = asyncio.get_running_loop().time() + self.timeout_s
        received = 0

        async def counted_receive():
            nonlocal received
            if exchange.body_done:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                await exchange.refuse(408, "request_timeout",
                                      msg("the request body did not arrive within {timeout:g} s",
                                                                  timeout=self.timeout_s))
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    await exchange.refuse(413, "request_too_large", too_large)
            exchange.received(message)
            return message

        try:
            await self.app(scope, counted_receive, exchange.send)
        except RequestRefused:
            pass


class ApiKeyGate:
    """With an API key set, every path but the open ones needs it in ``X-API-Key``: checked from the headers,
    before any body is read (401 ``unauthorized``), in constant time."""

    def __init__(self, app, api_key: str | None, open_paths: frozenset[str], open_prefixes: tuple[str, ...]):
        self.app = app
        self.key = api_key.encode() if api_key else None
        self.open_paths, self.open_prefixes = open_paths, open_prefixes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and self.key and not _path_in(scope.get("path", ""), self.open_paths,
                                                                  self.open_prefixes):
            given = _header(scope, b"x-api-key") or b""
            if not secrets.compare_digest(given, self.key):
                await _Exchange(scope, send).answer(401, "unauthorized",
                                                    msg("send the service's API key in the X-API-Key header"))
                return
        await self.app(scope, receive, send)


#: Bytes of an upload that show it is arriving: it takes an upload place once these (or its whole body) are in, so a
#: client that sends headers and then trickles holds none.
PROOF_BYTES = 64 * 1024


@dataclass(frozen=True)
class UploadLimits:
    """What the photo uploads in flight may hold (api.service.settings says what each is)."""

    places: int  # uploads holding a place at once, from their first PROOF_BYTES to their answer
    reserved: int  # of those, kept for uploads arriving at ``normal_rate``
    max_bytes: int  # bytes of every upload in flight, counted as they arrive
    per_client: int  # uploads in flight from one client address, holding a place or not yet
    min_rate: float  # bytes/s, averaged from the headers, once ``grace_s`` has passed
    normal_rate: float  # bytes/s an upload in a reserved place keeps to
    grace_s: float
    proof_bytes: int = PROOF_BYTES


@dataclass
class _Upload:
    started: float  # event-loop time at the end of the headers
    received: int = 0
    place: str | None = None  # "open" or "reserved" once it holds one

    def rate(self, now: float) -> float:
        return self.received / max(now - self.started, 1e-6)


class BusyGate:
    """Bounds the photo uploads in flight so that a few clients cannot shut out the rest.

    At the headers: 503 ``busy`` at once when the inference pool is full (its own check too, in api.service.queue; here
    a refused client costs the server almost nothing), 429 ``client_upload_limit`` when the client's address has
    ``per_client`` uploads in flight already, 503 when the declared length would pass the bytes in flight.
    As the body arrives, counted (chunked too): an upload takes a place only once ``proof_bytes`` or its whole body
    are in, so headers and a trickle hold none; once ``grace_s`` has passed its average rate must stay at
    ``min_rate`` (``normal_rate`` in a reserved place), else 408 and the place is free again. The last ``reserved``
    places go only to uploads arriving at ``normal_rate`` or faster. Every 503 says what is full.
    """

    def __init__(self, app, pool_of, paths, limits: UploadLimits):
        self.app = app
        self.pool_of = pool_of  # () -> InferencePool: the app replaces its pool on each start
        self.paths = paths
        self.limits = limits
        # on the event loop thread only
        self.uploads = 0  # requests admitted and not yet answered, holding a place or not yet
        self.upload_bytes = 0
        self.places = {"open": 0, "reserved": 0}
        self.per_client: dict[str, int] = {}

    async def __call__(self, scope, receive, send):
        if not (scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") in self.paths):
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(scope, send)
        pool, limits = self.pool_of(), self.limits
        retry = {"Retry-After": str(pool.retry_after_s)}
        client = (scope.get("client") or ("unknown",))[0]
        length = _header(scope, b"content-length")
        declared = int(length) if length is not None and length.strip().isdigit() else 0
        if pool.full:
            await exchange.answer(503, "busy", pool.busy_message(), retry)
            return
        if self.per_client.get(client, 0) >= limits.per_client:
            await exchange.answer(429, "client_upload_limit", msg("this client has {count} photos in flight, the most "
                                  "one client may have at once; retry when one is answered", count=limits.per_client),
                                  retry)
            return
        if self.upload_bytes + declared > limits.max_bytes:
            await exchange.answer(503, "busy", self._bytes_full(), retry)
            return
        loop = asyncio.get_running_loop()
        upload = _Upload(loop.time())
        self.uploads += 1
        self.per_client[client] = self.per_client.get(client, 0) + 1

        async def counted_receive():
            if exchange.body_done:
                return await receive()
            message = await self._receive_in_time(receive, upload, exchange, loop)
            size = len(message.get("body", b"")) if message["type"] == "http.request" else 0
            if self.upload_bytes + size > limits.max_bytes:
                await exchange.refuse(503, "busy", self._bytes_full(), retry)
            upload.received += size
            self.upload_bytes += size
            exchange.received(message)
            if upload.place is None and message["type"] == "http.request" and (
                    upload.received >= limits.proof_bytes or exchange.body_done):
                upload.place = self._take_place(upload.rate(loop.time()))
                if upload.place is None:
                    await exchange.refuse(503, "busy", msg("every upload place is taken ({places} in all: photos being "
                                                           "received or read); retry shortly", places=limits.places),
                                          retry)
            return message

        try:
            await self.app(scope, counted_receive, exchange.send)
        except RequestRefused:
            pass
        finally:
            self.uploads -= 1
            self.upload_bytes -= upload.received
            if upload.place is not None:
                self.places[upload.place] -= 1
            self.per_client[client] -= 1
            if not self.per_client[client]:
                del self.per_client[client]

    async def _receive_in_time(self, receive, upload: _Upload, exchange: _Exchange, loop):
        """The next message, or 408 once the upload's average rate falls below what its place needs (after the
        grace); an upload in a reserved place that falls below the normal rate moves to an open place if one is
        free, keeping to the least rate from then on."""
        limits = self.limits
        while True:
            needed = limits.normal_rate if upload.place == "reserved" else limits.min_rate
            deadline = upload.started + max(limits.grace_s, upload.received / needed)
            try:
                async with asyncio.timeout_at(deadline):
                    return await receive()
            except TimeoutError:
                if upload.place == "reserved" and self.places["open"] < limits.places - limits.reserved:
                    self.places["reserved"] -= 1
                    self.places["open"] += 1
                    upload.place = "open"
                    continue
                rate = upload.rate(loop.time())
                await exchange.refuse(408, "request_timeout",
                                      msg("the photo arrived at {rate:.0f} bytes/s; the service "
                                      "waits for one arriving at {needed:.0f} bytes/s or faster", rate=rate,
                                      needed=needed))

    def _take_place(self, rate: float) -> str | None:
        """An open place, else a reserved one for an upload arriving at the normal rate; None when none is left."""
        limits = self.limits
        if self.places["open"] < limits.places - limits.reserved:
            self.places["open"] += 1
            return "open"
        if self.places["reserved"] < limits.reserved and rate >= limits.normal_rate:
            self.places["reserved"] += 1
            return "reserved"
        return None

    def _bytes_full(self) -> str:
        return (f"{self.upload_bytes / 2**20:.0f} MiB of photos are being received and this one would pass the "
                f"{self.limits.max_bytes / 2**20:.0f} MiB the service holds at once; retry shortly")


class JsonLimitMiddleware:
    """A JSON body is parsed once here, before the app parses it, so nesting over ``max_depth`` (which makes
    Python's parser recurse until it fails) is a 400 ``bad_json``; the body is then handed on unchanged.
    Its size is already bounded by BodyLimitMiddleware, outside this one."""

    def __init__(self, app, max_depth: int):
        self.app = app
        self.max_depth = max_depth

    async def __call__(self, scope, receive, send):
        content_type = (_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
        # FastAPI parses a body sent without a Content-Type as JSON too
        json_body = content_type in (b"", b"application/json") or content_type.endswith(b"+json")
        if scope["type"] != "http" or not json_body or not _has_body(scope):
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, _replay([message]), send)
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            loads_limited(body, self.max_depth)
        except JsonLimitError as err:
            await error_response(400, "bad_json", str(err))(scope, _no_body, send)
            return
        except ValueError:  # not JSON: the app says so in its own words
            pass
        await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)


def _replay(messages: list[dict], then=None):
    """A ``receive`` that gives ``messages`` first, then defers to ``then`` (or reports a disconnect)."""
    pending = list(messages)

    async def receive():
        if pending:
            return pending.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive
