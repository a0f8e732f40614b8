"""``mjlens photo IMAGE --rules RULES``: read the tiles in a photo, then score the hand they make.

``--json`` prints the same object as ``POST /v1/photo-score`` (``{"recognition", "score"}``, and ``waits`` or
``advice`` when the hand does not win); without it, the tiles and the score table for people, or the waits of a
hand one tile short, or the advice for one with a tile too many. Context flags override what the photo cannot
show (self-draw, winds...).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mjlens.i18n import Message, msg, say
from mjlens.i18n.os_errors import os_reason

from ..lang import add_lang_flag, complain
from ..main import EXIT_BAD_INPUT, EXIT_OK, UsageError
from .context_flags import (
    add_context_flags,
    add_option_flags,
    add_rules_flag,
    indicators_from_args,
    options_from_args,
)
from .recognize import add_model_flags, load_recognizer, print_recognition


def register(sub) -> None:
    parser = sub.add_parser("photo", help=msg("read the tiles in a photo and score the hand"),
                            description=msg("Recognize the tiles in a photo of a winning hand, then score it. "
                                            "Example: {example}",
                                            example="mjlens photo table.jpg --rules taiwan --self-drawn --seat S"))
    parser.add_argument("image", metavar="IMAGE", help=msg("a JPEG, PNG, WebP or HEIC photo"))
    add_rules_flag(parser)
    parser.add_argument("--json", action="store_true",
                        help=msg("print {{recognition, score}} as JSON (as the HTTP API)"))
    add_lang_flag(parser)
    # not --kong: that flag says the win came on a kong's replacement tile (context_flags.py)
    parser.add_argument("--kong-tile", dest="kongs", action="append", default=[], metavar="CODE",
                        help=msg("the tile of a concealed kong laid with all four tiles face down, which the "
                                 "photo cannot show (asked by the warning face_down_kong); once per such kong, in "
                                 "order"))
    add_context_flags(parser)
    add_option_flags(parser)
    add_model_flags(parser)
    parser.set_defaults(run=run)


#: Refusals of a photo's hand that a tile misread or missed may cause, and what to do about one.
MISREAD_CODES = ("tile_count", "not_winning", "too_many_copies")
def misread_hint(rules: str) -> Message:
    return msg("a tile may be misread or missed: correct it on the phone page (mjlens serve), or type the hand as "
               "it is: mjlens score 'NOTATION' --rules {rules}", rules=rules)


def context_overrides(args) -> dict[str, Any]:
    """Only the context keys a flag was given for: the rest stays as the photo's hand has it."""
    values = {name[4:]: value for name, value in vars(args).items()
              if name.startswith("ctx_") and value not in (None, False)}
    if getattr(args, "ctx_dealer", None) is False:
        values["dealer"] = False
    return {**values, **indicators_from_args(args)}


def run(args) -> int:
    from mjlens.api.service.analysis import hand_in_progress
    from mjlens.api.service.pipeline import check_request, photo_score_result, with_kongs
    from mjlens.scoring.errors import HandError
    from mjlens.scoring.hand import Hand
    from mjlens.vision.runtime.decode import ImageError

    from ..render import print_score
    from ..render_analysis import print_advice, print_waits

    options = options_from_args(args)
    try:
        context = context_overrides(args)
        check_request(args.rules, context, args.kongs)
    except HandError as err:
        raise UsageError(msg("{code}: {message}", code=err.code, message=err.message)) from None
    recognizer = load_recognizer(args)
    try:
        recognition = recognizer.recognize_path(args.image)
    except ImageError as err:
        raise UsageError(msg("{image}: {code}: {message}", image=args.image, code=err.code,
                             message=err.message)) from None
    except OSError as err:
        raise UsageError(msg("cannot read {image}: {reason}", image=args.image, reason=os_reason(err))) from None
    recognition, result = photo_score_result(with_kongs(recognition, args.kongs), args.rules, context, options)
    in_progress = hand_in_progress(recognition.get("hand"), args.rules, options, result)
    if args.json:
        print(json.dumps({"recognition": recognition, "score": result.to_json(), **in_progress},
                         ensure_ascii=False))
    else:
        print_recognition(recognition, args.lang)
        hand = None
        if recognition.get("hand"):
            try:
                hand = Hand.from_json(recognition["hand"])
            except HandError:
                hand = None
        if result.valid:
            print_score(result, hand, args.lang)
        elif hand is not None:
            for key, show in (("waits", print_waits), ("advice", print_advice)):
                if in_progress.get(key, {}).get("valid"):
                    show(in_progress[key], hand, lang=args.lang)
    if not result.valid:
        assert result.error is not None
        complain("photo", result.error.code, result.error.message, args.lang)
        if result.error.code in MISREAD_CODES and recognition.get("hand"):
            print(f"mjlens photo: {say(misread_hint(args.rules), args.lang)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
