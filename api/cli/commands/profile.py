"""``mjlens profile``: teach the reader a player's own tile set (docs/profiles.md).

``create`` makes a profile file from calibration photos (the set laid out face up in rows: 1m-9m, 1p-9p, 1s-9s,
1z-7z, 1f-8f, any row left out), from a labelled YOLO folder or from corrected readings; ``show`` says what one
holds. ``--profile FILE`` on ``recognize``, ``photo``, ``label``, ``eval`` and ``serve`` reads tiles with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mjlens.i18n import msg, pmsg, ptr, say, tr
from mjlens.i18n.os_errors import os_reason

from ..lang import add_lang_flag
from ..main import EXIT_OK, UsageError

#: What a profile is made from (``vision.profile.store.SOURCES``), as its summary names them, for the catalogue.
SOURCE_WORDS = (pmsg("profile source", "sheet"), pmsg("profile source", "labels"),
                pmsg("profile source", "corrections"))


def register(sub) -> None:
    parser = sub.add_parser("profile", help=msg("teach the reader your own tile set"),
                            description=msg("Make or show a profile of a tile set: what its tiles look like to the "
                                            "reader, so that --profile FILE reads that set better."))
    add_lang_flag(parser)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    create = actions.add_parser(
        "create", help=msg("make a profile from photos of the set laid out, labels or corrections"),
        description=msg("Make a profile. PHOTO: the set laid out face up in rows, top to bottom: 1m-9m, 1p-9p, "
                        "1s-9s, 1z-7z (E S W N, white, green, red), 1f-8f (seasons, then flowers); a row may be left "
                        "out (a set without flowers), none cut short. A photo that cannot be read as such rows is "
                        "refused with its reason and nothing is written."))
    create.add_argument("photos", nargs="*", metavar="PHOTO", help=msg("calibration photos of the set"))
    create.add_argument("--from-labels", metavar="DIR", type=Path, action="append", default=[],
                        help=msg("a YOLO folder of labelled photos of the set (e.g. mjlens label output, reviewed)"))
    create.add_argument("--from-corrections", metavar="FILE", type=Path, action="append", default=[],
                        help=msg("Recognition JSON lines whose tiles were corrected, such as the corrections.jsonl "
                                 "of mjlens label's review page (the photo named by each line's image, beside the "
                                 "file; a line with \"done\": false is skipped)"))
    create.add_argument("--out", metavar="FILE", type=Path, required=True,
                        help=msg("the profile file to write (.npz)"))
    create.add_argument("--json", action="store_true", help=msg("print the profile's summary as JSON"))
    create.add_argument("--model", metavar="PATH", help=msg("the ONNX tile detector (default: the shipped one)"))
    create.add_argument("--classifier", metavar="PATH",
                        help=msg("the ONNX crop classifier the profile is made for (default: the shipped one)"))
    add_lang_flag(create)
    create.set_defaults(run=run_create)
    show = actions.add_parser("show", help=msg("say what a profile holds"))
    show.add_argument("profile", metavar="FILE", type=Path)
    show.add_argument("--json", action="store_true", help=msg("print it as JSON"))
    add_lang_flag(show)
    show.set_defaults(run=run_show)


def _fail(err) -> UsageError:
    return UsageError(msg("{code}: {message}", code=err.code, message=err.message))


def run_create(args) -> int:
    from mjlens.vision.profile import ProfileError
    from mjlens.vision.profile.calibration import profile_from_sheets
    from mjlens.vision.profile.features import FeatureReader
    from mjlens.vision.profile.sources import profile_from_corrections, profile_from_labels
    from mjlens.vision.profile.store import NO_CHANGE
    from mjlens.vision.reading.reader import TwoStageDetector, load_tile_reader
    from mjlens.vision.runtime.decode import ImageError, load_image
    from mjlens.vision.runtime.detector import ModelError

    if not (args.photos or args.from_labels or args.from_corrections):
        raise UsageError(msg("give calibration photos, --from-labels DIR or --from-corrections FILE"))
    if args.out.is_dir():
        raise UsageError(msg("--out {path} is a directory: name the profile file", path=str(args.out)))
    try:
        reader = load_tile_reader(args.model, classifier=args.classifier)
    except ModelError as err:
        raise UsageError(err.message) from None
    if not isinstance(reader, TwoStageDetector):
        raise UsageError(msg("{code}: a profile is made for the crop classifier, not the detector alone",
                             code="profile_classifier"))
    try:
        features = FeatureReader(reader.classifier)
        parts = []
        for photo in args.photos:
            try:
                image = load_image(Path(photo).read_bytes(), target_side=reader.decode_side)
            except ImageError as err:
                raise UsageError(msg("{path}: {code}: {message}", path=photo, code=err.code, message=err.message)
                                 ) from None
            except OSError as err:
                raise UsageError(msg("{path}: cannot read: {reason}", path=photo, reason=os_reason(err))) from None
            try:
                parts.append(profile_from_sheets(reader, [image], features))
            except ProfileError as err:
                raise UsageError(msg("{path}: {code}: {message} (nothing written)", path=photo, code=err.code,
                                     message=err.message)) from None
        parts += [profile_from_labels(folder, features) for folder in args.from_labels]
        parts += [profile_from_corrections(path, features) for path in args.from_corrections]
        profile = parts[0]
        for part in parts[1:]:
            profile = profile.merged(part)
    except ProfileError as err:
        raise _fail(err) from None
    try:
        profile.save(args.out)
    except OSError as err:
        raise UsageError(msg("cannot write {path}: {reason}", path=str(args.out), reason=os_reason(err))) from None
    summary = {"profile": str(args.out), **profile.summary()}
    if args.json:
        json.dump(summary, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(tr(args.lang, "wrote {path}: {codes} codes, {examples} examples ({sources})", path=str(args.out),
                 codes=len(profile.codes), examples=summary["examples"], sources=_sources(profile, args.lang)))
    if profile.changes_no_reading():
        print(f"mjlens profile: {say(NO_CHANGE, args.lang)}", file=sys.stderr)
    return EXIT_OK


def run_show(args) -> int:
    from mjlens.vision.profile import Profile, ProfileError

    try:
        profile = Profile.load(args.profile)
    except ProfileError as err:
        raise _fail(err) from None
    summary = {"profile": str(args.profile), **profile.summary()}
    if args.json:
        json.dump(summary, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(tr(args.lang, "{path}: format version {version}, {examples} examples of {codes} codes ({sources})",
                 path=str(args.profile), version=summary["version"], examples=summary["examples"],
                 codes=len(profile.codes), sources=_sources(profile, args.lang)))
        print(tr(args.lang, "  codes: {codes}", codes=" ".join(profile.codes)))
    return EXIT_OK


def _sources(profile, lang: str) -> str:
    """Where a profile's examples came from, and whether it holds the whole set."""
    said = [tr(lang, "the whole set")] if profile.complete else []
    return tr(lang, ", ").join([*(ptr(lang, "profile source", source) for source in profile.sources), *said])
