"""``mjlens eval``: detection metrics of the tile model on a YOLO dataset, run through the product's ONNX runtime."""

from __future__ import annotations

import json
import sys

from mjlens.i18n import msg, pmsg, say, tr

from ..lang import add_lang_flag
from ..main import EXIT_OK, UsageError
from .recognize import add_model_flags, load_recognizer

SUMMARY = (
    ("map50", "mAP50"), ("map50_95", "mAP50-95"), ("tile_accuracy", msg("tile accuracy")),
    ("tile_precision", msg("tile precision")), ("exact_rate", msg("photos exactly right")),
    ("hand_exact_rate", msg("photos of 13-18 tiles exactly right")),
    ("hand_read_rate", msg("hands of 13-18 tiles read exactly (tiles the layout files apart not counted)")),
    ("bonus_recall", msg("flower/season recall")),
)
#: The per-class table's column headings.
CLASS_COLUMNS = (msg("class"), msg("labels"), "AP50", "AP50-95", msg("precision"), msg("recall"))


def register(sub) -> None:
    parser = sub.add_parser(
        "eval", help=msg("how well photos are read: a YOLO dataset, or photos labelled by their tiles"),
        description=msg("Run the tile model over a YOLO dataset (data.yaml) and report mAP50, mAP50-95, tile "
                        "accuracy, per-class precision and recall, the exact-photo rate and a confusion matrix. Given "
                        "a truth file (TRUTH.json: per photo, the tiles it shows, row by row), score each photo as a "
                        "player would: the tiles read against the tiles labelled, as multisets of codes."))
    parser.add_argument("data", metavar="DATA_YAML|TRUTH_JSON",
                        help=msg("the dataset's data.yaml, or a truth file (.json) of photos labelled by their tiles"))
    parser.add_argument("--images", metavar="DIR",
                        help=msg("with a truth file, the folder of its photos (default: images/ beside the truth "
                                 "file)"))
    parser.add_argument("--split", choices=("val", "test", "train"), default="val",
                        help=msg("which split (default val)"))
    parser.add_argument("--json", action="store_true", help=msg("print the metrics as JSON"))
    parser.add_argument("--confusion", metavar="PNG", help=msg("also draw the confusion matrix into this PNG file"))
    parser.add_argument("--exclude", metavar="LIST",
                        help=msg("a file of image names (one per line) to leave out, e.g. photos with known label "
                                 "errors (datasets/hk-photos-label-errors.txt)"))
    parser.add_argument("--fixes", metavar="LIST",
                        help=msg("a file of label corrections (PHOTO LINE LABELLED SHOWN per line; SHOWN - drops a "
                                 "second label on one tile; PHOTO + SHOWN CX CY W H adds a tile left unlabelled) to "
                                 "apply first, e.g. labels checked by eye (datasets/hk-photos-label-fixes.txt)"))
    parser.add_argument("--sweep", action="store_true",
                        help=msg("instead, list the operating figures at a range of confidence thresholds; with the "
                                 "crop classifier, then at the best one the thresholds of flowers and seasons, then "
                                 "of face-down tiles; a threshold given (--conf, --bonus-conf, --back-conf) is held "
                                 "instead"))
    parser.add_argument("--ceiling", action="store_true",
                        help=msg("instead of running the model, score the labels as --fixes corrects them, every "
                                 "tile read with certainty, against the labels as given: the most any reader can "
                                 "score on the dataset's own labels"))
    parser.add_argument("--turn", type=int, choices=(0, 1, 2, 3), default=0, metavar="K",
                        help=msg("read every photo turned K quarter turns clockwise, its labels with it: photos "
                                 "taken turned whose EXIF orientation was lost (default 0)"))
    add_lang_flag(parser)
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
        raise UsageError(msg("--images goes with a truth file (TRUTH.json); a YOLO dataset names its images in "
                             "data.yaml"))
    from mjlens.vision.evaluate import (
        EvalError,
        collect_samples,
        evaluate_samples,
        read_exclusions,
        read_fixes,
        write_confusion_png,
    )

    if args.turn and (args.sweep or args.ceiling):
        raise UsageError(msg("--turn reads the photos turned for the figures of one reading; --sweep and --ceiling "
                             "read them as they are"))
    try:
        args.excluded = read_exclusions(args.exclude) if args.exclude else set()
        args.label_fixes = read_fixes(args.fixes) if args.fixes else {}
    except EvalError as err:
        raise UsageError(err.args[0]) from None
    if args.ceiling:
        return run_ceiling(args)
    recognizer = load_recognizer(args)
    detector = recognizer.detector
    if args.sweep:
        return run_sweep(args, detector)
    try:
        samples = collect_samples(args.data, detector, args.split, progress=_progress(args.json, args.lang),
                                  exclude=args.excluded, fixes=args.label_fixes, turn=args.turn)
        report = evaluate_samples(samples, classes=sorted(set(detector.names), key=detector.names.index))
        if args.confusion:
            write_confusion_png(report, args.confusion)
    except EvalError as err:
        raise UsageError(err.args[0]) from None
    reader = {"model": str(detector.path), "conf": detector.conf,
              "bonus_conf": getattr(detector, "bonus_conf", detector.conf),
              "back_conf": getattr(detector, "back_conf", detector.conf)}
    return _emit(args, reader, report)


def _emit(args, reader: dict, report: dict) -> int:
    report = {"data": args.data, "split": args.split, "turn": args.turn, **reader,
              "excluded": sorted(args.excluded),
              "label_fixes": sum(map(len, args.label_fixes.values())), **report}
    return _show(args, report, lambda shown: print_report(shown, args.lang))


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
            raise UsageError(msg("{flag} goes with a YOLO dataset (data.yaml), not with a truth file", flag=flag))
    images = Path(args.images) if args.images else Path(args.data).parent / "images"
    try:
        truths = read_truth(args.data)
        if not images.is_dir():
            raise EvalError(msg("{images}: no such folder of photos (give it with --images)", images=str(images)))
        recognizer = load_recognizer(args)
        report = evaluate_truth(truths, images, recognizer.recognize_path)
    except EvalError as err:
        raise UsageError(err.args[0]) from None
    return _show(args, {"truth": args.data, "images": str(images), **report},
                 lambda shown: print_truth_report(shown, args.lang))


def print_truth_report(report: dict, lang: str = "en") -> None:
    from rich.console import Console

    def fig(value) -> str:
        return "-" if value is None else f"{value:.3f}"

    console = Console(highlight=False, soft_wrap=True, markup=False)
    console.print(tr(lang, "{truth}: {photos} photos ({confident} labelled with confidence), {labelled} labelled "
                           "tiles, {read} read", truth=report["truth"], photos=report["photos"],
                     confident=report["photos_confident"], labelled=report["labelled"], read=report["read"]))
    console.print(tr(lang, "  tiles right          {figure}", figure=fig(report["tiles_right"])))
    console.print(tr(lang, "  precision            {figure}   (photos labelled with confidence)",
                     figure=fig(report["precision"])))
    console.print(tr(lang, "  photos exactly right {exact} of {photos}", exact=report["photos_exact"],
                     photos=report["photos_confident"]))
    flowers, red = report["flowers"], report["red_fives"]
    console.print(tr(lang, "  flowers and seasons  {figure} of {labelled}, precision {precision}",
                     figure=fig(flowers["right"]), labelled=flowers["labelled"], precision=fig(flowers["precision"])))
    console.print(tr(lang, "  red fives read red   {figure} of {labelled}; plain fives read red {plain}",
                     figure=fig(red["read_red"]), labelled=red["labelled"], plain=red["plain_read_red"]))
    for key, name in (("most_missed", msg("most missed")), ("most_extra", msg("most read in excess"))):
        if report[key]:
            console.print(tr(lang, "  {name}: {counts}", name=name,
                             counts=", ".join(f"{code} {n}" for code, n in report[key].items())))
    for photo in report["per_photo"]:
        if not photo["exact"]:
            line = tr(lang, "  {image}: {right} of {labelled} right, {read} read", image=photo["image"],
                      right=photo["right"], labelled=photo["labelled"], read=photo["read"])
            if not photo["confident"]:
                line += tr(lang, " (labelled without confidence)")
            for what, name in (("missed", msg("missed")), ("extra", msg("extra"))):
                if photo[what]:
                    line += f"{say('; ', lang)}{say(name, lang)} " + " ".join(f"{c}x{n}"
                                                                             for c, n in photo[what].items())
            console.print(line)


def run_ceiling(args) -> int:
    """The figures a reader naming every tile as the corrected labels do would reach on the labels as given."""
    from mjlens.vision.evaluate import EvalError, ceiling_samples, evaluate_samples

    if not args.fixes:
        raise UsageError(msg("--ceiling needs --fixes: the corrected labels to read the photos by"))
    try:
        samples = ceiling_samples(args.data, args.label_fixes, args.split, exclude=args.excluded)
        report = evaluate_samples(samples)
    except EvalError as err:
        raise UsageError(err.args[0]) from None
    reader = {"model": msg("the labels as {fixes} corrects them", fixes=args.fixes), "conf": 1.0,
              "bonus_conf": 1.0, "back_conf": 1.0}
    return _emit(args, reader, report)


def run_sweep(args, detector) -> int:
    """Threshold sweep, the product's figures only, one table per threshold the flags leave open: conf (and the
    merge IoU of the detector alone); for a two-stage reader then each of ``SWEEP_GROUPS``, the best row of each
    table holding its threshold for the next."""
    from mjlens.vision.evaluate import EvalError, best_setting, sweep, sweep_thresholds

    scope = {"split": args.split, "progress": _progress(args.json, args.lang), "exclude": args.excluded,
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
        raise UsageError(err.args[0]) from None
    if not tables:
        raise UsageError(msg("nothing to sweep: every threshold of this model is given"))
    if args.json:
        json.dump([row for table in tables for row in table], sys.stdout)
        sys.stdout.write("\n")
        return EXIT_OK
    for table in tables:
        print("  ".join(f"{c:>15}" for c in SWEEP_COLUMNS))
        for row in table:
            print("  ".join(f"{'-' if row[c] is None else row[c]:>15}" for c in SWEEP_COLUMNS))
        best = best_setting(table)
        print(tr(args.lang, "best: conf {conf}, bonus_conf {bonus_conf}, back_conf {back_conf}, merge_iou "
                            "{merge_iou} (F1 among the rows within 1 point of the most photos exactly right)",
                 conf=best["conf"], bonus_conf=best["bonus_conf"], back_conf=best["back_conf"],
                 merge_iou=best["merge_iou"]))
    return EXIT_OK


def _progress(quiet: bool, lang: str):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    unit = say(pmsg("unit", "photo"), lang)
    return lambda items: tqdm(items, desc="eval", unit=unit, file=sys.stderr)


def print_report(report: dict, lang: str = "en") -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=True, markup=False)
    console.print(tr(lang, "{data} [{split}]: {images} photos, {labels} labelled tiles, {predictions} predicted "
                           "(model {model}, conf {conf}, flowers {bonus_conf}, backs {back_conf})",
                     data=report["data"], split=report["split"], images=report["images"], labels=report["labels"],
                     predictions=report["predictions"], model=report["model"], conf=report["conf"],
                     bonus_conf=report["bonus_conf"], back_conf=report["back_conf"]))
    if report.get("excluded"):
        console.print(tr(lang, "  left out: {count} photos listed in --exclude", count=len(report["excluded"])))
    for key, name in SUMMARY:
        value = report[key]
        console.print(f"  {_padded(say(name, lang), 38)} {'-' if value is None else f'{value:.4f}'}")
    lost = report["tiles_lost"]
    console.print(tr(lang, "  tiles not read: {misread} kept as another code, {no_box} with no box, {dropped_right} "
                           "dropped though read right, {dropped_wrong} dropped and read wrong",
                     misread=lost["misread"], no_box=lost["no_box"], dropped_right=lost["dropped_read_right"],
                     dropped_wrong=lost["dropped_read_wrong"]))
    table = Table(show_header=True, header_style="bold")
    for n, column in enumerate(CLASS_COLUMNS):
        table.add_column(say(column, lang), justify="left" if n == 0 else "right")
    for code, row in report["per_class"].items():
        if row["labels"] or row["predictions"]:
            table.add_row(code, str(row["labels"]),
                          *("-" if row[k] is None else f"{row[k]:.3f}" for k in ("ap50", "ap50_95", "precision",
                                                                                 "recall")))
    console.print(table)


def _padded(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns of the terminal, where a Chinese character takes two."""
    from rich.cells import cell_len

    return text + " " * max(0, width - cell_len(text))
