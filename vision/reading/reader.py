"""Two-stage tile reading: the detector finds the tiles, the crop classifier names them.

``TwoStageDetector`` has the detector's interface (``detect``, ``detect_for_eval``, ``input_size``, ``names``), so
the recognizer, ``mjlens eval`` and the service use either without knowing which. The detector's own class scores
are kept only to decide *where* the tiles are: every box it finds with some chance of being a tile
(``vision.runtime.detector.tile_scores``, at least ``FLOOR``) is read from its crop, and the tile is kept when that
chance
times the classifier's probability reaches the pair's ``conf``: a box the detector doubts stays if the classifier
reads a clear face in it, and goes if it reads none. Flowers and seasons are kept at a threshold of their own
(``BONUS_CONF``): they lie apart from the hand, where the detector is least sure of a tile, while the classifier
reads their pictures as surely as any face. So are face-down tiles (``BACK_CONF``), which the detector has seen only
in synthetic photos. A box in a row's gap, beside kept tiles of its height, is kept lower still
(``vision.reading.row_gaps``), and a box the detector is sure of is kept whatever the classifier reads in it
(``vision.reading.sure_boxes``). The classifier's runner-ups become the tile's ``alternatives``. That first reading is
followed by the second readings that apply (``vision.reading.second``), on one path for the product and ``mjlens eval``
(``vision.reading.path.read_photo``): the evaluation asks it to keep, with the tiles, the candidates mAP ranks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from mjlens.i18n import msg
from mjlens.scoring.tiles import BACK_CODE, DETECTOR_CLASSES
from mjlens.vision.detection import Detection, boxes_in_pixels, mean_confidence
from mjlens.vision.profile import Profile, ProfiledClassifier, ProfileError
from mjlens.vision.reading.blank_faces import BLANK, blank_faces
from mjlens.vision.reading.closer_view import with_closer_view
from mjlens.vision.reading.edge_on import edge_on
from mjlens.vision.reading.lone_blanks import without_lone_blanks
from mjlens.vision.reading.path import KeepAt, Reading, one_set, read_photo
from mjlens.vision.reading.row_gaps import ROW_KEEP, ROW_TILE, row_gaps
from mjlens.vision.reading.second import SECOND_READINGS
from mjlens.vision.reading.second.small_tiles import (
    COVERED,
    FEW_TILES,
    ZOOM_INPUT,
    few_tiles_input,
    larger_first,
    second_reading_input,
)
from mjlens.vision.reading.second.squeezed import (
    MIN_TILES,
    Squash,
    candidate_squashes,
    reading_score,
    squeezed_by_detail_alone,
)
from mjlens.vision.reading.second.turned import ON_THEIR_SIDE, QUARTER, median_aspect, row_turn, rows_upright
from mjlens.vision.reading.sideways import read_sideways
from mjlens.vision.reading.sure_boxes import sure_boxes
from mjlens.vision.runtime.classifier import CLASSIFIER_ENV, CropClassifier, check_pair, shipped_classifier_for
from mjlens.vision.runtime.detector import ALT_FLOOR, TOP_K, Detector, decode, default_model_path, tile_scores

#: The operating point of the pair, chosen on hk-photos ``valid`` with ``mjlens eval DATA --sweep --input-size N``
#: (docs/experiments/thresholds.md): the detector only has to find the tiles, which it does as well at 448 px as at
#: 640 px (93 % of the tiles either way) in 40 % of the time. ``CONF`` is the least (chance of a tile) x (classifier
#: probability) a tile is kept at; ``BONUS_CONF`` the same for a flower or season, chosen after ``CONF`` by the same
#: rule (the sweep's second table); ``BACK_CONF`` for a face-down tile, by the same rule on synthetic photos made for
#: it (``valid`` has none; docs/experiments/thresholds.md); ``FLOOR`` the least chance of a tile worth reading at all.
CONF = 0.2
BONUS_CONF = 0.12
BACK_CONF = 0.1
FLOOR = 0.03
#: A tile read as 白 (``BLANK``, the one blank face) is kept only where the classifier reads it at least ``BLANK_SURE``
#: surely: paper, a phone, a book's spine or a keyboard's keys read as a blank face, less surely than the real 白 of
#: hk-photos ``valid`` (all 0.957 or more); chosen on synthetic hard negatives (docs/experiments/hard-negatives.md).
BLANK_SURE = 0.9
INPUT_SIZE = 448
#: Photos are decoded with at least this long side (a JPEG reduced while decoding, never more than needed): the
#: classifier cuts its crops from the decoded photo, and a 17-tile row across 1024 px gives tiles 60 px wide and
#: about 80 px tall, near the classifier's 64-96 px crops.
DECODE_SIDE = 1024
#: A box that is surely a tile (its chance of a tile at least ``SURE_TILE``) whose face the classifier reads less
#: surely than ``UNSURE`` is read again turned: upside down, and on its side (the mean of its readings a quarter turn
#: either way, which a tile lying on its side both are), and the surer of the two taken where it is surer than the
#: upright reading by ``TURN_GAIN``: tiles lie upside down across the table, on their side in a heap or a meld, and
#: the classifier learnt them mostly upright (chosen on hk-photos ``valid``, checked on synthetic photos:
#: docs/experiments/unsure-tiles-turned.md).
SURE_TILE, UNSURE, TURN_GAIN = 0.45, 0.7, 0.2
#: The readings of an unsure box beside the upright one: each the mean of its crop turned by these quarter turns.
TURNED_READINGS = ((2,), (1, 3))
TURNS = sorted({turn for reading in TURNED_READINGS for turn in reading})  # each turned crop read once
#: A photo that looks squeezed is located at every squash (``vision.reading.second.squeezed``), and only this many
#: squashes, those
#: whose boxes most surely hold tiles (their chances of a tile summed), are read: reading takes most of the time of a
#: squash, and on the 35 squeezed photos of hk-photos ``valid`` the best three hold the squash read best every time
#: (the best two, 33 times): docs/experiments/runtime-speed.md.
SQUASHES_READ = 3
#: The crops of nearly square boxes are read turned by these quarter turns clockwise, to tell tiles on their side from
#: a grid of upright tiles seen from above (``level_turn``).
QUARTER_TURNS = (1, 3)
EVAL_CANDIDATES = 100  # boxes per photo read for mAP (a tray photo holds about 40 tiles)
EVAL_READINGS = 3  # readings per box offered to mAP, each scored box confidence x class probability


class TwoStageDetector:
    """A detector for boxes and a crop classifier for codes."""

    def __init__(self, detector: Detector, classifier: CropClassifier, conf: float = CONF,
                 bonus_conf: float = BONUS_CONF, back_conf: float = BACK_CONF, floor: float = FLOOR,
                 zoom_input: int | None = ZOOM_INPUT):
        self.detector = detector
        self.zoom_input = zoom_input  # None: a photo of small tiles is not read a second time
        self.few_tiles = FEW_TILES  # 0: a first reading of few tiles is not made again larger
        self.classifier = classifier
        self.keep_at = KeepAt(conf, bonus_conf, back_conf)
        self.floor = min(floor, self.keep_at.lowest)
        self.names = DETECTOR_CLASSES
        self.path = detector.path

    @property
    def conf(self) -> float:
        return self.keep_at.tiles

    @property
    def bonus_conf(self) -> float:
        return self.keep_at.bonus

    @property
    def back_conf(self) -> float:
        return self.keep_at.back

    def thresholds(self, conf: float | None = None, bonus_conf: float | None = None,
                   back_conf: float | None = None) -> KeepAt:
        """The pair's own thresholds with those given put in their place; flowers and backs at the lower of their
        own and the tiles' (``KeepAt``)."""
        own = self.keep_at
        return KeepAt(own.tiles if conf is None else conf, own.bonus if bonus_conf is None else bonus_conf,
                      own.back if back_conf is None else back_conf)

    @property
    def input_size(self) -> int:
        return self.detector.input_size

    @property
    def decode_side(self) -> int:
        return max(self.detector.input_size, DECODE_SIDE)

    @property
    def merge_iou(self) -> float:
        return self.detector.merge_iou

    def locate(self, boxes: np.ndarray, scores: np.ndarray, conf: float | None = None,
               max_det: int = 300, covered: float | None = None) -> list[Detection]:
        """The detector's anchors (``Detector.raw``) -> one box per likely tile, its confidence the chance that it
        is a tile at all (at least ``conf``, by default the pair's floor); ``covered`` as ``decode`` takes it."""
        return decode(boxes, scores, self.detector.names, conf=self.floor if conf is None else conf,
                      nms_iou=self.detector.nms_iou, merge_iou=self.detector.merge_iou, top_k=0, max_det=max_det,
                      box_scores=tile_scores(scores), covered=covered)

    def read(self, bgr: np.ndarray, located: Sequence[Detection], pixel_scale: float = 1.0, *,
             keep_at: KeepAt | None = None) -> list[Detection]:
        """The located boxes whose chance of a tile times the classifier's probability reaches ``keep_at`` (the
        pair's by default), those in a row's gaps (``row_gaps``) and those the detector is sure of (``sure_boxes``),
        each named by the classifier: code, probability, runner-up codes (no face-down tile where the box is no
        tile's shape: ``edge_on``); then the blank faces standing in a row's gaps that no box found
        (``blank_faces``), the tiles lying sideways in a row named turned back (``read_sideways``), and the reading
        made one tile set's (``one_set``)."""
        keep_at = keep_at or self.keep_at
        located = [d for d in located if d.confidence >= keep_at.lowest]  # no probability keeps a box below it
        if not located:
            return []
        probs = self.probabilities(bgr, located, pixel_scale)
        image_size = (bgr.shape[1] / pixel_scale, bgr.shape[0] / pixel_scale)
        read, unsure, dropped = [], [], {}
        for detection, row in zip(located, probs, strict=True):
            order = np.argsort(-row)
            code, probability = self.names[order[0]], float(row[order[0]])
            if code == BLANK and probability < BLANK_SURE:
                continue
            if code == BACK_CODE and edge_on(detection.box, *image_size):
                continue  # a tile's side or the space between two, not a tile lying face down
            alternatives = tuple((self.names[c], float(row[c])) for c in order[1:TOP_K + 1] if row[c] >= ALT_FLOOR)
            tile = replace(detection, code=code, confidence=probability, alternatives=alternatives)
            if detection.confidence * probability >= keep_at.of(code):
                read.append(tile)
                continue
            if detection.confidence >= ROW_TILE and detection.confidence * probability >= ROW_KEEP:
                unsure.append(tile)
            dropped[detection] = tile
        read += row_gaps(unsure, read)
        read += [dropped[box] for box in sure_boxes([d for d, t in dropped.items() if t not in read], read,
                                                    *image_size)]
        read += blank_faces(self.classifier, bgr, read, pixel_scale)
        return one_set(read_sideways(self.classifier, bgr, read, pixel_scale))

    def probabilities(self, bgr: np.ndarray, located: Sequence[Detection], pixel_scale: float = 1.0) -> np.ndarray:
        """The classifier's probabilities of each located box; a box surely a tile but read unsurely is read again
        turned each way, and the surest turned reading taken where it is surer (``SURE_TILE``, ``UNSURE``,
        ``TURNED_READINGS``, ``TURN_GAIN``); a reading of the crop as it lies still unsure is joined by a closer
        view of it (``with_closer_view``)."""
        boxes = boxes_in_pixels(located, pixel_scale)
        probs = self.classifier.probabilities(bgr, boxes)
        as_it_lies = np.ones(len(located), bool)  # False where a turned reading was taken
        unsure = [i for i, d in enumerate(located) if d.confidence >= SURE_TILE and probs[i].max() < UNSURE]
        if unsure:
            turned = self.classifier.turned_probabilities(bgr, [boxes[i] for i in unsure], TURNS)
            means = np.stack([turned[[TURNS.index(t) for t in reading]].mean(axis=0) for reading in TURNED_READINGS])
            for j, i in enumerate(unsure):
                readings = means[:, j]
                surest = readings[int(readings.max(axis=1).argmax())]  # the first reading of the surest, on a tie
                if surest.max() >= probs[i].max() + TURN_GAIN:
                    probs[i], as_it_lies[i] = surest, False
        return with_closer_view(self.classifier, bgr, boxes, probs, as_it_lies)

    def first_reading(self, bgr: np.ndarray, pixel_scale: float = 1.0, keep_at: KeepAt | None = None,
                      input_size: int | None = None, around: Sequence[float] | None = None, *,
                      candidates_at: float | None = None) -> Reading:
        """Locate (at a detector input of ``input_size``, its own by default; only ``around`` a rectangle, if given:
        ``Detector.raw``) and read the tiles of ``bgr`` as it is; a second, larger reading drops the boxes its
        better boxes cover (``vision.reading.second.small_tiles.COVERED``). With ``candidates_at``, the candidates for
        mAP from the same
        run of the detector (``candidates``)."""
        raw = self.detector.raw(bgr, pixel_scale, input_size, around)
        covered = COVERED if input_size else None
        tiles = self.read(bgr, self.locate(*raw, covered=covered), pixel_scale, keep_at=keep_at)
        return Reading(tiles, self.candidates(bgr, raw, candidates_at, pixel_scale, covered))

    def find(self, bgr: np.ndarray, pixel_scale: float = 1.0, keep_at: KeepAt | None = None,
             input_size: int | None = None, around: Sequence[float] | None = None) -> list[Detection]:
        """The tiles of ``first_reading``."""
        return self.first_reading(bgr, pixel_scale, keep_at, input_size, around).tiles

    def candidates(self, bgr: np.ndarray, raw: tuple[np.ndarray, np.ndarray], conf: float | None,
                   pixel_scale: float = 1.0, covered: float | None = None) -> list[Detection] | None:
        """What mAP ranks of one run of the detector (``raw``): the best ``EVAL_CANDIDATES`` boxes whose chance of a
        tile reaches ``conf`` (one per tile), each offered under its top ``EVAL_READINGS`` codes scored box
        confidence x probability; None without ``conf``."""
        if conf is None:
            return None
        located = self.locate(*raw, conf=conf, max_det=EVAL_CANDIDATES, covered=covered)
        probs = self.probabilities(bgr, located, pixel_scale)
        return [replace(detection, code=self.names[c], confidence=float(detection.confidence * row[c]),
                        alternatives=())
                for detection, row in zip(located, probs, strict=True) for c in np.argsort(-row)[:EVAL_READINGS]]

    def zoom_for(self, found: Sequence[Detection], bgr: np.ndarray, pixel_scale: float = 1.0) -> int | None:
        """The larger detector input to read ``bgr`` again at when the tiles ``found`` are small
        (``vision.reading.second.small_tiles``);
        None when they are not, when the detector's input is fixed or when the pair reads every photo once."""
        if self.detector.fixed_shape or not self.zoom_input:
            return None
        height, width = bgr.shape[:2]
        return second_reading_input(found, width / pixel_scale, height / pixel_scale, self.input_size,
                                    zoom=self.zoom_input, pixels=max(width, height))

    def reading_of(self, bgr: np.ndarray, pixel_scale: float = 1.0, keep_at: KeepAt | None = None, *,
                   candidates_at: float | None = None) -> Reading:
        """The reading of a photo: its first reading, then the second readings that apply
        (``vision.reading.second``), at ``keep_at`` (the pair's by default), less the 白 that lie away from every
        other tile (``lone_blanks``); with ``candidates_at``, the candidates for mAP kept along the way."""
        keep_at = keep_at or self.keep_at
        first = self.first_reading(bgr, pixel_scale, keep_at, candidates_at=candidates_at)
        if (zoom := self.few_tiles_zoom(first.tiles, bgr, pixel_scale)) is not None:
            larger = self.first_reading(bgr, pixel_scale, keep_at, zoom, candidates_at=candidates_at)
            if larger_first(first.tiles, larger.tiles):
                first = larger
        reading = read_photo(self, bgr, pixel_scale, keep_at, SECOND_READINGS, candidates_at=candidates_at,
                             first=first)
        return replace(reading, tiles=without_lone_blanks(reading.tiles))

    def few_tiles_zoom(self, found: Sequence[Detection], bgr: np.ndarray, pixel_scale: float = 1.0) -> int | None:
        """The larger detector input to make the first reading at again when it found fewer tiles than a hand,
        none of them large (``vision.reading.second.small_tiles.few_tiles_input``); None as ``zoom_for``, and for a
        photo whose detail says it was squeezed (``squeezed_by_detail_alone``): its tiles are stretched, not small,
        and the squeezed-photo reading reads them."""
        if self.detector.fixed_shape or not self.zoom_input:
            return None
        height, width = bgr.shape[:2]
        zoom = few_tiles_input(found, width / pixel_scale, height / pixel_scale, self.input_size, self.zoom_input,
                               self.few_tiles, pixels=max(width, height))
        return None if zoom is None or squeezed_by_detail_alone(bgr) else zoom

    def detect(self, bgr: np.ndarray, pixel_scale: float = 1.0, *, conf: float | None = None,
               bonus_conf: float | None = None, back_conf: float | None = None) -> list[Detection]:
        """The tiles, read (``reading_of``) at ``thresholds(conf, bonus_conf, back_conf)``."""
        return self.reading_of(bgr, pixel_scale, self.thresholds(conf, bonus_conf, back_conf)).tiles

    def detect_for_eval(self, bgr: np.ndarray, low_conf: float = 0.001) -> tuple[list[Detection], list[Detection]]:
        """The candidates for mAP (boxes with a chance of a tile of at least ``low_conf``: ``candidates``) and the
        operating reading, both from the one reading ``detect`` makes (``reading_of``)."""
        reading = self.reading_of(bgr, candidates_at=low_conf)
        return reading.candidates or [], reading.tiles

    def level_turn(self, bgr: np.ndarray, found: Sequence[Detection], pixel_scale: float = 1.0) -> float | None:
        """The angle (cv2 degrees) to read ``bgr`` again at so that the rows of the tiles ``found`` run level, or
        None: diagonal rows are turned level (``vision.reading.second.turned.row_turn``); tiles on their side in rows
        running up the
        photo (``vision.reading.second.turned.rows_upright``) a quarter turn (``QUARTER``: both ways are read); where
        their boxes are
        nearly square (``vision.reading.second.turned.ON_THEIR_SIDE``), only if their faces read surer turned a quarter,
        one way or
        the other, than as they lie: a grid of upright tiles seen from above can look like rows running up the
        photo, and read a quarter turn its faces lie on their side."""
        if (turn := row_turn(found)) is not None or not rows_upright(found):
            return turn
        if median_aspect(found) < ON_THEIR_SIDE:
            turned = self.classifier.turned_probabilities(bgr, boxes_in_pixels(found, pixel_scale), QUARTER_TURNS)
            if turned.max(axis=2).mean(axis=1).max() <= mean_confidence(found):
                return None
        return QUARTER

    def best_squash(self, bgr: np.ndarray, to_beat: float, keep_at: KeepAt | None = None, *,
                    candidates_at: float | None = None) -> tuple[Squash, Reading, tuple[float, float]] | None:
        """The squash of ``bgr`` whose reading scores above ``to_beat`` and every other squash: the squash, its
        reading (boxes in the squashed image; with the candidates for mAP at ``candidates_at``) and the pixels of
        ``bgr`` per squashed pixel; None if none does. Every squash worth trying (``candidate_squashes``) whose
        squashed photo no longer looks squeezed by its detail (``squeezed_by_detail_alone``: squashed too little, or
        too much the other way) is located, and only the ``SQUASHES_READ`` whose boxes most surely hold tiles are
        read."""
        keep_at = keep_at or self.keep_at
        located = []
        for squash in candidate_squashes(bgr):
            image = squash.apply(bgr)
            if squeezed_by_detail_alone(image):
                continue
            raw = self.detector.raw(image)
            boxes = self.locate(*raw)
            located.append((reading_score([d for d in boxes if d.confidence >= keep_at.tiles]), squash, image, raw,
                            boxes))
        best = None
        for _, squash, image, raw, boxes in sorted(located, key=lambda item: -item[0])[:SQUASHES_READ]:
            reading = self.read(image, boxes, keep_at=keep_at)
            if len(reading) < MIN_TILES:
                continue
            score = reading_score(reading)
            if score > to_beat:
                best, to_beat = (squash, image, raw, reading), score
        if best is None:
            return None
        squash, image, raw, reading = best
        return squash, Reading(reading, self.candidates(image, raw, candidates_at)), squash.scales(bgr, image)


def load_tile_reader(model_path: str | os.PathLike | None = None, *, classifier: str | os.PathLike | None = None,
                     threads: int | None = None, conf: float | None = None, bonus_conf: float | None = None,
                     back_conf: float | None = None, input_size: int | None = None,
                     profile: str | os.PathLike | Profile | None = None) -> Detector | TwoStageDetector:
    """The product's tile reader: the detector, joined by the crop classifier when one is configured.

    ``classifier``: a path, "none" for the detector alone, or None for ``MJLENS_CLASSIFIER``, else the shipped
    crop classifier where it fits the detector, else an error (``shipped_classifier_for``). ``conf``,
    ``bonus_conf``, ``back_conf`` and ``input_size`` default to the pair's operating point, or the detector's own
    when it runs alone (which has one threshold for every code); flowers and backs are kept at the lower of
    ``conf`` and their own. ``profile``: a profile of the player's tile set (a file or a loaded one), read
    alongside the classifier (``vision.profile``).
    """
    model = Path(model_path) if model_path else default_model_path()
    named = classifier if classifier is not None else os.environ.get(CLASSIFIER_ENV) or None
    if named is not None and str(named).lower() == "none":
        if profile is not None:
            raise ProfileError("profile_classifier", msg("a profile is read with the crop classifier, not the "
                                                         "detector alone"))
        return Detector(model, threads=threads, input_size=input_size, **({} if conf is None else {"conf": conf}))
    detector = Detector(model, threads=threads, input_size=input_size or INPUT_SIZE)
    crop_classifier = CropClassifier(Path(named) if named is not None else shipped_classifier_for(detector),
                                     threads=threads)
    check_pair(detector, crop_classifier)
    if profile is not None:
        crop_classifier = ProfiledClassifier(crop_classifier, profile if isinstance(profile, Profile)
                                             else Profile.load(profile), threads=threads)
    return TwoStageDetector(detector, crop_classifier, conf=CONF if conf is None else conf,
                            bonus_conf=BONUS_CONF if bonus_conf is None else bonus_conf,
                            back_conf=BACK_CONF if back_conf is None else back_conf)


def loaded_models(reader: Detector | TwoStageDetector) -> dict[str, str | None]:
    """Which model files a tile reader runs, by name: what ``/readyz`` and ``mjlens recognize --json`` report."""
    classifier = getattr(reader, "classifier", None)
    return {"detector": Path(reader.path).name, "classifier": classifier.path.name if classifier else None}
