"""Structured logs: one JSON object per line, each carrying the id of the request it belongs to.

The request id comes from the client's ``X-Request-ID`` header when it is a sane token, or is generated,
and is echoed on every answer so a user's bug report points at the exact log lines.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
import uuid
from typing import Any

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)

_RID_OK = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
#: LogRecord attributes that are not user-supplied ``extra`` fields.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON line: time, level, logger, message, request id and any ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid = request_id_var.get()
        if rid:
            out["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure(level: str = "INFO") -> None:
    """Send the ``mjlens`` loggers to stderr as JSON lines (idempotent)."""
    root = logging.getLogger("mjlens")
    root.setLevel(level)
    if not any(getattr(h, "_mjlens", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        handler._mjlens = True  # type: ignore[attr-defined]
        root.addHandler(handler)
        root.propagate = False


def new_request_id(incoming: str | None) -> str:
    return incoming if incoming and _RID_OK.match(incoming) else uuid.uuid4().hex
