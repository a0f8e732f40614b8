"""Babel extraction methods for the sentences that are not in ``msg(...)`` calls of Python code (named in
``babel.cfg``, so ``pybabel extract`` and the catalogue test see them as they see the code's messages):

- ``extract_says``: ``says`` in ``scoring/safety.toml``, what a safety mark claims;
- ``extract_page_js``: the phone page's scripts, each sentence written ``t("...")`` (or ``N_("...")`` where it is kept
  in a constant and said later); the same for the review page of ``mjlens label``, in the context ``review`` that
  ``babel.cfg`` names;
- ``extract_page_html``: the page's HTML, each element marked ``data-i18n`` (its text) or ``data-i18n-ATTR`` (that
  attribute's English).

The page's sentences are catalogued in the context ``page``: ``GET /v1/messages`` serves those to the page.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import IO, Any

#: The msgctxt of the phone page's sentences, and of the label review page's (``mjlens label``'s review.html).
PAGE, REVIEW = "page", "review"

Found = Iterator[tuple[int, str, Any, list[str]]]


def extract_says(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: dict[str, Any]) -> Found:
    """(line, funcname, message, comments) for each ``says`` of a TOML file's tables, as Babel's extractors give."""
    text = fileobj.read().decode("utf-8")
    for key, row in tomllib.loads(text).items():
        if isinstance(row, dict) and isinstance(row.get("says"), str):
            line = next((n for n, ln in enumerate(text.splitlines(), 1) if ln.strip() == f"[{key}]"), 0)
            yield line, "msg", row["says"], [f"safety.toml [{key}]"]


def extract_page_js(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: dict[str, Any]) -> Found:
    """Each ``t("...")`` of a page script, in the context ``page`` (as ``pmsg("page", "...")`` would give it), or
    in the one the mapping's option ``context`` names."""
    from babel.messages.extract import extract_javascript

    context = options.get("context", PAGE)
    options = {**options, "parse_template_string": True}  # t() inside `${...}` of a template literal too
    for line, _, message, comments in extract_javascript(fileobj, {"t": None, "N_": None}, comment_tags, options):
        text = message[0] if isinstance(message, tuple) else message
        if text:
            yield line, "pmsg", (context, text), comments


class _Marked(HTMLParser):
    """The English of the elements marked ``data-i18n`` (text, whitespace collapsed) or ``data-i18n-ATTR``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[str, int, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        named = dict(attrs)
        for name, value in attrs:
            if name.startswith("data-i18n-") and value:
                self.found.append((line, value))
        if "data-i18n" in named:
            self._open.append((tag, line, []))

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, line, parts = self._open.pop()
            text = " ".join("".join(parts).split())
            if text:
                self.found.append((line, text))

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2].append(data)


def extract_page_html(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: dict[str, Any]) -> Found:
    """Each marked sentence of the page's HTML, in the context ``page``."""
    parser = _Marked()
    parser.feed(fileobj.read().decode("utf-8"))
    for line, text in parser.found:
        yield line, "pmsg", (PAGE, text), []
