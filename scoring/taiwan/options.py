"""Options (house rules) of the Taiwan scorer: parsed and checked once, so the scorer reads plain fields.

Every option is optional. An unknown key or a value of the wrong kind is ``bad_option``, never ignored:
a typo in a house rule would otherwise silently change a payment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError
from mjlens.scoring.tiles import WIND_LETTERS

from .table import items

BONUS_WINS = ("eight_immortals", "seven_rob_one")
READY_KINDS = ("heavenly", "earthly")
DEFAULT_BASE = 100
DEFAULT_PER_TAI = 20
_STAKES_TEXT = re.compile(r"^\s*(\d{1,9})\s*/\s*(\d{1,9})\s*$")

#: option key -> what it means (also the documentation of the accepted keys).
OPTION_KEYS = {
    "stakes": '底/台值: "100/20" or {"base": 100, "per_tai": 20} (default 100/20)',
    "dealer_seat": "E/S/W/N: the dealer's seat when the winner is not the dealer (default E)",
    "discarder": "E/S/W/N: who pays a win on a discard (or on a robbed kong / robbed flower)",
    "seven_pairs_pung": "true/false: accept 嚦咕嚦咕 (seven pairs and a pung), default true",
    "bonus_win": "null, 'eight_immortals' (八仙過海) or 'seven_rob_one' (七搶一): a win by flowers",
    "ready": "null, 'heavenly' (天聽) or 'earthly' (地聽): when the winner declared ready",
    "values": "{item key: 台}: house values that replace the table's",
    "house_rules": "an object holding any of these keys (from --house-rules FILE); direct options win",
}


@dataclass(frozen=True)
class Options:
    base: int = DEFAULT_BASE
    per_tai: int = DEFAULT_PER_TAI
    dealer_seat: str | None = None
    discarder: str | None = None
    seven_pairs_pung: bool = True
    bonus_win: str | None = None
    ready: str | None = None
    values: dict[str, int] = field(default_factory=dict)


def parse_options(raw: dict[str, Any] | None) -> Options:
    """Options from the JSON object the API or the command line passes; raises ``bad_option``."""
    raw = dict(raw or {})
    house = raw.pop("house_rules", None) or {}
    if not isinstance(house, dict):
        raise HandError("bad_option", msg("'house_rules' must be an object of options"))
    if "house_rules" in house:
        raise HandError("bad_option", msg("'house_rules' cannot nest"))
    merged = {**house, **raw}
    unknown_house = set(house) - set(OPTION_KEYS) - {"house_rules"}
    if unknown_house:
        raise HandError("bad_option", msg("unknown taiwan house rule(s): {unknown}; a taiwan house-rule file holds "
                                          "option keys at its top level and a [values] table: {known}",
                                          unknown=', '.join(sorted(map(str, unknown_house))),
                                          known=', '.join(k for k in OPTION_KEYS if k != 'house_rules')))
    unknown = set(merged) - set(OPTION_KEYS)
    if unknown:
        raise HandError("bad_option", msg("unknown taiwan option(s): {unknown}; known: {OPTION_KEYS}",
                                          unknown=', '.join(sorted(map(str, unknown))),
                                          OPTION_KEYS=', '.join(OPTION_KEYS)))
    base, per_tai = _stakes(merged.get("stakes"))
    return Options(
        base=base,
        per_tai=per_tai,
        dealer_seat=_seat(merged.get("dealer_seat"), "dealer_seat"),
        discarder=_seat(merged.get("discarder"), "discarder"),
        seven_pairs_pung=_flag(merged.get("seven_pairs_pung", True), "seven_pairs_pung"),
        bonus_win=_choice(merged.get("bonus_win"), BONUS_WINS, "bonus_win"),
        ready=_choice(merged.get("ready"), READY_KINDS, "ready"),
        values=_values(merged.get("values")),
    )


def _stakes(value: Any) -> tuple[int, int]:
    if value is None:
        return DEFAULT_BASE, DEFAULT_PER_TAI
    if isinstance(value, str):
        match = _STAKES_TEXT.match(value)
        if not match:
            raise HandError("bad_option", msg("stakes {value} must read BASE/PER_TAI, e.g. '100/20'",
                                              value=repr(value)))
        return int(match[1]), int(match[2])
    if isinstance(value, dict) and set(value) == {"base", "per_tai"}:
        base, per_tai = value["base"], value["per_tai"]
        if all(_whole(v) for v in (base, per_tai)):
            return base, per_tai
    raise HandError("bad_option", msg("stakes must be \"BASE/PER_TAI\" or {{\"base\": N, \"per_tai\": N}}, "
                                      "whole numbers >= 0"))


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10**9


def _seat(value: Any, name: str) -> str | None:
    if value is None or value in WIND_LETTERS:
        return value
    raise HandError("bad_option", msg("'{name}' must be one of E, S, W, N, not {value}", name=name, value=repr(value)))


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    raise HandError("bad_option", msg("'{name}' must be true or false, not {value}", name=name, value=repr(value)))


def _choice(value: Any, allowed: tuple[str, ...], name: str) -> str | None:
    if value is None or value in allowed:
        return value
    raise HandError("bad_option", msg("'{name}' must be null or one of {allowed}, not {value}",
                                      name=name, allowed=', '.join(allowed), value=repr(value)))


def _values(value: Any) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise HandError("bad_option", msg("'values' must map item keys to 台"))
    table = items()
    for key, tai in value.items():
        if key not in table:
            raise HandError("bad_option", msg("'values': {key} is not a taiwan item key", key=repr(key)))
        if not isinstance(tai, int) or isinstance(tai, bool) or not -100 <= tai <= 100:
            raise HandError("bad_option", msg("'values': {key} must be a whole number of 台 (-100..100)", key=key))
    return dict(value)
