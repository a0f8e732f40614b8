"""HTTP errors: one body shape ``{"error": {"code", "message"}}`` for every failure, with stable codes.

FastAPI's own validation errors, Starlette's 404/405 and unexpected exceptions are all turned into this shape,
so a client handles one format. Codes from the scoring layer (``scoring.errors.ERROR_CODES``) and the image
layer (``vision.runtime.decode.IMAGE_ERROR_CODES``) pass through unchanged; the codes below are the service's own.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from mjlens.i18n import msg, say

from .lang import lang_var
from .logs import request_id_var

log = logging.getLogger("mjlens.api")

#: The service's own error codes -> what they mean (documented in docs/api.md).
API_ERROR_CODES = {
    "bad_json": "the request body is not valid JSON",
    "missing_field": "a required field is missing",
    "bad_field": "a field has a value of the wrong type or out of range",
    "bad_request": "the request is malformed in another way",
    "request_too_large": "the request body is larger than the limit (photo + form, or JSON)",
    "request_timeout": "the request's body did not arrive within the body timeout, or a photo arrived slower than "
                       "the least upload rate",
    "unauthorized": "the API key is missing or wrong",
    "not_found": "no such path",
    "method_not_allowed": "the path does not accept this method",
    "busy": "the detector's workers and queue, or the places for photos being received, are full (the message says "
            "which): retry after Retry-After seconds",
    "client_upload_limit": "this client has its most photos in flight at once: retry when one is answered",
    "model_unavailable": "the tile detector is not loaded",
    "profile_not_found": "no profile with this id, or its token is missing or wrong (the two alike)",
    "profile_limit": "the service holds its most profiles",
    "profile_too_large": "the profile would be larger than the service keeps",
    "profile_store": "the profile database cannot be reached",
    "bad_tiles": "the tiles field is not a JSON list of tiles with a known code and a box inside the photo",
    "client_profile_limit": "this client keeps its most profiles",
    "client_rate_limit": "this client made its most profiles in the last hour: retry after Retry-After seconds",
    "internal": "an unexpected error (a bug): the request id in the logs says where",
}

#: Scoring error codes that mean the *request* is wrong (400) rather than the hand not winning (200, valid: false).
REQUEST_ERROR_CODES = frozenset(
    {"bad_notation", "bad_hand_json", "unknown_tile", "too_many_copies", "bad_meld", "bad_context",
     "unknown_rules", "bad_option"}
)


class ApiError(Exception):
    """Raise anywhere in a handler to answer ``status`` with the standard error body."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    """The body of every 4xx/5xx answer."""

    error: ErrorDetail


#: Longest error message sent: a message quoting a 10 MB input must not send it back.
MAX_MESSAGE_CHARS = 300
#: Characters of an input quoted in an error message.
QUOTE_CHARS = 40


#: A quoted input in a message ('...' or "..."), long enough to be cut to a prefix.
_LONG_QUOTE = re.compile(rf"""(['"])([^'"]{{{QUOTE_CHARS}}})[^'"]{{8,}}+\1""")  # possessive: linear time


def short_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``message`` with every long quoted input cut to a prefix (the rest of the message, which says what to
    send instead, is kept), then cut to ``limit`` characters, saying how long it was. A character UTF-8 cannot
    carry (a lone surrogate, which JSON's ``\\ud800`` escape makes) is quoted as that escape."""
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    message = _LONG_QUOTE.sub(lambda m: f"{m[1]}{m[2]}...{m[1]}", message)
    if len(message) <= limit:
        return message
    return f"{message[:limit - 40]}... ({len(message)} characters, cut)"


def quoted(value: object, limit: int = QUOTE_CHARS) -> str:
    """A short quote of an input for an error message: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    message = short_message(say(message, lang_var.get()))
    headers = dict(headers or {})
    rid = request_id_var.get()
    if rid:
        headers.setdefault("X-Request-ID", rid)
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _validation_message(errors: list[dict[str, Any]]) -> tuple[str, str]:
    """The code and a one-line message for FastAPI's list of validation errors (the first one decides)."""
    first = errors[0] if errors else {}
    kind = str(first.get("type", ""))
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "form"))
    if kind == "json_invalid":
        return "bad_json", msg("the body is not valid JSON: {reason}", reason=first.get("msg", ""))
    if kind == "missing":
        return "missing_field", msg("'{where}' is required", where=where)
    reason = first.get("msg") or msg("invalid value")
    return "bad_field", msg("'{where}': {reason}", where=where, reason=reason)


def install(app: FastAPI) -> None:
    """Register the handlers that give every failure the standard body."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        code, message = _validation_message(list(exc.errors()))
        return error_response(400, code, message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized"}.get(exc.status_code, "bad_request")
        if exc.status_code >= 500:
            code = "internal"
        return error_response(exc.status_code, code, str(exc.detail), getattr(exc, "headers", None))
