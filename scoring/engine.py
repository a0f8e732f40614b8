"""One entry point for every rule system: ``score(hand, rules, options)`` never raises on bad input.

Each rule system is a module with ``NAME``, ``UNIT``, ``score_hand(hand, options) -> ScoreResult`` (which may
raise HandError) and ``catalog() -> list[dict]`` (its items, for ``GET /v1/rules``). The engine adds what all
share: the unknown-winning-tile search, and turning errors into ``"valid": false`` results.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from mjlens.i18n import msg

from .errors import HandError
from .hand import Hand
from .result import ScoreResult
from .tiles import sort_key

#: Rule system name -> module that implements it, with its names for people.
RULE_SYSTEMS: dict[str, dict[str, str]] = {
    "mcr": {"module": "mjlens.scoring.mcr", "name_en": "Chinese Official (MCR)", "name_zh": "國標麻將"},
    "taiwan": {"module": "mjlens.scoring.taiwan", "name_en": "Taiwan 16-tile", "name_zh": "台灣十六張"},
    "cantonese": {"module": "mjlens.scoring.cantonese", "name_en": "Guangdong Chicken Hand", "name_zh": "廣東雞平和"},
    "riichi": {"module": "mjlens.scoring.riichi", "name_en": "Japanese Riichi", "name_zh": "日本立直麻將"},
}
#: Rule systems that play with red fives; every other one reads a red five as a five (CONVENTIONS §1).
RED_FIVE_SYSTEMS = ("riichi",)
#: Context keys only riichi reads (CONVENTIONS §2).
RIICHI_CONTEXT = ("riichi", "double_riichi", "ippatsu", "dora_indicators", "ura_indicators", "honba", "riichi_sticks")


def rule_module(rules: str) -> ModuleType:
    if rules not in RULE_SYSTEMS:
        raise HandError("unknown_rules", msg("unknown rule system {rules}; choose one of {RULE_SYSTEMS}",
                                             rules=repr(rules), RULE_SYSTEMS=', '.join(RULE_SYSTEMS)))
    return importlib.import_module(RULE_SYSTEMS[rules]["module"])


def score(hand: Hand | dict, rules: str, options: dict[str, Any] | None = None) -> ScoreResult:
    """Score a hand (a Hand or Hand JSON) under ``rules``. Bad input gives ``valid: false``, never an exception."""
    try:
        module = rule_module(rules)
    except HandError as err:
        return ScoreResult.invalid(rules, err)
    try:
        if not isinstance(hand, Hand):
            hand = Hand.from_json(hand)
        if not isinstance(options, (dict, type(None))):
            raise HandError("bad_option", msg("options must be a JSON object"))
        hand, notes = as_read_by(hand, rules)
        if hand.winning_tile is None:
            result = _best_reading(module, hand, options or {})
        else:
            result = module.score_hand(hand, options or {})
        result.warnings.extend(notes)
        mismatch = hand.context.dealer_mismatch()
        if mismatch:
            result.warnings.insert(0, mismatch)
        return result
    except HandError as err:
        return ScoreResult.invalid(rules, err, getattr(module, "UNIT", ""))


def as_read_by(hand: Hand, rules: str) -> tuple[Hand, list[str]]:
    """The hand as ``rules`` reads it (red fives as fives where it has none), and the warnings that says."""
    if rules in RED_FIVE_SYSTEMS:
        return hand, []
    given = [key for key in RIICHI_CONTEXT if getattr(hand.context, key)]
    notes = [msg("context {given}: riichi only, ignored under {rules}", given=", ".join(given), rules=rules)]
    return hand.with_plain_fives(), notes if given else []


def _best_reading(module: ModuleType, hand: Hand, options: dict[str, Any]) -> ScoreResult:
    """The winning tile is unknown: score every tile that could have been it and keep the best."""
    best: ScoreResult | None = None
    best_tile = None
    first_error: HandError | None = None
    for tile in sorted(set(hand.concealed), key=sort_key):
        try:
            result = module.score_hand(hand.with_winning_tile(tile), options)
        except HandError as err:
            if err.code in ("tile_count", "too_many_copies", "bad_option", "bad_context"):
                raise
            first_error = first_error or err
            continue
        if best is None or (result.valid, result.total) > (best.valid, best.total):
            best, best_tile = result, tile
    if best is None:
        raise first_error or HandError("not_winning", msg("the tiles do not form a winning hand"))
    best.warnings.insert(0, msg("winning tile unknown: scored the best reading, with {best_tile} as the "
                                "winning tile", best_tile=best_tile))
    best.extra["winning_tile"] = best_tile
    return best


def catalog() -> list[dict[str, Any]]:
    """Every rule system with its items (key, Chinese and English names, value), for apps to build screens."""
    out = []
    for name, info in RULE_SYSTEMS.items():
        module = rule_module(name)
        out.append({"rules": name, "name_en": info["name_en"], "name_zh": info["name_zh"],
                    "unit": module.UNIT, "items": module.catalog()})
    return out
