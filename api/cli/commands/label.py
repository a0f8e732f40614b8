"""``mjlens label DIR --out DIR [--format yolo|coco] [--engine local|ray]``: label a folder of photos with the
shipped detector.

Photos run in parallel: worker threads here (``--engine local``, the default) or Ray workers on a cluster
(``--engine ray``), both through ``labelling.work.label_photo``. Each photo's recognition is saved as soon as it is
done, so an interrupted run resumes where it stopped; a file that cannot be labelled is logged and counted and
the run goes on. Ctrl-C (or SIGTERM) takes no more photos, lets the ones in flight finish (local) or drops them
(Ray), writes everything finished and exits 128 + the signal's number. At the end the labels (YOLO txt +
data.yaml, or COCO json) and ``review.html`` are written from every saved recognition, with the reviewer's
corrections (``corrections.jsonl``) in place of the readings they correct. ``mjlens label --review DIR`` serves
the review page of an output folder on this machine, its saves written into the folder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mjlens.api.labelling.outputs import FAILED_LIST
from mjlens.i18n import Message, msg, say
from mjlens.i18n.os_errors import os_reason

from ..lang import add_lang_flag
from ..main import EXIT_BAD_INPUT, EXIT_OK, UsageError
from .recognize import add_model_flags, check_model_flags

if TYPE_CHECKING:
    from mjlens.api.labelling.work import Outcome

#: Local worker threads when --workers is not given (the Ray engine takes one worker per CPU of the cluster).
DEFAULT_LOCAL_WORKERS = 2


def register(sub) -> None:
    parser = sub.add_parser("label", help=msg("batch-label a folder of photos (YOLO or COCO) with a review page"),
                            description=msg("Recognize every photo under DIR and write labels in the detector's "
                                            "43-class order to --out, with review.html to correct them. Re-running "
                                            "skips photos already labelled; Ctrl-C stops after the photos in flight "
                                            "and keeps what is done. --review DIR serves an output folder's review "
                                            "page on this machine, saving corrections straight into the folder."))
    parser.add_argument("folder", metavar="DIR", nargs="?", help=msg("folder of photos (searched recursively)"))
    parser.add_argument("--out", metavar="DIR", help=msg("output folder"))
    parser.add_argument("--review", metavar="DIR", type=Path,
                        help=msg("serve the review page of the output folder DIR at http://127.0.0.1:PORT/, each save "
                                 "written into DIR (labels, corrections.jsonl, review.html); Ctrl-C stops"))
    parser.add_argument("--port", type=int, default=0, metavar="PORT",
                        help=msg("with --review, the port to serve on (default: a free one)"))
    parser.add_argument("--format", choices=("yolo", "coco"), default="yolo",
                        help=msg("label format (default yolo)"))
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help=msg("local: worker threads in this process (default); ray: Ray workers, on this machine "
                                 "or on the cluster at --address (needs the cluster extra: pip install "
                                 "'mjlens[cluster]')"))
    parser.add_argument("--address", metavar="ADDR",
                        help=msg("with --engine ray, the Ray cluster to join (e.g. auto, or ray://head:10001); "
                                 "default: Ray on this machine alone"))
    parser.add_argument("--workers", type=int, metavar="N",
                        help=msg("parallel workers (default {workers}; with --engine ray, one per CPU)",
                                 workers=DEFAULT_LOCAL_WORKERS))
    parser.add_argument("--review-conf", type=float, default=0.6, metavar="P",
                        help=msg("tiles below this confidence are flagged on the review page (default 0.6)"))
    parser.add_argument("--redo", action="store_true",
                        help=msg("label every photo again, ignoring earlier results"))
    parser.add_argument("--follow-links", action="store_true",
                        help=msg("follow symbolic links wherever they lead (default: only links to files inside DIR)"))
    parser.add_argument("--link", action="store_true",
                        help=msg("hard-link the output photos to the originals instead of copying them (then editing "
                                 "one edits the other)"))
    add_lang_flag(parser)
    add_model_flags(parser)
    parser.set_defaults(run=run)


def recognizer_recipe(args):
    """How every worker loads the recognizer (the flags checked here: exit 2 when out of range)."""
    from mjlens.api.labelling.work import RecognizerRecipe

    check_model_flags(args)
    return RecognizerRecipe(model=args.model, classifier=args.classifier, conf=args.conf,
                            bonus_conf=args.bonus_conf, back_conf=args.back_conf, input_size=args.input_size,
                            profile=args.profile)


def load_checked(recipe, threads: int):
    """The recognizer; a missing or bad model is exit 2 with its reason."""
    from mjlens.vision.profile import ProfileError
    from mjlens.vision.runtime.detector import ModelError

    try:
        return recipe.load(threads)
    except ModelError as err:
        raise UsageError(err.message) from None
    except ProfileError as err:
        raise UsageError(msg("--profile: {code}: {message}", code=err.code, message=err.message)) from None


def make_engine(args, settings) -> contextlib.AbstractContextManager:
    """The engine for ``--engine``, as a context manager that starts and leaves it."""
    recipe = recognizer_recipe(args)
    if args.engine == "local":
        from mjlens.api.labelling.engines import LocalEngine
        from mjlens.vision.runtime.sessions import default_threads

        workers = args.workers or DEFAULT_LOCAL_WORKERS
        return contextlib.nullcontext(LocalEngine(load_checked(recipe, default_threads(workers)), settings, workers))
    if importlib.util.find_spec("ray") is None:
        raise UsageError(msg("--engine ray needs Ray: pip install 'mjlens[cluster]'"))
    from mjlens.api.labelling.ray_engine import RayEngine, RayOptions

    load_checked(recipe, 1)  # a bad model is said here, once, not by every worker of the cluster
    return RayEngine(recipe, settings, RayOptions(address=args.address, workers=args.workers))


def run(args) -> int:
    from mjlens.api.labelling.inputs import find_photos
    from mjlens.api.labelling.outputs import FolderInUse, OutputFolder, exclusive_run

    if args.review is not None:
        from mjlens.api.labelling.review_server import run_review

        return run_review(args)
    if args.folder is None or args.out is None:
        raise UsageError(msg("give a folder of photos and --out DIR, or --review DIR"))
    folder, out = Path(args.folder), Path(args.out)
    check_arguments(args, folder, out)
    # absolute paths: a worker on another node (or in another folder) opens the same files
    folder_path, out_path = folder.absolute(), out.absolute()
    listing = find_photos(folder_path, exclude=out_path, follow_links=args.follow_links)
    if not listing.photos and not listing.skipped:
        raise UsageError(msg("no JPEG, PNG, WebP or HEIC photos under {folder}", folder=str(folder)))
    for renamed in listing.renamed:
        print("mjlens label: " + say(msg("{file}: labelled as {key} ({reason})", file=_shown(renamed.relative),
                                         key=_shown(renamed.key), reason=_shown(renamed.reason)), args.lang),
              file=sys.stderr)
    output = OutputFolder(out_path)
    try:
        for d in (output.recognitions, output.images) + ((output.labels,) if args.format == "yolo" else ()):
            d.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(msg("cannot create {folder}: {reason}", folder=str(out), reason=os_reason(err))) from None
    try:
        with exclusive_run(output):
            return label_into(args, output, listing, folder_path)
    except FolderInUse as err:
        raise UsageError(err.args[0]) from None


def label_into(args, output, listing, folder_path: Path) -> int:
    """Label what is not done yet into ``output``, then write the outputs and say what was done."""
    from mjlens.api.labelling.engines import stop_on_signals
    from mjlens.api.labelling.work import LabelSettings

    out = Path(args.out)
    corrections = read_corrections_checked(output)

    photos = listing.photos
    todo = [p for p in photos if args.redo or not is_done(output, p)]
    failures = list(listing.skipped)
    for failure in failures:
        print(_failure_line(failure, args.lang), file=sys.stderr)
    settings = LabelSettings(input_root=folder_path, out=output, follow_links=args.follow_links, link=args.link)
    outcomes: list[Outcome] = []
    stop = None
    if todo:
        with make_engine(args, settings) as engine, _progress(len(todo), args.lang) as progress:
            task = progress.add_task("label", total=len(todo))

            def on_outcome(outcome: Outcome) -> None:
                outcomes.append(outcome)
                progress.advance(task)
                if outcome.failure:
                    failures.append(outcome.failure)
                    progress.console.print(_failure_line(outcome.failure, args.lang), soft_wrap=True)

            def on_stop() -> None:
                progress.console.print("mjlens label: " + say(msg(
                    "stopping: no more photos are started; what is done is kept (Ctrl-C again stops at once)"),
                    args.lang), soft_wrap=True)

            with stop_on_signals(on_stop) as stop:
                try:
                    engine.run(todo, on_outcome, stop)
                except Exception:  # the engine failed (a cluster lost): keep what is done, then say why
                    write_outputs(output, photos, args, failures, corrections)
                    raise

    labelled = write_outputs(output, photos, args, failures, corrections)
    # Ray drops the results in flight at a stop, though their photos may be done: those count from the disk
    reported = {o.photo.key for o in outcomes}
    unreported_done = 0 if args.redo else sum(1 for p in todo if p.key not in reported and is_done(output, p))
    new = sum(1 for o in outcomes if o.failure is None) + unreported_done
    print("mjlens label: " + say(msg(
        "{photos} labelled in {out} ({new} new, {done} already done, {failed} failed: {failed_list}); review: "
        "{review} (or mjlens label --review {out} to save corrections straight into it)",
        photos=photo_count(labelled), out=str(out), new=new, done=len(photos) - len(todo), failed=len(failures),
        failed_list=str(out / FAILED_LIST), review=str(out / "review.html")), args.lang), file=sys.stderr)
    if stop is not None and stop.is_set():
        remain = len(todo) - len(reported) - unreported_done
        print("mjlens label: " + say(msg("stopped: {photos} remain; run the same command again to resume",
                                         photos=photo_count(remain)), args.lang), file=sys.stderr)
        return 128 + (stop.signum or signal.SIGINT)
    if failures and not labelled:  # a run that labelled nothing is no success, though each file was reported
        print("mjlens label: " + say(msg("no photo labelled: every file failed ({failed_list})",
                                         failed_list=str(out / FAILED_LIST)), args.lang), file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


def photo_count(count: int) -> Message:
    """``1 photo``, ``2 photos``: two messages, since the number changes the English."""
    return msg("{count} photo", count=count) if count == 1 else msg("{count} photos", count=count)


def _failure_line(failure, lang: str) -> str:
    """The line that says why a file was not labelled: its name, its code and the reason."""
    return f"mjlens label: {_shown(failure.relative)}: {failure.code}: {say(failure.message, lang)}"


def is_done(output, photo) -> bool:
    """Labelled by an earlier run: its recognition saved whole, and its output photo there."""
    from mjlens.api.labelling.work import load_recognition

    return load_recognition(output, photo) is not None and (output.images / photo.image_name).exists()


def check_arguments(args, folder: Path, out: Path) -> None:
    if not folder.is_dir():
        raise UsageError(msg("{folder} is not a folder", folder=str(folder)))
    if args.workers is not None and args.workers < 1:
        raise UsageError(msg("--workers must be at least 1"))
    if not 0.0 <= args.review_conf <= 1.0:
        raise UsageError(msg("--review-conf must be between 0 and 1"))
    if args.address and args.engine != "ray":
        raise UsageError(msg("--address needs --engine ray"))
    if args.port:
        raise UsageError(msg("--port needs --review"))
    if os.path.realpath(folder) == os.path.realpath(out):
        raise UsageError(msg("--out must be a folder other than DIR (it may lie inside it)"))


def read_corrections_checked(output):
    """The reviewer's corrections of the output folder (none the first time); a damaged file is exit 2, before any
    photo is labelled."""
    from mjlens.api.labelling.corrections import CORRECTIONS_FILE, CorrectionError, read_corrections

    try:
        return read_corrections(output.root / CORRECTIONS_FILE)
    except CorrectionError as err:
        raise UsageError(msg("{code}: {message} (correct it, or move it away to label without it)", code=err.code,
                             message=err.message)) from None


def write_outputs(output, photos, args, failures, corrections) -> int:
    """Labels, review page and the list of files not labelled, from every saved recognition as corrected; the count
    labelled."""
    from mjlens.api.labelling.corrections import CorrectionError
    from mjlens.api.labelling.outputs import write_failed
    from mjlens.api.labelling.review import corrected_photos, write_review
    from mjlens.api.labelling.work import load_recognition

    labelled: list[tuple[Any, dict[str, Any]]] = []
    for photo in photos:
        rec = load_recognition(output, photo)
        if rec is None or not (output.images / photo.image_name).exists():
            continue  # not labelled yet
        labelled.append((photo, rec))
    try:
        labelled = corrected_photos(labelled, corrections)
    except CorrectionError as err:
        raise UsageError(msg("{code}: {message} (correct it in corrections.jsonl, or move the file away)",
                             code=err.code, message=err.message)) from None
    write_review(output, labelled, (args.format,), args.review_conf, failures, lang=args.lang)
    write_failed(output, failures)
    return len(labelled)


def _progress(total: int, lang: str):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(say(msg("labelling"), lang)), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    # markup off: a file name such as "[draft].jpg" is printed as it is
    return Progress(*columns, console=Console(stderr=True, highlight=False, markup=False), disable=not total)


def _shown(relative: str) -> str:
    """A file name as one printable line (a newline in a name would split the message)."""
    return relative.encode("unicode_escape", errors="backslashreplace").decode("ascii") \
        if not relative.isprintable() else relative
