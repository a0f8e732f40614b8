"""Scoring engine: tiles, notation, hand model, decomposition, waits and one module per rule system.

The public names below are imported on first use: the vision side needs only ``mjlens.scoring.tiles``, and
importing this package must not load every rule system with it (a photo read would wait for them).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Each public name and the module it lives in.
_EXPORTS = {"RULE_SYSTEMS": "engine", "catalog": "engine", "score": "engine", "HandError": "errors",
            "Context": "hand", "Hand": "hand", "Meld": "hand", "format_hand": "notation", "parse": "notation"}

__all__ = ["RULE_SYSTEMS", "Context", "Hand", "HandError", "Meld", "catalog", "format_hand", "parse", "score"]

if TYPE_CHECKING:
    from .engine import RULE_SYSTEMS, catalog, score
    from .errors import HandError
    from .hand import Context, Hand, Meld
    from .notation import format_hand, parse


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # looked up once
    return value
