"""``mjlens eval``: detection metrics of the tile model on a YOLO dataset, run through the product's ONNX runtime."""

from __future__ import annotations

import json
import sys

from ..main import EXIT_OK, UsageError
from .recognize import add_model_flags, load_recognizer

SUMMARY = (
    ("map50", "mAP50"), ("map50_95", "mAP50-95"), ("tile_accuracy", "tile accuracy"),
    ("tile_precision", "tile precision"), ("exact_rate", "photos exactly right"),
    ("hand_exact_rate", "photos of 13-18 tiles exactly right"),
    ("hand_read_rate", "hands of 13-18 tiles read exactly (tiles the layout files apart not counted)"),
    ("bonus_recall", "flower/season recall"),
)


def register(sub) -> None:
    parser = sub.add_parser(
        "eval", help="how well photos are read: a YOLO dataset, or photos labelled by their tiles",
        description="Run the tile model over a YOLO dataset (data.yaml) and report mAP50, mAP50-95, tile accuracy, "
                    "per-class precision and recall, the exact-photo rate and a confusion matrix. Given a truth file "
                    "(TRUTH.json: per photo, the tiles it shows, row by row), score each photo as a player would: "
                    "the tiles read against the tiles labelled, as multisets of codes.")
    parser.add_argument("data", metavar="DATA_YAML|TRUTH_JSON",
                        help="the dataset's data.yaml, or a truth file (.json) of photos labelled by their tiles")
    parser.add_argument("--images", metavar="DIR",
                        help="with a truth file, the folder of its photos (default: images/ beside the truth file)")
    parser.add_argument("--split", choices=("val", "test", "train"), default="val", help="which split (default val)")
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
    parser.add_argument("--confusion", metavar="PNG", help="also draw the confusion matrix into this PNG file")
    parser.add_argument("--exclude", metavar="LIST",
                        help="a file of image names (one per line) to leave out, e.g. photos with known label errors "
                             "(datasets/hk-photos-label-errors.txt)")
    parser.add_argument("--fixes", metavar="LIST",
                        help="a file of label corrections (PHOTO LINE LABELLED SHOWN per line; SHOWN - drops a "
                             "second label on one tile; PHOTO + SHOWN CX CY W H adds a tile left unlabelled) to apply "
                             "first, e.g. labels checked by eye (datasets/hk-photos-label-fixes.txt)")
    parser.add_argument("--sweep", action="store_true",
                        help="instead, list the operating figures at a range of confidence thresholds; with the "
                             "crop classifier, then at the best one the thresholds of flowers and seasons, then of "
                             "face-down tiles; a threshold given (--conf, --bonus-conf, --back-conf) is held instead")
    parser.add_argument("--ceiling", action="store_true",
                        help="instead of running the model, score the labels as --fixes corrects them, every tile "
                             "read with certainty, against the labels as given: the most any reader can score on "
                             "the dataset's own labels")
    parser.add_argument("--turn", type=int, choices=(0, 1, 2, 3), default=0, metavar="K",
                        help="read every photo turned K quarter turns clockwise, its labels with it: photos taken "
                             "turned whose EXIF orientation was lost (default 0)")
    add_model_flags(parser)
    parser.set_defaults(run=run)


SWEEP_CONFS = (0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
SWEEP_GROUP_CONFS = (0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
#: The thresholds of flowers and of backs, swept in this order, each at the best of the tables before it.
SWEEP_GROUPS = ("bonus_conf", "back_conf")
SWEEP_COLUMNS = ("conf", "bonus_conf", "back_conf", "merge_iou", "predictions", "tile_accuracy", "tile_precision",
                 "f1", "exact_rate", "hand_exact_rate", "hand_read_rate", "bonus_recall", "back_recall")


def run(args) -> int:
    if args.data.lower().endswith(".json"):
        return run_truth(args)
    if args.images:
        raise UsageError("--images goes with a truth file (TRUTH.json); a YOLO dataset names its images in data.yaml")
    from mjlens.vision.evaluate import (
        EvalError,
        collect_samples,
        evaluate_samples,
        read_exclusions,
        read_fixes,
        write_confusion_png,
    )

    if args.turn and (args.sweep or args.ceiling):
        raise UsageError("--turn reads the photos turned for the figures of one reading; --sweep and --ceiling read "
                         "them as they are")
    try:
        args.excluded = read_exclusions(args.exclude) if args.exclude else set()
        args.label_fixes = read_fixes(args.fixes) if args.fixes else {}
    except EvalError as err:
        raise UsageError(str(err)) from None
    if args.ceiling:
        return run_ceiling(args)
    recognizer = load_recognizer(args)
    detector = recognizer.detector
    if args.sweep:
        return run_sweep(args, detector)
    try:
        samples = collect_samples(args.data, detector, args.split, progress=_progress(args.json),
                                  exclude=args.excluded, fixes=args.label_fixes, turn=args.turn)
        report = evaluate_samples(samples, classes=sorted(set(detector.names), key=detector.names.index))
        if args.confusion:
            write_confusion_png(report, args.confusion)
    except EvalError as err:
        raise UsageError(str(err)) from None
    reader = {"model": str(detector.path), "conf": detector.conf,
              "bonus_conf": getattr(detector, "bonus_conf", detector.conf),
              "back_conf": getattr(detector, "back_conf", detector.conf)}
    return _emit(args, reader, report)


def _emit(args, reader: dict, report: dict) -> int:
    report = {"data": args.data, "split": args.split, "turn": args.turn, **reader,
              "excluded": sorted(args.excluded),
              "label_fixes": sum(map(len, args.label_fixes.values())), **report}
    return _show(args, report, print_report)


def _show(args, report: dict, print_table) -> int:
    """The report as JSON with ``--json``, else as ``print_table`` lays it out."""
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        print_table(report)
    return EXIT_OK


def run_truth(args) -> int:
    """Photos labelled by their tiles (``vision.photo_truth``), each read as ``mjlens recognize`` reads it."""
    from pathlib import Path

    from mjlens.vision.evaluate import EvalError
    from mjlens.vision.photo_truth import evaluate_truth, read_truth

    for flag, given in (("--sweep", args.sweep), ("--ceiling", args.ceiling), ("--confusion", args.confusion),
                        ("--exclude", args.exclude), ("--fixes", args.fixes), ("--turn", args.turn)):
        if given:
            raise UsageError(f"{flag} goes with a YOLO dataset (data.yaml), not with a truth file")
    images = Path(args.images) if args.images else Path(args.data).parent / "images"
    try:
        truths = read_truth(args.data)
        if not images.is_dir():
            raise EvalError(f"{images}: no such folder of photos (give it with --images)")
        recognizer = load_recognizer(args)
        report = evaluate_truth(truths, images, recognizer.recognize_path)
    except EvalError as err:
        raise UsageError(str(err)) from None
    return _show(args, {"truth": args.data, "images": str(images), **report}, print_truth_report)


def print_truth_report(report: dict) -> None:
    from rich.console import Console

    def fig(value) -> str:
        return "-" if value is None else f"{value:.3f}"

    console = Console(highlight=False, soft_wrap=True)
    console.print(f"{report['truth']}: {report['photos']} photos ({report['photos_confident']} labelled with "
                  f"confidence), {report['labelled']} labelled tiles, {report['read']} read")
    console.print(f"  tiles right          {fig(report['tiles_right'])}")
    console.print(f"  precision            {fig(report['precision'])}   (photos labelled with confidence)")
    console.print(f"  photos exactly right {report['photos_exact']} of {report['photos_confident']}")
    flowers, red = report["flowers"], report["red_fives"]
    console.print(f"  flowers and seasons  {fig(flowers['right'])} of {flowers['labelled']}, precision "
                  f"{fig(flowers['precision'])}")
    console.print(f"  red fives read red   {fig(red['read_red'])} of {red['labelled']}; plain fives read red "
                  f"{red['plain_read_red']}")
    for key, name in (("most_missed", "most missed"), ("most_extra", "most read in excess")):
        if report[key]:
            console.print(f"  {name}: " + ", ".join(f"{code} {n}" for code, n in report[key].items()))
    for photo in report["per_photo"]:
        if not photo["exact"]:
            console.print(f"  {photo['image']}: {photo['right']} of {photo['labelled']} right, {photo['read']} read"
                          + ("" if photo["confident"] else " (labelled without confidence)")
                          + "".join(f"; {what} " + " ".join(f"{c}x{n}" for c, n in photo[what].items())
                                    for what in ("missed", "extra") if photo[what]))


def run_ceiling(args) -> int:
    """The figures a reader naming every tile as the corrected labels do would reach on the labels as given."""
    from mjlens.vision.evaluate import EvalError, ceiling_samples, evaluate_samples

    if not args.fixes:
        raise UsageError("--ceiling needs --fixes: the corrected labels to read the photos by")
    try:
        samples = ceiling_samples(args.data, args.label_fixes, args.split, exclude=args.excluded)
        report = evaluate_samples(samples)
    except EvalError as err:
        raise UsageError(str(err)) from None
    reader = {"model": f"the labels as {args.fixes} corrects them", "conf": 1.0, "bonus_conf": 1.0, "back_conf": 1.0}
    return _emit(args, reader, report)


def run_sweep(args, detector) -> int:
    """Threshold sweep, the product's figures only, one table per threshold the flags leave open: conf (and the
    merge IoU of the detector alone); for a two-stage reader then each of ``SWEEP_GROUPS``, the best row of each
    table holding its threshold for the next."""
    from mjlens.vision.evaluate import EvalError, best_setting, sweep, sweep_thresholds

    scope = {"split": args.split, "progress": _progress(args.json), "exclude": args.excluded,
             "fixes": args.label_fixes}
    tables = []
    try:
        if args.conf is None:
            tables.append(sweep(args.data, detector, SWEEP_CONFS, merge_ious=(detector.merge_iou, None), **scope))
        conf = args.conf if args.conf is not None else best_setting(tables[-1])["conf"]
        if hasattr(detector, "back_conf"):
            given = {"bonus_conf": args.bonus_conf, "back_conf": args.back_conf}
            held = {"conf": conf, **{key: conf if value is None else value for key, value in given.items()}}
            for key in SWEEP_GROUPS:
                if given[key] is None:
                    settings = [{**held, key: value} for value in sorted({*SWEEP_GROUP_CONFS, conf})
                                if value <= conf]
                    tables.append(sweep_thresholds(args.data, detector, settings, **scope))
                    held[key] = best_setting(tables[-1])[key]
    except EvalError as err:
        raise UsageError(str(err)) from None
    if not tables:
        raise UsageError("nothing to sweep: every threshold of this model is given")
    if args.json:
        json.dump([row for table in tables for row in table], sys.stdout)
        sys.stdout.write("\n")
        return EXIT_OK
    for table in tables:
        print("  ".join(f"{c:>15}" for c in SWEEP_COLUMNS))
        for row in table:
            print("  ".join(f"{'-' if row[c] is None else row[c]:>15}" for c in SWEEP_COLUMNS))
        best = best_setting(table)
        print(f"best: conf {best['conf']}, bonus_conf {best['bonus_conf']}, back_conf {best['back_conf']}, "
              f"merge_iou {best['merge_iou']} "
              "(F1 among the rows within 1 point of the most photos exactly right)")
    return EXIT_OK


def _progress(quiet: bool):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return lambda items: tqdm(items, desc="eval", unit="photo", file=sys.stderr)


def print_report(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=True)
    console.print(f"{report['data']} [{report['split']}]: {report['images']} photos, {report['labels']} labelled "
                  f"tiles, {report['predictions']} predicted (model {report['model']}, conf {report['conf']}, flowers "
                  f"{report['bonus_conf']}, backs {report['back_conf']})")
    if report.get("excluded"):
        console.print(f"  left out: {len(report['excluded'])} photos listed in --exclude")
    for key, name in SUMMARY:
        value = report[key]
        console.print(f"  {name:<38} {'-' if value is None else f'{value:.4f}'}")
    lost = report["tiles_lost"]
    console.print(f"  tiles not read: {lost['misread']} kept as another code, {lost['no_box']} with no box, "
                  f"{lost['dropped_read_right']} dropped though read right, {lost['dropped_read_wrong']} dropped "
                  "and read wrong")
    table = Table(show_header=True, header_style="bold")
    for column in ("class", "labels", "AP50", "AP50-95", "precision", "recall"):
        table.add_column(column, justify="left" if column == "class" else "right")
    for code, row in report["per_class"].items():
        if row["labels"] or row["predictions"]:
            table.add_row(code, str(row["labels"]),
                          *("-" if row[k] is None else f"{row[k]:.3f}" for k in ("ap50", "ap50_95", "precision",
                                                                                 "recall")))
    console.print(table)
