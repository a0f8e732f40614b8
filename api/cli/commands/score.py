"""``mjlens score``: score a hand typed in compact notation, read as Hand JSON, or a stream of them (JSONL)."""

from __future__ import annotations

import dataclasses
import json
import sys
from functools import partial
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from mjlens.i18n import msg
from mjlens.i18n.os_errors import os_reason
from mjlens.scoring.engine import score
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand
from mjlens.scoring.notation import parse
from mjlens.scoring.result import ScoreResult

from ..lang import add_lang_flag, complain
from ..main import EXIT_BAD_INPUT, EXIT_OK, UsageError
from ..render import print_score
from .context_flags import (
    add_context_flags,
    add_hand_source,
    add_option_flags,
    add_rules_flag,
    context_from_args,
    options_from_args,
)


def register(sub) -> None:
    parser = sub.add_parser("score", help=msg("score a hand given in compact notation or Hand JSON"),
                            description=msg("Score a winning hand. Example: {example}",
                                            example="mjlens score '123m456p78s11z [555z] +9s' --rules mcr "
                                                    "--self-drawn"))
    add_hand_source(parser, "123m456p78s11z [555z] 1f +9s", "Score")
    add_rules_flag(parser)
    parser.add_argument("--json", action="store_true", help=msg("print the Score JSON instead of a table"))
    add_lang_flag(parser)
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help=msg("processes for --jsonl (default 1)"))
    add_context_flags(parser)
    add_option_flags(parser)
    parser.set_defaults(run=run)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise UsageError(msg("cannot read {path}: {strerror}", path=path, strerror=os_reason(err))) from None
    except UnicodeDecodeError:
        raise UsageError(msg("{path} is not UTF-8 text", path=path)) from None


def run(args) -> int:
    options = options_from_args(args)
    if args.jsonl:
        return _run_jsonl(args, options)
    if args.hand_json:
        try:
            data = json.loads(_read(args.hand_json))
        except json.JSONDecodeError as err:
            return _fail(args, ScoreResult.invalid(args.rules, HandError("bad_hand_json", msg("not JSON: {err}",
                                                                                              err=err))))
        try:
            hand = Hand.from_json(data)
            hand = dataclasses.replace(hand, context=context_from_args(args, hand.context))
        except HandError as err:
            return _fail(args, ScoreResult.invalid(args.rules, err))
    elif args.hand:
        try:
            hand = parse(args.hand, context_from_args(args))
        except HandError as err:
            return _fail(args, ScoreResult.invalid(args.rules, err))
    else:
        raise UsageError(msg("give a hand in compact notation, --hand-json FILE or --jsonl FILE"))
    result = score(hand, args.rules, options)
    if not result.valid:
        if result.items and not args.json:  # below the minimum: still show what the hand is worth
            print_score(result, hand, args.lang)
        return _fail(args, result)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print_score(result, hand, args.lang)
    return EXIT_OK


def _fail(args, result: ScoreResult) -> int:
    assert result.error is not None
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    complain("score", result.error.code, result.error.message, args.lang)
    return EXIT_BAD_INPUT


def score_line(line: str, rules: str, options: dict[str, Any]) -> str:
    """One JSONL line in, one Score JSON line out; a bad line becomes a ``valid: false`` result."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as err:
        result = ScoreResult.invalid(rules, HandError("bad_hand_json", msg("not JSON: {err}", err=err)))
    else:
        result = score(data, rules, options)
    return json.dumps(result.to_json(), ensure_ascii=False)


def _run_jsonl(args, options: dict[str, Any]) -> int:
    stream = sys.stdin if args.jsonl == "-" else None
    if stream is None:
        try:
            stream = open(args.jsonl, encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as err:
            raise UsageError(msg("cannot read {jsonl}: {strerror}", jsonl=args.jsonl, strerror=os_reason(err))
                             ) from None
    lines = (line for line in stream if line.strip())
    work = partial(score_line, rules=args.rules, options=options)
    out = sys.stdout
    try:
        if args.workers > 1:
            with Pool(args.workers) as pool:
                for text in pool.imap(work, lines, chunksize=256):
                    out.write(text + "\n")
        else:
            for line in lines:
                out.write(work(line) + "\n")
    finally:
        if stream is not sys.stdin:
            stream.close()
    out.flush()
    return EXIT_OK
