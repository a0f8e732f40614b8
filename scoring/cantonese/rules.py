"""The 雞平和 table (``table.toml``) and house rules laid over it.

The table is data so that a table can play its own values: a house-rule TOML (``--house-rules FILE``, passed
to the scorer as ``options["house_rules"]``) replaces any value of ``[rules]``, ``[values]`` and
``[settlement]``. Every key and value is checked, because a typo in a house-rule file must not silently
score with the default.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError

KINDS = ("base", "addition", "limit", "floor")
#: Largest 番 any value may take: 2^13 points is far above every published table.
MAX_FAN = 13

#: [rules] key -> (type, lowest, highest); bool keys have no range.
RULE_KEYS: dict[str, tuple[type, int, int]] = {
    "cap": (int, 0, MAX_FAN),
    "floor": (int, 0, MAX_FAN),
    "minimum": (int, 0, MAX_FAN),
    "seven_pairs": (bool, 0, 0),
}
SETTLEMENT_KEYS: dict[str, tuple[type, int, int]] = {
    "discard_multiplier": (int, 1, 3),
    "self_drawn_multiplier": (int, 1, 3),
}
HOUSE_SECTIONS = ("rules", "values", "settlement")


@dataclass(frozen=True)
class ItemDef:
    """One row of the table: a pattern, an addition, a limit hand or a 3-番 situation."""

    key: str
    name_zh: str
    name_en: str
    kind: str
    value: int = 0
    excludes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rules:
    """The table in force for one scoring call: defaults with house rules applied."""

    items: dict[str, ItemDef]
    cap: int = 3
    floor: int = 3
    minimum: int = 0
    seven_pairs: bool = False
    discard_multiplier: int = 1
    self_drawn_multiplier: int = 1
    overrides: dict[str, Any] = field(default_factory=dict)

    def value(self, key: str) -> int:
        return self.items[key].value


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    text = resources.files("mjlens.scoring.cantonese").joinpath("table.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@lru_cache(maxsize=1)
def default_rules() -> Rules:
    table = _table()
    items = {}
    for key, row in table["items"].items():
        if row["kind"] not in KINDS:
            raise ValueError(f"table.toml: item {key} has unknown kind {row['kind']!r}")
        items[key] = ItemDef(key, row["name_zh"], row["name_en"], row["kind"], int(row.get("value", 0)),
                             tuple(row.get("excludes", ())))
    return Rules(items=items, **table["rules"], **table["settlement"])


def _checked(section: str, key: str, value: Any, spec: tuple[type, int, int]) -> Any:
    kind, low, high = spec
    where = msg("house rule [{section}] {key}", section=section, key=key)
    if kind is bool:
        if not isinstance(value, bool):
            raise HandError("bad_option", msg("{where} must be true or false, not {value}",
                                              where=where, value=repr(value)))
        return value
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise HandError("bad_option", msg("{where} must be a whole number {low}..{high}, not {value}",
                                          where=where, low=low, high=high, value=repr(value)))
    return value


def rules_for(house: Any) -> Rules:
    """The defaults with ``house`` (parsed house-rule TOML, or None) applied; bad keys/values -> ``bad_option``."""
    base = default_rules()
    if house is None:
        return base
    if not isinstance(house, dict):
        raise HandError("bad_option", msg("house_rules must be a table of [rules], [values] and [settlement]"))
    unknown = sorted(set(house) - set(HOUSE_SECTIONS))
    if unknown:
        raise HandError("bad_option", msg("unknown house-rule section(s) {unknown}; known: {HOUSE_SECTIONS}",
                                          unknown=', '.join(unknown), HOUSE_SECTIONS=', '.join(HOUSE_SECTIONS)))
    changes: dict[str, Any] = {}
    items = dict(base.items)
    for section in HOUSE_SECTIONS:
        table = house.get(section, {})
        if not isinstance(table, dict):
            raise HandError("bad_option", msg("house rule [{section}] must be a table of key = value",
                                              section=section))
        if section == "values":
            valued = sorted(k for k, d in base.items.items() if d.kind != "floor")
            for key, value in table.items():
                if key not in valued:
                    raise HandError("bad_option", msg("unknown item {key} in house rule [values]; known: "
                                                      "{valued}", key=repr(key), valued=', '.join(valued)))
                value = _checked(section, key, value, (int, 0, MAX_FAN))
                items[key] = replace(base.items[key], value=value)
            continue
        specs = RULE_KEYS if section == "rules" else SETTLEMENT_KEYS
        for key, value in table.items():
            if key not in specs:
                raise HandError("bad_option", msg("unknown key {key} in house rule [{section}]; known: {specs}",
                                                  key=repr(key), section=section, specs=', '.join(specs)))
            changes[key] = _checked(section, key, value, specs[key])
    return Rules(
        items=items,
        cap=changes.get("cap", base.cap),
        floor=changes.get("floor", base.floor),
        minimum=changes.get("minimum", base.minimum),
        seven_pairs=changes.get("seven_pairs", base.seven_pairs),
        discard_multiplier=changes.get("discard_multiplier", base.discard_multiplier),
        self_drawn_multiplier=changes.get("self_drawn_multiplier", base.self_drawn_multiplier),
        overrides={s: dict(house[s]) for s in HOUSE_SECTIONS if house.get(s)},
    )
