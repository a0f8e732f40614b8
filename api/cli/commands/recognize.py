"""``mjlens recognize``: read the tiles in one or more photos (Recognition JSON, CONVENTIONS §4)."""

from __future__ import annotations

import json
import sys
from functools import partial

from mjlens.i18n import msg, pmsg, ptr, say, tr
from mjlens.i18n.os_errors import os_reason
from mjlens.vision.runtime import core_use  # noqa: F401 - imported first: it counts the cores' use from here

from ..lang import add_lang_flag
from ..main import EXIT_BAD_INPUT, EXIT_OK, UsageError

#: A group's role and a meld's kind as the listing names them, listed for the catalogue.
GROUP_WORDS = (pmsg("role", "concealed"), pmsg("role", "winning"), pmsg("role", "meld"), pmsg("role", "flowers"),
               pmsg("role", "dora"), pmsg("role", "other"), pmsg("kind", "chow"), pmsg("kind", "pung"),
               pmsg("kind", "kong"))


def register(sub) -> None:
    parser = sub.add_parser(
        "recognize", help=msg("read the tiles in photos"),
        description=msg("Read the mahjong tiles in each photo. With --json, print a JSON list holding one "
                        "Recognition JSON per photo (a photo that cannot be read gives {{\"image\", \"error\"}} in "
                        "its place)."))
    parser.add_argument("images", nargs="+", metavar="IMAGE", help=msg("JPEG, PNG, WebP or HEIC photos"))
    parser.add_argument("--json", action="store_true", help=msg("print a JSON list instead of a listing"))
    add_lang_flag(parser)
    parser.add_argument("--workers", type=int, metavar="N",
                        help=msg("photos read at once, the cores shared among them (default: one a core when the "
                                 "cores are free, else one)"))
    add_model_flags(parser)
    parser.set_defaults(run=run)


def add_model_flags(parser) -> None:
    """``--model``, ``--conf``, ``--bonus-conf``, ``--back-conf``, ``--classifier``, ``--input-size`` and
    ``--profile``, shared with ``mjlens eval``, ``mjlens photo`` and ``mjlens label``."""
    parser.add_argument("--model", metavar="PATH",
                        help=msg("the ONNX tile model (default: $MJLENS_MODEL, else models/mjlens-tiles.onnx)"))
    parser.add_argument("--conf", type=float, metavar="P",
                        help=msg("confidence threshold (default: the tuned one); with the crop classifier, the least "
                                 "chance of a tile times the probability of its code"))
    parser.add_argument("--bonus-conf", type=float, metavar="P",
                        help=msg("with the crop classifier, the same threshold for flowers and seasons (default: the "
                                 "tuned one, or --conf where that is lower)"))
    parser.add_argument("--back-conf", type=float, metavar="P",
                        help=msg("with the crop classifier, the same threshold for face-down tiles (default: the "
                                 "tuned one, or --conf where that is lower)"))
    parser.add_argument("--classifier", metavar="PATH",
                        help=msg("the ONNX crop classifier that names each tile, or none for the detector alone "
                                 "(default: $MJLENS_CLASSIFIER, else models/mjlens-tile-crops.onnx with the shipped "
                                 "detector)"))
    parser.add_argument("--input-size", type=int, metavar="PX",
                        help=msg("longest side of the detector's input, for a model exported with a dynamic input "
                                 "(default: the tuned one)"))
    parser.add_argument("--profile", metavar="FILE",
                        help=msg("a profile of your tile set (mjlens profile create), read alongside the crop "
                                 "classifier"))


def check_model_flags(args) -> None:
    """Refuse out-of-range ``--conf``, ``--bonus-conf``, ``--back-conf`` and ``--input-size`` (exit 2)."""
    for flag, value in (("--conf", args.conf), ("--bonus-conf", args.bonus_conf), ("--back-conf", args.back_conf)):
        if value is not None and not 0.0 < value < 1.0:
            raise UsageError(msg("{flag} must be between 0 and 1", flag=flag))
    if args.input_size is not None and not 32 <= args.input_size <= 4096:
        raise UsageError(msg("--input-size must be between 32 and 4096 pixels"))


def load_recognizer(args, threads: int | None = None):
    """The recognizer for ``args`` (its models run on ``threads`` threads, by default every core); a missing or
    unreadable model is a usage error (exit 2) with its reason."""
    from mjlens.vision.profile import ProfileError
    from mjlens.vision.recognize import Recognizer
    from mjlens.vision.runtime.detector import ModelError

    check_model_flags(args)
    try:
        return Recognizer(args.model, conf=args.conf, bonus_conf=args.bonus_conf, back_conf=args.back_conf,
                          classifier=args.classifier, input_size=args.input_size, profile=args.profile,
                          threads=threads)
    except ModelError as err:
        raise UsageError(err.message) from None
    except ProfileError as err:
        raise UsageError(msg("--profile: {code}: {message}", code=err.code, message=err.message)) from None


def run(args) -> int:
    import mjlens.vision.recognize  # noqa: F401 - its imports are the span over which the cores' use is measured
    from mjlens.vision.runtime.sessions import default_threads, default_workers

    from ..inorder import map_in_order

    if args.workers is not None and args.workers < 1:
        raise UsageError(msg("--workers must be at least 1"))
    # On free cores several photos are read at once, each on its share of them (sessions.default_workers); the
    # readings are the same either way, and one photo keeps every core.
    workers = min(args.workers or default_workers(), len(args.images))
    recognizer = load_recognizer(args, threads=default_threads(workers))
    results, failed = [], 0
    for path, (result, error) in zip(args.images, map_in_order(partial(_read, recognizer), args.images, workers),
                                     strict=True):
        if error is not None:
            failed += 1
            print(f"mjlens recognize: {path}: {say(error, args.lang)}", file=sys.stderr)
            results.append({"image": path, "error": result})
            continue
        results.append(result)
        if not args.json:
            print_recognition(result, args.lang)
    if args.json:
        json.dump(results, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    return EXIT_BAD_INPUT if failed else EXIT_OK


def _read(recognizer, path: str) -> tuple[dict, str | None]:
    """One photo's Recognition JSON and None, or its error object and the line that says it."""
    from mjlens.vision.runtime.decode import ImageError

    try:
        return recognizer.recognize_path(path), None
    except ImageError as err:
        return err.to_json(), msg("{code}: {message}", code=err.code, message=err.message)
    except OSError as err:
        return ({"code": "unreadable_file", "message": os_reason(err)},
                msg("cannot read: {reason}", reason=os_reason(err)))


def print_recognition(result: dict, lang: str = "en") -> None:
    """A listing for people: the tiles group by group, the hand in compact notation, the warnings."""
    from mjlens.scoring.errors import HandError
    from mjlens.scoring.hand import Hand
    from mjlens.scoring.notation import format_hand

    tiles = result["tiles"]
    print(tr(lang, "{image} ({width}x{height}): {count} tiles", image=result["image"], width=result["width"],
             height=result["height"], count=len(tiles)))
    for g, group in enumerate(result["groups"]):
        codes = " ".join(tiles[i]["code"] for i in group.get("tiles", ()))
        label = " ".join(ptr(lang, k, str(group[k])) for k in ("role", "kind") if group.get(k))
        print(tr(lang, "  group {number} {label}: {codes}", number=g, label=label, codes=codes))
    ungrouped = [t for t in tiles if t["group"] is None]
    if ungrouped:
        print(tr(lang, "  tiles: {tiles}", tiles=" ".join(f"{t['code']}({t['confidence']:.2f})" for t in ungrouped)))
    if result["hand"] is not None:
        try:
            print(tr(lang, "  hand: {hand}", hand=format_hand(Hand.from_json(result["hand"]))))
        except HandError as err:
            print(tr(lang, "  hand: (not a legal hand: {message})", message=err.message))
    for warning in result["warnings"]:
        print(tr(lang, "  warning: {warning}", warning=warning))
