"""What ``mjlens waits`` and ``mjlens advise`` share: the same inputs as ``mjlens score`` (notation, ``--hand-json``,
``--jsonl``, context and option flags) plus what the player sees at the table (``--seen``, ``--discards``), and the
same exit codes: 0, or 2 with the error code on stderr for a bad hand."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Any

from mjlens.i18n import msg
from mjlens.i18n.os_errors import os_reason
from mjlens.scoring.advice import invalid
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand
from mjlens.scoring.notation import parse
from mjlens.scoring.sighting import Sighting

from ..lang import add_lang_flag, complain
from ..main import EXIT_BAD_INPUT, EXIT_OK, UsageError
from .context_flags import (
    add_context_flags,
    add_hand_source,
    add_option_flags,
    add_rules_flag,
    context_from_args,
    options_from_args,
)
from .score import _read

#: (hand, rules, options, sighting) -> the result JSON (``valid: false`` on bad input, never raises).
Question = Callable[[Hand | dict, str, dict[str, Any], Sighting], dict[str, Any]]


def add_flags(parser) -> None:
    add_hand_source(parser, "123m456p78s11z [555z]", msg("result"))
    add_rules_flag(parser)
    parser.add_argument("--json", action="store_true", help=msg("print the result JSON instead of a table"))
    add_lang_flag(parser)
    table = parser.add_argument_group(msg("what is in sight at the table"))
    table.add_argument("--seen", metavar="TILES", action="append", default=[],
                       help=msg("tiles in sight besides the hand (other players' melds...), in notation, e.g. "
                                "'[555z]19m'"))
    table.add_argument("--discards", metavar="SEAT=TILES", action="append", default=[],
                       help=msg("one seat's discards in the order played, e.g. S=19m5z (repeatable: one per seat)"))
    add_context_flags(parser)
    add_option_flags(parser)


def _tiles(text: str, flag: str) -> tuple[str, ...]:
    """Playing tiles written in notation (melds in brackets allowed; bonus tiles ignored)."""
    if not text.strip():
        return ()
    try:
        return tuple(parse(text).all_tiles())
    except HandError as err:
        raise HandError(err.code, msg("{flag}: {message}", flag=flag, message=err.message)) from None


def sighting_from_args(args) -> Sighting:
    """Raises HandError for tiles that do not parse, UsageError for a malformed ``--discards``."""
    seen: list[str] = []
    for text in args.seen:
        seen.extend(_tiles(text, "--seen"))
    discards: dict[str, tuple[str, ...]] = {}
    for pair in args.discards:
        seat, eq, text = pair.partition("=")
        seat = seat.strip().upper()
        if not eq or seat not in ("E", "S", "W", "N"):
            raise UsageError(msg("--discards wants SEAT=TILES with SEAT one of E, S, W, N, not {pair}",
                                 pair=repr(pair)))
        discards[seat] = discards.get(seat, ()) + _tiles(text, f"--discards {seat}")
    return Sighting(tuple(seen), discards)


def run_question(args, name: str, question: Question, show: Callable[[dict[str, Any], Hand, str], None],
                 hint: Callable[[dict[str, Any]], str | None] | None = None) -> int:
    """Answer ``question`` for the hand the flags give; ``hint`` may add a line to a refusal (what to ask instead)."""
    options = options_from_args(args)
    try:
        sighting = sighting_from_args(args)
    except HandError as err:
        return _fail(args, name, invalid(args.rules, err))
    if args.jsonl:
        return _run_jsonl(args, question, options, sighting)
    try:
        if args.hand_json:
            try:
                data = json.loads(_read(args.hand_json))
            except json.JSONDecodeError as err:
                raise HandError("bad_hand_json", msg("not JSON: {err}", err=err)) from None
            hand = Hand.from_json(data)
            hand = dataclasses.replace(hand, context=context_from_args(args, hand.context))
        elif args.hand:
            hand = parse(args.hand, context_from_args(args))
        else:
            raise UsageError(msg("give a hand in compact notation, --hand-json FILE or --jsonl FILE"))
    except HandError as err:
        return _fail(args, name, invalid(args.rules, err))
    result = question(hand, args.rules, options, sighting)
    if not result["valid"]:
        return _fail(args, name, result, hint(result) if hint else None)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        show(result, hand, args.lang)
    return EXIT_OK


def _fail(args, name: str, result: dict[str, Any], hint: str | None = None) -> int:
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    complain(name, result["error"]["code"], result["error"]["message"], args.lang, hint)
    return EXIT_BAD_INPUT


def answer_line(line: str, question: Question, rules: str, options: dict[str, Any], sighting: Sighting) -> str:
    """One Hand JSON line in, one result line out; a bad line becomes a ``valid: false`` result."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as err:
        result = invalid(rules, HandError("bad_hand_json", msg("not JSON: {err}", err=err)))
    else:
        result = question(data, rules, options, sighting)
    return json.dumps(result, ensure_ascii=False)


def _run_jsonl(args, question: Question, options: dict[str, Any], sighting: Sighting) -> int:
    if args.jsonl == "-":
        stream = sys.stdin
    else:
        try:
            stream = open(args.jsonl, encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as err:
            raise UsageError(msg("cannot read {jsonl}: {strerror}", jsonl=args.jsonl, strerror=os_reason(err))
                             ) from None
    try:
        for line in stream:
            if line.strip():
                sys.stdout.write(answer_line(line, question, args.rules, options, sighting) + "\n")
    finally:
        if stream is not sys.stdin:
            stream.close()
    sys.stdout.flush()
    return EXIT_OK
