"""``mjlens profile``: teach the reader a player's own tile set (docs/profiles.md).

``create`` makes a profile file from calibration photos (the set laid out face up in rows: 1m-9m, 1p-9p, 1s-9s,
1z-7z, 1f-8f, any row left out), from a labelled YOLO folder or from corrected readings; ``show`` says what one
holds. ``--profile FILE`` on ``recognize``, ``photo``, ``label``, ``eval`` and ``serve`` reads tiles with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..main import EXIT_OK, UsageError


def register(sub) -> None:
    parser = sub.add_parser("profile", help="teach the reader your own tile set",
                            description="Make or show a profile of a tile set: what its tiles look like to the "
                                        "reader, so that --profile FILE reads that set better.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    create = actions.add_parser(
        "create", help="make a profile from photos of the set laid out, labels or corrections",
        description="Make a profile. PHOTO: the set laid out face up in rows, top to bottom: 1m-9m, 1p-9p, 1s-9s, "
                    "1z-7z (E S W N, white, green, red), 1f-8f (seasons, then flowers); a row may be left out (a "
                    "set without flowers), none cut short. A photo that cannot be read as such rows is refused "
                    "with its reason and nothing is written.")
    create.add_argument("photos", nargs="*", metavar="PHOTO", help="calibration photos of the set")
    create.add_argument("--from-labels", metavar="DIR", type=Path, action="append", default=[],
                        help="a YOLO folder of labelled photos of the set (e.g. mjlens label output, reviewed)")
    create.add_argument("--from-corrections", metavar="FILE", type=Path, action="append", default=[],
                        help="Recognition JSON lines whose tiles were corrected, such as the corrections.jsonl of "
                             "mjlens label's review page (the photo named by each line's image, beside the file; "
                             "a line with \"done\": false is skipped)")
    create.add_argument("--out", metavar="FILE", type=Path, required=True, help="the profile file to write (.npz)")
    create.add_argument("--json", action="store_true", help="print the profile's summary as JSON")
    create.add_argument("--model", metavar="PATH", help="the ONNX tile detector (default: the shipped one)")
    create.add_argument("--classifier", metavar="PATH", help="the ONNX crop classifier the profile is made for "
                                                             "(default: the shipped one)")
    create.set_defaults(run=run_create)
    show = actions.add_parser("show", help="say what a profile holds")
    show.add_argument("profile", metavar="FILE", type=Path)
    show.add_argument("--json", action="store_true", help="print it as JSON")
    show.set_defaults(run=run_show)


def _fail(err) -> UsageError:
    return UsageError(f"{err.code}: {err.message}")


def run_create(args) -> int:
    from mjlens.vision.profile import ProfileError
    from mjlens.vision.profile.calibration import profile_from_sheets
    from mjlens.vision.profile.features import FeatureReader
    from mjlens.vision.profile.sources import profile_from_corrections, profile_from_labels
    from mjlens.vision.reading.reader import TwoStageDetector, load_tile_reader
    from mjlens.vision.runtime.decode import ImageError, load_image
    from mjlens.vision.runtime.detector import ModelError

    if not (args.photos or args.from_labels or args.from_corrections):
        raise UsageError("give calibration photos, --from-labels DIR or --from-corrections FILE")
    if args.out.is_dir():
        raise UsageError(f"--out {args.out} is a directory: name the profile file")
    try:
        reader = load_tile_reader(args.model, classifier=args.classifier)
    except ModelError as err:
        raise UsageError(err.message) from None
    if not isinstance(reader, TwoStageDetector):
        raise UsageError("profile_classifier: a profile is made for the crop classifier, not the detector alone")
    try:
        features = FeatureReader(reader.classifier)
        parts = []
        for photo in args.photos:
            try:
                image = load_image(Path(photo).read_bytes(), target_side=reader.decode_side)
            except ImageError as err:
                raise UsageError(f"{photo}: {err.code}: {err.message}") from None
            except OSError as err:
                raise UsageError(f"{photo}: cannot read: {err.strerror}") from None
            try:
                parts.append(profile_from_sheets(reader, [image], features))
            except ProfileError as err:
                raise UsageError(f"{photo}: {err.code}: {err.message} (nothing written)") from None
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
        raise UsageError(f"cannot write {args.out}: {err.strerror}") from None
    summary = {"profile": str(args.out), **profile.summary()}
    if args.json:
        json.dump(summary, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(f"wrote {args.out}: {len(profile.codes)} codes, {summary['examples']} examples "
              f"({', '.join(profile.sources)}{', the whole set' if profile.complete else ''})")
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
        print(f"{args.profile}: format version {summary['version']}, {summary['examples']} examples of "
              f"{len(profile.codes)} codes ({', '.join(profile.sources)}"
              f"{', the whole set' if profile.complete else ''})")
        print("  codes: " + " ".join(profile.codes))
    return EXIT_OK
