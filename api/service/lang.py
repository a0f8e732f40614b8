"""The language of an answer's words (docs/i18n.md): the query parameter ``lang`` (``en`` or ``zh``), else the
``Accept-Language`` header, else English. Codes, keys and numbers are the same in every language; only the
``message``, ``warnings`` and ``reason`` texts change, each said from the catalogue (mjlens.i18n)."""

from __future__ import annotations

import contextvars
from typing import Any
from urllib.parse import parse_qs

from fastapi.responses import JSONResponse as _JSONResponse

from mjlens.i18n import DEFAULT_LANG, LANGS, lang_of, localize

#: The language of the request being answered (set by ``LangMiddleware``).
lang_var: contextvars.ContextVar[str] = contextvars.ContextVar("lang", default=DEFAULT_LANG)


class JSONResponse(_JSONResponse):
    """A JSON answer whose messages are said in the request's language."""

    def render(self, content: Any) -> bytes:
        return super().render(localize(content, lang_var.get()))


def request_lang(scope: dict[str, Any]) -> str | None:
    """The language ``scope`` asks for, or None for a ``lang`` parameter that is not one of ``LANGS``."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), max_num_fields=100)
    if "lang" in query:
        asked = query["lang"][-1].strip().lower()
        return asked if asked in LANGS else None
    header = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"accept-language"), None)
    return lang_of(header[:200] if header else None)


class LangMiddleware:
    """Sets ``lang_var`` for the request and says which language the answer is in (``Content-Language``); a
    ``lang`` parameter that is not offered answers 400 ``bad_field``."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            lang = request_lang(scope)
        except ValueError:  # more query fields than parse_qs reads
            lang = None
        if lang is None:
            from .errors import error_response

            await error_response(400, "bad_field", f"'lang' must be one of {', '.join(LANGS)}")(scope, receive, send)
            return
        token = lang_var.set(lang)

        async def send_with_language(message):
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"content-language", lang.encode()),
                           (b"vary", b"Accept-Language")]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_language)
        finally:
            lang_var.reset(token)
