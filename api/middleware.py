"""The outermost layer of the service: request ids, access logs, and the last line of defence for bugs.

It is pure ASGI (no per-request task switching) and sits outside FastAPI's exception handling, so even an
unexpected exception gets the standard JSON body, status 500 with code ``internal``, and the request id.
"""

from __future__ import annotations

import logging
import time

from .errors import error_response
from .logs import new_request_id, request_id_var

access_log = logging.getLogger("mjlens.access")
log = logging.getLogger("mjlens.api")


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
            log.exception("unexpected error", extra={"path": scope.get("path")})
            if state["started"]:
                raise
            response = error_response(500, "internal", "an unexpected error; the request id identifies it in the logs")
            await response(scope, receive, send_with_id)
        finally:
            access_log.info("request", extra={
                "method": scope.get("method"), "path": scope.get("path"), "status": state["status"],
                "duration_ms": round((time.perf_counter() - start) * 1000, 1),
            })
            request_id_var.reset(token)


class BodyLimitMiddleware:
    """Refuse a request whose declared ``Content-Length`` is over the limit before reading its body (413).
    Bodies sent without a length are checked after reading, where the upload is checked (api.uploads)."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            length = next((v for k, v in scope.get("headers", []) if k == b"content-length"), None)
            if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
                message = (f"the request body is {int(length)} bytes; the limit is {self.max_bytes}"
                           if length.isdigit() else "the Content-Length header is not a number")
                status, code = (413, "request_too_large") if length.isdigit() else (400, "bad_request")
                await error_response(status, code, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BusyGate:
    """Answer 503 ``busy`` at once, before the upload is read, when the inference pool is already full.

    The pool refuses overflow itself too (api.queue); checking here as well means a refused client costs the
    server almost nothing (no multipart parsing), so overload does not slow down the requests being served.
    """

    def __init__(self, app, pool_of, paths: tuple[str, ...]):
        self.app = app
        self.pool_of = pool_of  # () -> InferencePool: the app replaces its pool on each start
        self.paths = paths

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") in self.paths:
            pool = self.pool_of()
            if pool.in_flight >= pool.capacity:
                response = error_response(503, "busy", f"all {pool.workers} workers are busy and the queue is full; "
                                                       "retry shortly", {"Retry-After": str(pool.retry_after_s)})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
