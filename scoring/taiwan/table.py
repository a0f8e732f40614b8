"""The item table of the Taiwan scorer, read once from ``items.toml`` (data, not code).

Keeping the 36 items, their 台 and their replacement relations in a data file means a rule change is a
one-line edit that the tests and the documentation both see.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class ItemDef:
    """One scoring item: its number in the rule document, names, 台, and the items it replaces."""

    no: int
    key: str
    name_zh: str
    name_en: str
    value: int
    replaces: tuple[str, ...] = ()
    dealer: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "no": self.no, "name_zh": self.name_zh, "name_en": self.name_en,
                "value": self.value, "replaces": list(self.replaces), "dealer_only": self.dealer}


@lru_cache(maxsize=1)
def items() -> dict[str, ItemDef]:
    """Every item by key, in the order of the rule document."""
    text = resources.files(__package__).joinpath("items.toml").read_text(encoding="utf-8")
    table: dict[str, ItemDef] = {}
    for row in tomllib.loads(text)["item"]:
        item = ItemDef(row["no"], row["key"], row["name_zh"], row["name_en"], row["value"],
                       tuple(row.get("replaces", ())), bool(row.get("dealer", False)))
        table[item.key] = item
    for item in table.values():
        unknown = set(item.replaces) - set(table)
        if unknown:  # a typo in the data file must fail loudly, at import time of the first score
            raise ValueError(f"items.toml: {item.key} replaces unknown item(s) {sorted(unknown)}")
    return table
