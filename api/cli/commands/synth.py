"""`mjlens synth`: write a seeded, reproducible synthetic YOLO dataset of winning hands on tables."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mjlens.i18n import msg, tr

from ..lang import add_lang_flag
from ..main import UsageError

#: The tile art folder when --art is not given: this variable, else (in a checkout of the repository) the shared
#: data beside it, then the sets vendored in it. An installed wheel ships no art: datasets/synthetic.md says where
#: each set comes from.
ART_ENV = "MJLENS_TILE_ART"
REPO = Path(__file__).resolve().parents[3]
ART_CANDIDATES = (REPO.parent / "shared" / "datasets" / "tile-art", REPO / "datasets" / "tile-art")


def default_art() -> Path | None:
    if os.environ.get(ART_ENV):
        return Path(os.environ[ART_ENV])
    return next((p for p in ART_CANDIDATES if (p / "README.md").is_file() or any(p.glob("*/1m.png"))), None)


def register(sub) -> None:
    parser = sub.add_parser(
        "synth",
        help=msg("generate synthetic photos of winning hands (YOLO labels + ground-truth hands)"),
        description=msg("Write DIR/images/*.jpg, DIR/labels/*.txt (43-class YOLO), DIR/hands/*.json (the "
                        "ground-truth hand and the role of every labelled tile) and DIR/data.yaml. The same --seed "
                        "gives the same files."),
    )
    parser.add_argument("--n", type=int, required=True, help=msg("number of images"))
    parser.add_argument("--out", type=Path, required=True, help=msg("output folder"))
    parser.add_argument("--seed", type=int, default=0, help=msg("random seed (default 0)"))
    parser.add_argument("--size", type=int, default=None,
                        help=msg("long side of each image in pixels (default 640)"))
    parser.add_argument("--art", type=Path, default=None,
                        help=msg("tile art folder, one folder per set with <code>.png (default: ${variable}, else "
                                 "the repository's; the sets and their sources: datasets/synthetic.md)",
                                 variable=ART_ENV))
    parser.add_argument("--workers", type=int, default=1,
                        help=msg("worker processes (output does not depend on it)"))
    parser.add_argument("--force", action="store_true",
                        help=msg("write into an output folder that already holds images"))
    parser.add_argument("--set", dest="art_set", metavar="NAME",
                        help=msg("draw every tile from this art set alone (a folder of --art), as a player's own "
                                 "table"))
    parser.add_argument("--sets", dest="set_group", choices=("general", "held-out"),
                        help=msg("draw from a group of sets, each as often: 'general' (every set but those no "
                                 "training run of the general reader sees) or 'held-out' (those: "
                                 "datasets/synthetic.md)"))
    parser.add_argument("--habits", action="store_true",
                        help=msg("scenes also show real table habits: an uneven gap inside the concealed row, the "
                                 "winning tile set apart modestly, another player's tiles in the background "
                                 "(labelled, not hand)"))
    parser.add_argument("--piles", action="store_true",
                        help=msg("scenes also show tiles in piles away from the hand: heaps turned any way, some "
                                 "tiles lying on others or face down (labelled where enough of the face shows), and "
                                 "tiles lying on their side (an edge shows, no face: never labelled)"))
    parser.add_argument("--standing", type=float, default=0.0, metavar="SHARE",
                        help=msg("this share of photos (0-1) shows the concealed row standing up, faces to the "
                                 "player, as a hand shown without laying it down, photographed low from the "
                                 "player's side (default 0)"))
    parser.add_argument("--restyle", type=float, default=0.0, metavar="SHARE",
                        help=msg("this share of photos (0-1) shows its set printed another way: other inks, bolder "
                                 "or thinner strokes, a faded print, another face colour, light ink on a dark face "
                                 "(default 0)"))
    parser.add_argument("--sheet", action="store_true",
                        help=msg("instead of hands, calibration sheets of --set: the set face up in rows 1m-9m, "
                                 "1p-9p, 1s-9s, 1z-7z, 1f-8f (the rows it has), for mjlens profile create (--size "
                                 "default 1024)"))
    parser.add_argument("--negatives", choices=("empty", "with-hand"),
                        help=msg("instead, hard negatives: table photos with things that are not tiles (paper, "
                                 "phones, book spines, dice, scoring sticks, chips, keyboards, the table's edge, "
                                 "hands, sleeves) and empty label files ('empty'), or hands with such things beside "
                                 "them, labelled as the tiles only ('with-hand'); DIR/distractors/*.json says what "
                                 "lies where"))
    add_lang_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from mjlens.vision.synth.art import ArtError
    from mjlens.vision.synth.generate import write_dataset

    args.size_given = args.size is not None
    args.size = args.size or 640
    if args.n < 1:
        raise UsageError(msg("--n must be at least 1"))
    if args.sheet and not args.art_set:
        raise UsageError(msg("--sheet needs --set NAME: the art set to lay out"))
    for flag in ("habits", "piles"):
        if args.sheet and getattr(args, flag):
            raise UsageError(msg("--{flag} is for photos of hands, not calibration sheets: pass --sheet or --{flag}",
                                 flag=flag))
    for flag in ("restyle", "standing"):
        if not 0.0 <= getattr(args, flag) <= 1.0:
            raise UsageError(msg("--{flag} must be a share between 0 and 1", flag=flag))
        if getattr(args, flag) and (args.sheet or args.negatives):
            raise UsageError(msg("--{flag} is for photos of hands: pass it without --sheet or --negatives",
                                 flag=flag))
    if not 64 <= args.size <= 4096:
        raise UsageError(msg("--size must be between 64 and 4096"))
    if args.workers < 1:
        raise UsageError(msg("--workers must be at least 1"))
    images = args.out / "images"
    if images.is_dir() and any(images.iterdir()) and not args.force:
        raise UsageError(msg("{folder} already holds images: choose another --out, or pass --force to write over "
                             "them", folder=str(args.out)))
    if args.negatives and (args.sheet or args.habits or args.piles or args.art_set or args.set_group):
        raise UsageError(msg("--negatives draws its own photos: pass it without --sheet, --habits, --piles, --set "
                             "or --sets"))
    art = args.art or default_art()
    if args.negatives == "empty":
        return _write_negatives(args, None)
    if art is None:
        raise UsageError(msg("no tile art found: pass --art DIR or set {variable} to a folder of sets such as "
                             "xmj_real/1m.png (where to get them: datasets/synthetic.md in the mjlens repository)",
                             variable=ART_ENV))
    done = 0

    def progress() -> None:
        nonlocal done
        done += 1
        if sys.stderr.isatty() and (done % 50 == 0 or done == args.n):
            print(f"\r{done}/{args.n}", end="" if done < args.n else "\n", file=sys.stderr)

    if args.art_set and not (art / args.art_set).is_dir():
        raise UsageError(msg("no art set {name} under {folder}", name=repr(args.art_set), folder=str(art)))
    if args.art_set and args.set_group:
        raise UsageError(msg("pass --set NAME or --sets GROUP, not both"))
    if args.negatives:
        return _write_negatives(args, art)
    try:
        if args.sheet:
            from mjlens.vision.synth.sheet import write_sheets

            size = args.size if args.size_given else 1024
            boxes = write_sheets(args.out, args.n, args.seed, art, args.art_set, size)
        else:
            sets = [args.art_set] if args.art_set else None
            if args.set_group:
                from mjlens.vision.synth.art import sets_of_group

                sets = sets_of_group(art, args.set_group)
            boxes = write_dataset(args.out, args.n, args.seed, art, args.size, args.workers, progress,
                                  sets=sets, even=bool(args.set_group), habits=args.habits,
                                  restyle=args.restyle, piles=args.piles, standing=args.standing)
    except ArtError as err:
        raise UsageError(err.args[0]) from err
    print(_wrote(args, boxes))
    return 0


def _wrote(args, boxes: int) -> str:
    return tr(args.lang, "wrote {images} images, {boxes} boxes, to {folder} (data.yaml inside)", images=args.n,
              boxes=boxes, folder=str(args.out))


def _write_negatives(args, art: Path | None) -> int:
    from mjlens.vision.synth.art import ArtError
    from mjlens.vision.synth.negatives import write_negatives

    try:
        boxes = write_negatives(args.out, args.n, args.seed, art, args.size, with_hand=args.negatives == "with-hand")
    except ArtError as err:
        raise UsageError(err.args[0]) from err
    print(_wrote(args, boxes))
    return 0
