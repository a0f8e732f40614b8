"""Profiles from tiles whose codes a person has checked: a YOLO folder of labelled photos (``mjlens label`` output
after review) or Recognition JSON lines whose tiles the player corrected. Every labelled tile becomes an example of
its code; face-down tiles teach nothing about faces and are left out. Such a profile is not complete: a code it has
no example of is still read by the shipped classifier alone."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from mjlens.i18n import msg
from mjlens.scoring.tiles import BACK_CODE, DETECTOR_CLASSES, plain_code
from mjlens.vision import evaluate
from mjlens.vision.profile.calibration import layout_examples, stood_up
from mjlens.vision.profile.errors import ProfileError
from mjlens.vision.profile.features import FeatureReader
from mjlens.vision.profile.layout import SHEET_ROWS
from mjlens.vision.profile.store import Profile, reliance_of, reliance_over_views
from mjlens.vision.runtime.crops import crop_tiles
from mjlens.vision.runtime.decode import DecodedImage, ImageError, load_image

#: A tile's code and its box (x1, y1, x2, y2) in pixels of the photo, as the Recognition JSON gives them.
LabelledTile = tuple[str, tuple[float, float, float, float]]
#: The codes a profile of labelled tiles must hold to name the set's codes (complete): every row of the layout but
#: the flowers and seasons, which a set may lack.
COMPLETE_SET_CODES = frozenset(code for row in SHEET_ROWS[:4] for code in row)


def _examples(features: FeatureReader, photos: Iterable[tuple[np.ndarray, list[tuple[str, tuple]]]], source: str
              ) -> Profile:
    """A profile of the labelled tiles of ``photos`` (BGR, [(code, box in its pixels)])."""
    codes: list[str] = []
    parts, probs = [], []
    for bgr, tiles in photos:
        tiles = [(code, box) for code, box in tiles if code != BACK_CODE]
        if not tiles:
            continue
        read, unit = features.read(crop_tiles(bgr, [box for _, box in tiles], features.classifier.size))
        parts.append(unit)
        probs.append(read)
        codes += [code for code, _ in tiles]
    if not codes:
        raise ProfileError("no_examples", msg("the {source} hold no tile to learn a face from", source=source))
    return Profile.of_examples(codes, np.concatenate(parts), features.digest, source,
                               reliance=reliance_of(np.concatenate(probs), codes))


def _every_split(data_yaml: Path) -> tuple[list[str], list[tuple[Path, Path]]]:
    """The photos of each split ``data_yaml`` names (train, val, test), each photo once; EvalError where none has
    any."""
    codes: list[str] = []
    pairs: dict[Path, Path] = {}
    problem = None
    for part in ("train", "val", "test"):
        try:
            codes, found = evaluate.read_dataset(data_yaml, part)
        except evaluate.EvalError as err:
            problem = problem or err
            continue
        pairs.update((image.resolve(), label) for image, label in found if image.resolve() not in pairs)
    if not pairs:
        raise problem or evaluate.EvalError(f"{data_yaml} names no photos")
    return codes, list(pairs.items())


def profile_from_labels(folder: str | Path, features: FeatureReader) -> Profile:
    """A profile of every labelled tile of a YOLO folder: its data.yaml (every split it names, each photo once),
    else its images/ and labels/ folders in the 43-class order."""
    folder = Path(folder)
    try:
        if (folder / "data.yaml").is_file():
            codes, pairs = _every_split(folder / "data.yaml")
        elif folder.is_dir():
            images = evaluate.images_of(folder / "images" if (folder / "images").is_dir() else folder)
            codes, pairs = list(DETECTOR_CLASSES), [(image, evaluate.label_path(image)) for image in images]
        else:
            raise ProfileError("bad_labels", msg("{folder} is not a folder", folder=folder))
    except evaluate.EvalError as err:
        raise ProfileError("bad_labels", str(err)) from None

    def photos():
        for image_path, label_path in pairs:
            try:
                image = evaluate.load_photo(image_path)
                labels = evaluate.read_labels(label_path, codes, image.width, image.height)
            except evaluate.EvalError as err:
                raise ProfileError("bad_labels", str(err)) from None
            yield image.bgr, [(label.code, tuple(v * image.scale for v in label.box)) for label in labels]

    return _examples(features, photos(), "labels")


def profile_from_corrections(path: str | Path, features: FeatureReader) -> Profile:
    """A profile of the tiles of Recognition JSON lines (one reading per line, or a list of them per line as
    ``mjlens recognize --json`` prints, its tiles as the player corrected them); each reading's ``image`` is the
    photo, found beside the file when it is not an absolute path. A reading with ``"done": false`` (a photo the
    review page of ``mjlens label`` holds as still being corrected) teaches nothing."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise ProfileError("bad_labels", msg("cannot read {path}: {strerror}", path=path,
                                             strerror=err.strerror)) from None
    except UnicodeDecodeError:
        raise ProfileError("bad_labels", msg("{path} is not text: Recognition JSON lines expected (as mjlens "
                                             "recognize --json prints)", path=path)) from None

    def readings():
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as err:
                raise ProfileError("bad_labels", msg("{path}:{number}: not a Recognition JSON line ({err})",
                                                     path=path, number=number, err=err)) from None
            for reading in value if isinstance(value, list) else [value]:  # mjlens recognize --json: one list
                yield number, reading

    not_done = 0

    def photos():
        nonlocal not_done
        for number, reading in readings():
            if isinstance(reading, dict) and reading.get("done") is False:
                not_done += 1
                continue
            try:
                image_path = Path(reading["image"])
                # a red five (0p) as recognize --json names it teaches its five's face
                tiles = [(plain_code(str(t["code"])), tuple(float(v) for v in t["box"])) for t in reading["tiles"]]
            except (ValueError, KeyError, TypeError) as err:
                raise ProfileError("bad_labels", msg("{path}:{number}: not a Recognition JSON line ({err})",
                                                     path=path, number=number, err=err)) from None
            unknown = sorted({code for code, box in tiles if code not in DETECTOR_CLASSES or len(box) != 4})
            if unknown:
                raise ProfileError("bad_labels", msg("{path}:{number}: tiles with a bad code or box: {unknown}",
                                                     path=path, number=number, unknown=unknown[:5]))
            image_path = image_path if image_path.is_absolute() else path.parent / image_path
            try:
                image = load_image(image_path.read_bytes())
            except (OSError, ImageError) as err:
                raise ProfileError("bad_labels", msg("{path}:{number}: cannot read the photo {image_path}: {reason}",
                                                     path=path, number=number, image_path=image_path,
                                                     reason=getattr(err, "message", err))) from None
            yield image.bgr, [(code, tuple(v * image.scale for v in box)) for code, box in tiles]

    try:
        return _examples(features, photos(), "corrections")
    except ProfileError as err:
        if err.code == "no_examples" and not_done:
            said = dict(message=err.message, path=path, not_done=not_done)
            raise ProfileError("no_examples", msg("{message}: {path} holds {not_done} photo not marked done, which "
                                                  "teaches nothing (mark it done on the review page)", **said)
                               if not_done == 1 else
                               msg("{message}: {path} holds {not_done} photos not marked done, which teach nothing "
                                   "(mark them done on the review page)", **said)) from None
        raise


def _face_up_in_decoded(image: DecodedImage, tiles: Sequence[LabelledTile]) -> list[LabelledTile]:
    """The face-up tiles, their boxes in pixels of ``image.bgr`` (a large photo is decoded reduced)."""
    return [(code, tuple(v * image.scale for v in box)) for code, box in tiles if code != BACK_CODE]


def profile_from_layout_tiles(image: DecodedImage, tiles: Sequence[LabelledTile], features: FeatureReader) -> Profile:
    """A profile of a photo's tiles as a person labelled them (a layout reading checked and fixed), each learnt as a
    layout's tile is (``calibration.layout_examples``). Complete, naming the set's codes, when it holds every code of
    ``COMPLETE_SET_CODES``; otherwise a code it lacks is read by the shipped classifier alone."""
    face_up = _face_up_in_decoded(image, tiles)
    if not face_up:
        raise ProfileError("no_examples", msg("the labelled tiles hold no face-up tile to learn a face from"))
    codes = [code for code, _ in face_up]
    bgr, boxes = stood_up(image.bgr, [box for _, box in face_up], codes)
    crops = crop_tiles(bgr, boxes, features.classifier.size)
    example_codes, examples, views = layout_examples(bgr, boxes, codes, crops, features.read(crops), features)
    complete = COMPLETE_SET_CODES <= set(codes)
    return Profile.of_examples(example_codes, examples, features.digest, "sheet" if complete else "corrections",
                               codes=codes if complete else None, reliance=reliance_over_views(views, codes))


def profile_from_corrected_photo(image: DecodedImage, tiles: Sequence[LabelledTile], features: FeatureReader
                                 ) -> Profile:
    """A profile of one photo's tiles as the player corrected them: one example of each face-up tile."""
    return _examples(features, [(image.bgr, _face_up_in_decoded(image, tiles))], "corrections")
