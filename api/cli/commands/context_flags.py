"""Command-line flags for the win context and scoring options, shared by ``score`` and ``photo``."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from mjlens.i18n import msg
from mjlens.i18n.os_errors import os_reason
from mjlens.scoring.engine import RULE_SYSTEMS
from mjlens.scoring.hand import Context, context_from_json

from ..main import UsageError

#: flag -> (context key, help). Boolean flags set the key to true.
BOOLEAN_FLAGS = {
    "--self-drawn": ("self_drawn", msg("won by self-draw (自摸)")),
    "--last-tile": ("last_tile", msg("won on the last tile of the wall (海底)")),
    "--kong": ("kong_replacement", msg("won on a kong replacement tile (槓上開花)")),
    "--robbing-kong": ("robbing_kong", msg("won by robbing a kong (搶槓)")),
    "--last-of-kind": ("last_of_kind", msg("the winning tile was the last of its kind (絕張)")),
    "--heavenly": ("heavenly", msg("heavenly hand (天胡)")),
    "--earthly": ("earthly", msg("earthly hand (地胡)")),
    "--human": ("human", msg("human hand (人胡)")),
}

#: Riichi's boolean context flags (CONVENTIONS §2).
RIICHI_FLAGS = {
    "--riichi": ("riichi", msg("riichi declared (立直)")),
    "--double-riichi": ("double_riichi", msg("riichi declared on the first turn (ダブル立直)")),
    "--ippatsu": ("ippatsu", msg("won within one turn of riichi (一発)")),
}
#: Riichi's indicator flags: tiles as notation, commas allowed (``--dora 3m,5p``).
RIICHI_INDICATOR_FLAGS = {
    "--dora": ("dora_indicators", msg("dora indicators (ドラ表示牌), e.g. 3m,5p")),
    "--ura": ("ura_indicators", msg("ura dora indicators (裏ドラ表示牌) of a riichi win, e.g. 7s")),
}

#: The rule systems that take a house-rule file, each in its own shape (docs/rules/<system>.md).
HOUSE_RULE_SYSTEMS = ("mcr", "taiwan", "cantonese")


def add_rules_flag(parser) -> None:
    parser.add_argument("--rules", default="mcr", metavar="RULES", type=str.lower,
                        help=msg("rule system: {systems} (default mcr; any case)", systems=", ".join(RULE_SYSTEMS)))


def add_hand_source(parser, example: str, result: str) -> None:
    """Where a command's hand comes from: compact notation, one Hand JSON (``--hand-json``) or one per line
    (``--jsonl``, one ``result`` JSON per output line)."""
    parser.add_argument("hand", nargs="?", help=msg("the hand in compact notation, e.g. '{example}'", example=example))
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--hand-json", metavar="FILE", help=msg("read one Hand JSON from FILE (- for stdin)"))
    source.add_argument("--jsonl", metavar="FILE",
                        help=msg("one Hand JSON per line of FILE (- for stdin); one {result} JSON per output line",
                                 result=result))


def add_context_flags(parser) -> None:
    group = parser.add_argument_group(msg("win context"))
    for flag, (key, text) in BOOLEAN_FLAGS.items():
        group.add_argument(flag, dest=f"ctx_{key}", action="store_true", help=text)
    group.add_argument("--seat", dest="ctx_seat_wind", choices="ESWN", help=msg("seat wind (default E)"))
    group.add_argument("--round", dest="ctx_round_wind", choices="ESWN", help=msg("round wind (default E)"))
    dealer = group.add_mutually_exclusive_group()
    dealer.add_argument("--dealer", dest="ctx_dealer", action="store_true", default=None,
                        help=msg("the winner is dealer (default: when seated East)"))
    dealer.add_argument("--not-dealer", dest="ctx_dealer", action="store_false",
                        help=msg("the winner is not dealer (default: when not seated East)"))
    group.add_argument("--streak", dest="ctx_dealer_streak", type=int, metavar="N",
                       help=msg("dealer streak (連莊)"))
    group.add_argument("--ready", dest="ctx_declared_ready", action="store_true", default=None,
                       help=msg("declared ready (聽牌)"))
    riichi = parser.add_argument_group(msg("riichi context (--rules riichi; other systems ignore it, with a "
                                           "warning)"))
    for flag, (key, text) in RIICHI_FLAGS.items():
        riichi.add_argument(flag, dest=f"ctx_{key}", action="store_true", help=text)
    for flag, (key, text) in RIICHI_INDICATOR_FLAGS.items():
        riichi.add_argument(flag, dest=f"indicators_{key}", metavar="TILES", help=text)
    riichi.add_argument("--honba", dest="ctx_honba", type=int, metavar="N",
                        help=msg("honba sticks (本場), 300 each"))
    riichi.add_argument("--sticks", dest="ctx_riichi_sticks", type=int, metavar="N",
                        help=msg("riichi sticks on the table (供託), 1000 each to the winner"))


def add_option_flags(parser) -> None:
    group = parser.add_argument_group(msg("scoring options"))
    group.add_argument("--house-rules", metavar="FILE",
                       help=msg("TOML file of house rules (values that replace defaults), in the shape that "
                                "docs/rules/RULES.md gives for the rule system"))
    group.add_argument("--stakes", metavar="BASE/UNIT",
                       help=msg("Taiwan stakes 底/台值, e.g. 100/20 (--rules taiwan only)"))
    group.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help=msg("a scoring option (repeatable); VALUE is read as JSON when it can be"))


def context_from_args(args, base: Context | None = None) -> Context:
    """The context the flags describe, over ``base`` (e.g. the context inside a Hand JSON): a ``--seat`` decides
    who is dealer unless ``--dealer``/``--not-dealer`` or the base says it."""
    values: dict[str, Any] = base.given_json() if base else {}
    for name, value in vars(args).items():
        if name.startswith("ctx_") and value not in (None, False):
            values[name[4:]] = value
    if getattr(args, "ctx_dealer", None) is False:
        values["dealer"] = False
    values.update(indicators_from_args(args))
    return context_from_json(values)


def indicators_from_args(args) -> dict[str, list[str]]:
    """The indicator lists ``--dora`` and ``--ura`` give (only those given)."""
    values = {}
    for flag, (key, _) in RIICHI_INDICATOR_FLAGS.items():
        text = getattr(args, f"indicators_{key}", None)
        if text is not None:
            values[key] = indicator_tiles(text, flag)
    return values


def indicator_tiles(text: str, flag: str) -> list[str]:
    """Indicator tiles typed as notation, commas or spaces between them (``3m,5p``, ``35p``, ``0p``); the same
    tile may be typed twice (two indicators can show one tile)."""
    from mjlens.scoring.errors import HandError
    from mjlens.scoring.notation import parse

    tiles: list[str] = []
    for part in text.replace(",", " ").split():
        try:
            tiles.extend(parse(part).all_tiles())
        except HandError as err:
            raise HandError(err.code, msg("{flag}: {message}", flag=flag, message=err.message)) from None
    return tiles


def options_from_args(args) -> dict[str, Any]:
    """The scoring options the flags give. A flag that does not apply to ``--rules``, or a house-rule file in
    another system's shape, is refused here, naming the flag or the file rather than an option key."""
    options: dict[str, Any] = {}
    if args.house_rules:
        options["house_rules"] = _house_rules(args.house_rules, args.rules)
    if args.stakes:
        if args.rules != "taiwan":
            raise UsageError(msg("bad_option: --stakes (底/台值) applies to --rules taiwan only, not {rules}",
                                 rules=args.rules))
        options["stakes"] = args.stakes
    for pair in args.option:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise UsageError(msg("--option wants KEY=VALUE, not {pair}", pair=repr(pair)))
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def _house_rules(path: str, rules: str) -> dict[str, Any]:
    """The house-rule file at ``path``, checked against ``rules`` (a system that is not offered is left for the
    scorer to refuse with ``unknown_rules``)."""
    from mjlens.scoring.errors import HandError
    from mjlens.scoring.rule_shapes import rule_facts

    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise UsageError(msg("cannot read house rules {path}: {strerror}", path=path, strerror=os_reason(err))
                         ) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise UsageError(msg("bad_option: house rules {path} are not valid TOML: {err}", path=path, err=err)) from None
    if rules in HOUSE_RULE_SYSTEMS:
        try:
            rule_facts(rules, {"house_rules": table})
        except HandError as err:
            raise UsageError(msg("{code}: house rules {path} do not fit --rules {rules}: {message} (the "
                                 "file's shape: docs/rules/{rules}.md)",
                                 code=err.code, path=path, rules=rules, message=err.message)) from None
    return table

