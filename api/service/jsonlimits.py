"""Size and nesting limits on every JSON the service parses: request bodies and JSON form fields.

Python's ``json`` module recurses once per level of nesting, so a small body nested a few thousand deep raises
``RecursionError`` (a 500 if nobody catches it), and a deep structure that does parse makes every later walk
over it slow. A Hand JSON nests 4 deep; anything near the limit is not a hand.
"""

from __future__ import annotations

import json
from typing import Any

from mjlens.i18n import msg

from .errors import ApiError


class JsonLimitError(ValueError):
    """Nested deeper than the limit (or deep enough to exhaust the parser)."""


def nesting_depth(value: Any) -> int:
    """Levels of objects and arrays in a parsed JSON value (a scalar is 0), walked without recursion."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children)
    return deepest


def loads_limited(text: str | bytes, max_depth: int) -> Any:
    """``json.loads`` that raises JsonLimitError for nesting over ``max_depth`` (ValueError for bad JSON)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JsonLimitError(f"the JSON is nested too deep; the limit is {max_depth} levels") from None
    depth = nesting_depth(value)
    if depth > max_depth:
        raise JsonLimitError(f"the JSON is nested {depth} levels deep; the limit is {max_depth}")
    return value


def json_form_field(name: str, text: str, max_bytes: int, max_depth: int) -> Any:
    """A form field holding JSON, parsed within the limits; ApiError 400 otherwise."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ApiError(400, "bad_field", msg("'{name}' is {size} bytes; the limit is {max_bytes}",
                                             name=name, size=size, max_bytes=max_bytes))
    try:
        return loads_limited(text, max_depth)
    except JsonLimitError as err:
        raise ApiError(400, "bad_json", msg("'{name}': {err}", name=name, err=err)) from None
    except ValueError as err:
        raise ApiError(400, "bad_json", msg("'{name}' is not valid JSON: {err}", name=name, err=err)) from None
