"""A Babel extraction method for the sentences that live in data files rather than in ``msg(...)`` calls:
``says`` in ``scoring/safety.toml`` (what a safety mark claims). Named in ``babel.cfg``, so ``pybabel extract``
and the catalogue test see them as they see the code's messages."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from typing import IO, Any


def extract_says(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: dict[str, Any]
                 ) -> Iterator[tuple[int, str, str, list[str]]]:
    """(line, funcname, message, comments) for each ``says`` of a TOML file's tables, as Babel's extractors give."""
    text = fileobj.read().decode("utf-8")
    for key, row in tomllib.loads(text).items():
        if isinstance(row, dict) and isinstance(row.get("says"), str):
            line = next((n for n, ln in enumerate(text.splitlines(), 1) if ln.strip() == f"[{key}]"), 0)
            yield line, "msg", row["says"], [f"safety.toml [{key}]"]
