"""``mjlens label DIR --out DIR [--format yolo|coco]``: label a folder of photos with the shipped detector.

Photos run in parallel worker threads (the recognizer is thread-safe and its ONNX runtime releases the GIL).
Each photo's recognition is saved as soon as it is done, so an interrupted run resumes where it stopped; a
photo that cannot be read is logged and counted and the run goes on. At the end the labels (YOLO txt +
data.yaml, or COCO json) and ``review.html`` are written from every saved recognition.
"""

from __future__ import annotations

import json
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..cli import EXIT_OK, UsageError
from .recognize import add_model_flags, check_model_flags


def register(sub) -> None:
    parser = sub.add_parser("label", help="batch-label a folder of photos (YOLO or COCO) with a review page",
                            description="Recognize every photo under DIR and write labels in the detector's 43-class "
                                        "order to --out, with review.html showing the boxes. Re-running skips "
                                        "photos already labelled.")
    parser.add_argument("folder", metavar="DIR", help="folder of photos (searched recursively)")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    parser.add_argument("--format", choices=("yolo", "coco"), default="yolo", help="label format (default yolo)")
    parser.add_argument("--workers", type=int, default=2, metavar="N", help="parallel workers (default 2)")
    parser.add_argument("--review-conf", type=float, default=0.6, metavar="P",
                        help="tiles below this confidence are flagged on the review page (default 0.6)")
    parser.add_argument("--redo", action="store_true", help="label every photo again, ignoring earlier results")
    add_model_flags(parser)
    parser.set_defaults(run=run)


def load_recognizer(args):
    """The recognizer, each worker's inference given its share of the cores (all of them each would
    oversubscribe the CPU: see benchmarks/bench_service.py); a missing or bad model is exit 2."""
    from mjlens.vision.detector import ModelError
    from mjlens.vision.recognize import Recognizer
    from mjlens.vision.sessions import default_threads
    from mjlens.vision.twostage import load_tile_reader

    check_model_flags(args)
    threads = default_threads(args.workers)
    try:
        detector = load_tile_reader(args.model, classifier=args.classifier, threads=threads, conf=args.conf,
                                    bonus_conf=args.bonus_conf, back_conf=args.back_conf,
                                    input_size=args.input_size)
    except ModelError as err:
        raise UsageError(err.message) from None
    return Recognizer(detector=detector)


def run(args) -> int:
    from mjlens.vision.imageio import ImageError

    from ..labeling import coco, data_yaml, find_photos, load_cached, review_html, write_atomic, yolo_lines

    folder, out = Path(args.folder), Path(args.out)
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if not 0.0 <= args.review_conf <= 1.0:
        raise UsageError("--review-conf must be between 0 and 1")
    photos = find_photos(folder, exclude=out)
    if not photos:
        raise UsageError(f"no JPEG, PNG, WebP or HEIC photos under {folder}")
    keys = [p.key for p in photos]
    if len(set(keys)) != len(keys):
        raise UsageError("two photos differ only by suffix (e.g. a.jpg and a.png); rename one")
    cache, images, labels = out / "recognitions", out / "images", out / "labels"
    try:
        for d in (cache, images) + ((labels,) if args.format == "yolo" else ()):
            d.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"cannot create {out}: {err.strerror}") from None

    todo = [p for p in photos if args.redo or load_cached(cache / f"{p.key}.json") is None]
    done_before = len(photos) - len(todo)
    failed: list[tuple[Path, str]] = []
    console = Console(stderr=True, highlight=False)
    recognizer = load_recognizer(args) if todo else None

    def work(photo):
        rec = recognizer.recognize(photo.source.read_bytes(), photo.source.name)
        write_atomic(cache / f"{photo.key}.json", json.dumps(rec, ensure_ascii=False))
        return rec

    columns = (TextColumn("labelling"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not todo) as progress, \
            ThreadPoolExecutor(max_workers=args.workers) as pool:
        task = progress.add_task("label", total=len(todo))
        futures = {pool.submit(work, p): p for p in todo}
        for future in as_completed(futures):
            photo = futures[future]
            try:
                future.result()
            except ImageError as err:
                failed.append((photo.source, f"{err.code}: {err.message}"))
            except OSError as err:
                failed.append((photo.source, f"cannot read: {err.strerror or err}"))
            else:
                progress.advance(task)
                continue
            progress.advance(task)
            progress.console.print(f"mjlens label: {photo.source}: {failed[-1][1]}")

    labelled = []
    for photo in photos:
        rec = load_cached(cache / f"{photo.key}.json")
        if rec is None:
            continue
        labelled.append((photo, rec))
        target = images / photo.image_name
        if not target.exists():
            try:
                target.hardlink_to(photo.source)
            except OSError:
                shutil.copy2(photo.source, target)
        if args.format == "yolo":
            lines = yolo_lines(rec)
            write_atomic(labels / f"{photo.key}.txt", "\n".join(lines) + ("\n" if lines else ""))
    if args.format == "yolo":
        write_atomic(out / "data.yaml", data_yaml())
    else:
        write_atomic(out / "annotations.json", json.dumps(coco(labelled), ensure_ascii=False))
    write_atomic(out / "review.html", review_html(labelled, args.review_conf, failed))
    write_atomic(out / "failed.txt", "".join(f"{p}\t{reason}\n" for p, reason in failed))
    new = len(todo) - len(failed)
    print(f"mjlens label: {len(labelled)} photos labelled in {out} ({new} new, {done_before} already done, "
          f"{len(failed)} failed); review: {out / 'review.html'}", file=sys.stderr)
    return EXIT_OK
