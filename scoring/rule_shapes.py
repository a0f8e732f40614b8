"""What the hand-in-progress analysis needs from a rule system: the shapes a hand may win in, its size and its
minimum, with the options checked the way that system's scorer checks them (so a bad option is ``bad_option``
even for a hand that is far from winning and never reaches the scorer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mjlens.i18n import msg

from .decompose import Shapes
from .engine import rule_module
from .errors import HandError


@dataclass(frozen=True)
class RuleFacts:
    rules: str
    unit: str
    shapes: Shapes
    size: int  # a winning hand's tiles, a kong counted as three: 14, or 17 in Taiwan
    minimum: int | None  # the least a win must be worth (MCR 8 fan, the Guangdong house minimum), if any


def rule_facts(rules: str, options: dict[str, Any] | None) -> RuleFacts:
    """The facts of ``rules`` under ``options``; raises HandError (``unknown_rules``, ``bad_option``)."""
    module = rule_module(rules)
    if not isinstance(options, (dict, type(None))):
        raise HandError("bad_option", msg("options must be a JSON object"))
    options = options or {}
    if rules == "mcr":
        from .mcr.options import parse_options
        from .mcr.scorer import SHAPES

        return RuleFacts(rules, module.UNIT, SHAPES, 14, parse_options(options).minimum)
    if rules == "taiwan":
        from .taiwan import HAND_SIZE, shapes
        from .taiwan.options import parse_options as taiwan_options

        return RuleFacts(rules, module.UNIT, shapes(taiwan_options(options)), HAND_SIZE, None)
    if rules == "riichi":
        from .riichi.options import parse_options as riichi_options

        riichi_options(options)
        # four sets and a pair, seven pairs or thirteen orphans; a win needs a yaku (the scorer says no_yaku)
        return RuleFacts(rules, module.UNIT, Shapes(distinct_pairs=True), 14, None)
    from .cantonese import OPTIONS
    from .cantonese.rules import rules_for

    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise HandError("bad_option", msg("unknown option(s) for cantonese: {unknown}; known: {OPTIONS}",
                                          unknown=', '.join(unknown), OPTIONS=', '.join(OPTIONS)))
    table = rules_for(options.get("house_rules"))
    return RuleFacts(rules, module.UNIT, Shapes(seven_pairs=table.seven_pairs, thirteen_orphans=True), 14,
                     table.minimum)
