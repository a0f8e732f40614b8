"""The riichi names and option defaults in ``table.toml``: what `mahjong` finds, named in Japanese, English and
Chinese, and the rule options with their defaults."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("table.toml")


@dataclass(frozen=True)
class Names:
    ja: str
    en: str
    zh: str
    offered: bool = True


@dataclass(frozen=True)
class OptionRow:
    key: str
    default: bool
    rules_field: str  # the field of mahjong's OptionalRules it sets
    help: str


@dataclass(frozen=True)
class Table:
    yaku: dict[str, Names]
    fu: dict[str, Names]
    limit: dict[str, Names]
    options: dict[str, OptionRow]


def _names(rows: dict[str, dict[str, Any]]) -> dict[str, Names]:
    return {key: Names(row["ja"], row["en"], row["zh"], row.get("offered", True)) for key, row in rows.items()}


@lru_cache(maxsize=1)
def table() -> Table:
    data = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    options = {key: OptionRow(key, row["default"], row["rules_field"], row["help"])
               for key, row in data["options"].items()}
    return Table(_names(data["yaku"]), _names(data["fu"]), _names(data["limit"]), options)
