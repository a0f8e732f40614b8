"""Riichi rule options: the common online rules by default (``table.toml``), each changeable, checked the way
every rule system checks its options (an unknown key or a wrong type is ``bad_option``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mahjong.hand_calculating.hand_config import HandConstants, OptionalRules

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError
from mjlens.scoring.tiles import WIND_LETTERS

from .table import table

#: Options beside the rule switches: who discarded the winning tile, for the settlement of a win on a discard.
SETTLEMENT_OPTIONS = ("discarder",)


@dataclass(frozen=True)
class RiichiOptions:
    switches: dict[str, bool]
    discarder: str | None = None

    @property
    def red_fives(self) -> bool:
        return self.switches["red_fives"]

    def changed(self) -> dict[str, bool]:
        """The switches set away from their defaults, to show in the result."""
        rows = table().options
        return {k: v for k, v in self.switches.items() if v != rows[k].default}

    def optional_rules(self) -> OptionalRules:
        fields: dict[str, Any] = {}
        for key, row in table().options.items():
            value = self.switches[key]
            if row.rules_field == "kazoe_limit":
                fields["kazoe_limit"] = HandConstants.KAZOE_LIMITED if value else HandConstants.KAZOE_SANBAIMAN
            else:
                fields[row.rules_field] = value
        return OptionalRules(**fields)


def known_options() -> tuple[str, ...]:
    return (*table().options, *SETTLEMENT_OPTIONS)


def parse_options(options: dict[str, Any]) -> RiichiOptions:
    rows = table().options
    unknown = sorted(set(options) - set(known_options()))
    if unknown:
        raise HandError("bad_option", msg("unknown option(s) for riichi: {unknown}; known: {known}",
                                          unknown=', '.join(unknown), known=', '.join(known_options())))
    switches = {key: row.default for key, row in rows.items()}
    for key in rows:
        if key in options:
            if not isinstance(options[key], bool):
                raise HandError("bad_option", msg("riichi option '{key}' must be true or false, not {options}",
                                                  key=key, options=repr(options[key])))
            switches[key] = options[key]
    discarder = options.get("discarder")
    if discarder is not None and discarder not in WIND_LETTERS:
        raise HandError("bad_option", msg("'discarder' must be one of E, S, W, N, not {discarder}",
                                          discarder=repr(discarder)))
    return RiichiOptions(switches, discarder)
