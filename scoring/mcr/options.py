"""Scoring options of the mcr system: the discarder for the settlement, and the convention switches.

Every switch defaults to the Mahjong International League convention (what pymahjonggb computes); an
unknown key or a value of the wrong type is ``bad_option``. ``house_rules`` (what ``--house-rules FILE``
reads) holds the same keys at its top level, the one shape of an mcr house-rule file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError
from mjlens.scoring.tiles import WIND_LETTERS


@dataclass(frozen=True)
class Options:
    #: Seat (E/S/W/N) that discarded the winning tile; None: the player before the winner.
    discarder: str | None = None
    #: One concealed and one melded kong count 明暗槓 (5) instead of 暗槓 (2) + 明槓 (1).
    concealed_and_melded_kong: bool = True
    #: A tile of which all four copies are in the hand still counts as a tile waited on (so 單釣將 etc.
    #: need one wait besides it). False: such a "dead" wait is ignored.
    count_dead_waits: bool = True
    #: The stricter 1998 reading: 清么九 excludes 三同刻 too; 大三元, 小三元, 一色四同順, 一色四節高, 一色四步高 and
    #: 三風刻 exclude 缺一門; 七對 takes no 全大/全中/全小/大於五/小於五/綠一色/字一色/清么九/混么九.
    strict_1998: bool = False
    #: Fan needed to win, flowers not counted.
    minimum: int = 8


_BOOLS = ("concealed_and_melded_kong", "count_dead_waits", "strict_1998")
KNOWN = ("discarder", *_BOOLS, "minimum")


def parse_options(options: dict[str, Any] | None) -> Options:
    values: dict[str, Any] = {}
    merged, house = _flatten(options or {})
    for key, value in merged.items():
        if key not in KNOWN and key in house:
            raise HandError("bad_option", msg("unknown mcr house rule {key}: an mcr house-rule file holds "
                                              "option keys at its top level: {KNOWN}",
                                              key=repr(key), KNOWN=', '.join(KNOWN)))
        if key not in KNOWN:
            raise HandError("bad_option", msg("unknown mcr option {key}; known: {KNOWN}",
                                              key=repr(key), KNOWN=', '.join(KNOWN)))
        if key == "discarder":
            if value is not None and value not in WIND_LETTERS:
                raise HandError("bad_option", msg("'discarder' must be one of E, S, W, N, not {value}",
                                                  value=repr(value)))
        elif key == "minimum":
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 88:
                raise HandError("bad_option", msg("'minimum' must be a whole number 0..88, not {value}",
                                                  value=repr(value)))
        elif not isinstance(value, bool):
            raise HandError("bad_option", msg("{key} must be true or false, not {value}",
                                              key=repr(key), value=repr(value)))
        values[key] = value
    return Options(**values)


def _flatten(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Options with a ``house_rules`` table merged in (explicit options win), and that table."""
    if not isinstance(options, dict):
        raise HandError("bad_option", msg("options must be a JSON object"))
    out = dict(options)
    house = out.pop("house_rules", None)
    if house is None:
        return out, {}
    if not isinstance(house, dict):
        raise HandError("bad_option", msg("'house_rules' must be a table of options"))
    return {**house, **out}, house
