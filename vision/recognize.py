"""Photo -> Recognition JSON (CONVENTIONS §4): decode, detect the tiles, lay them out into a hand.

A ``Recognizer`` loads the model once and is then shared (the HTTP service keeps one for its lifetime);
``recognize`` holds no state between calls, so concurrent requests may use it from several threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mjlens.i18n import msg
from mjlens.scoring.tiles import RED_FIVES, plain_code
from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import FACE_DOWN_KONG, assemble
from mjlens.vision.hand.winning import winning_reading
from mjlens.vision.reading.copies import copy_warnings
from mjlens.vision.reading.reader import TwoStageDetector, load_tile_reader
from mjlens.vision.reading.red_fives import load_red_five_judge, with_red_fives
from mjlens.vision.runtime.decode import DecodedImage, ImageError, load_image
from mjlens.vision.runtime.detector import Detector

#: A recognizer made without the layout step (``_assemble = None``) lists the tiles alone and says so.
NO_LAYOUT_WARNING = msg("the layout step is not available in this build: tiles are listed without a hand")
NO_TILES_WARNING = msg("no tiles were found in the photo")


def reading_order(detections: Sequence[Detection]) -> list[Detection]:
    """Left to right, then top to bottom: a stable order for the tiles list before the layout groups them."""
    return sorted(detections, key=lambda d: (d.center[0], d.center[1]))


class Recognizer:
    """Reads mahjong tiles from photos with one loaded detector."""

    def __init__(self, model_path: str | os.PathLike | None = None, *,
                 detector: Detector | TwoStageDetector | None = None, conf: float | None = None,
                 bonus_conf: float | None = None, back_conf: float | None = None,
                 classifier: str | os.PathLike | None = None, input_size: int | None = None,
                 profile: str | os.PathLike | None = None, threads: int | None = None):
        self.detector = detector or load_tile_reader(model_path, classifier=classifier, conf=conf,
                                                     bonus_conf=bonus_conf, back_conf=back_conf,
                                                     input_size=input_size, profile=profile, threads=threads)
        self._assemble = assemble
        self.red_fives = load_red_five_judge()

    def decode(self, data: bytes) -> DecodedImage:
        """The photo as the detector wants it (large JPEGs decoded reduced, never below the model's input)."""
        return load_image(data, target_side=getattr(self.detector, "decode_side", self.detector.input_size))

    def recognize(self, data: bytes, name: str = "image") -> dict[str, Any]:
        """Recognition JSON for one photo's bytes. Raises ``ImageError`` for a file that is not a usable photo."""
        return self.recognize_image(self.decode(data), name)

    def recognize_path(self, path: str | os.PathLike) -> dict[str, Any]:
        """Recognition JSON for a photo on disk; the result names the file by its base name."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except IsADirectoryError:
            raise ImageError("not_an_image", msg("{path} is a directory", path=path)) from None
        return self.recognize(data, path.name)

    def recognize_image(self, image: DecodedImage, name: str) -> dict[str, Any]:
        detections = reading_order(self.detector.detect(image.bgr, image.scale))
        recognition = self.assemble(detections, image.width, image.height, name)
        # the layout reads plain fives; which of them are red is read from their colours, after
        tiles = recognition["tiles"]
        red = self.red_fives.red_tiles(image.bgr, image.scale, [t["code"] for t in tiles], [t["box"] for t in tiles])
        return with_red_fives(recognition, red)

    def assemble(self, detections: list[Detection], width: int, height: int, name: str,
                 kongs: Sequence[str] = ()) -> dict[str, Any]:
        """Group the detections with the layout step (when present) and build the Recognition JSON; ``kongs``:
        the tiles of the concealed kongs shown with four backs (``vision.hand.layout.assemble``)."""
        return recognition_json(self._assemble, detections, width, height, name, kongs)


def recognition_json(assemble: Callable | None, detections: list[Detection], width: int, height: int, name: str,
                     kongs: Sequence[str] = ()) -> dict[str, Any]:
    """The Recognition JSON of ``detections``, grouped by ``assemble`` (the layout step, or None without it)."""
    warnings: list[str] = copy_warnings(detections)
    details: list[dict] = []
    groups: list[dict] = []
    tile_group: list[int | None] = [None] * len(detections)
    hand = None
    if assemble is None:
        warnings.extend(([] if detections else [NO_TILES_WARNING]) + [NO_LAYOUT_WARNING])
    else:  # the layout step says what it found, including "no tiles"
        def lay_out(tiles: list[Detection]) -> Any:
            return assemble(tiles, width, height, kongs) if kongs else assemble(tiles, width, height)

        detections, layout = winning_reading(detections, lay_out(detections), lay_out)
        groups = [dict(g) for g in layout.groups]
        tile_group = _tile_groups(layout, groups, len(detections))
        hand = layout.hand.to_json() if layout.hand is not None else None
        warnings.extend(w for w in layout.warnings if w not in warnings)
        details = [dict(n) for n in getattr(layout, "notices", ())]
    tiles = [{**d.to_json(), "group": tile_group[i]} for i, d in enumerate(detections)]
    return {"image": name, "width": width, "height": height, "tiles": tiles, "groups": groups,
            "hand": hand, "warnings": warnings, "warning_details": details}


def answer_kongs(recognition: dict[str, Any], kongs: Sequence[str]) -> dict[str, Any]:
    """``recognition`` with the concealed kongs shown with four backs told their tiles (``kongs``, in the order of
    their groups), its tiles laid out again by the layout step; as it is when ``kongs`` is empty. The other
    warnings of the first reading (the reader's) are kept."""
    if not kongs:
        return recognition
    tiles = recognition.get("tiles", ())
    # the layout reads plain fives (a chow of 4p 0p 6p is no chow to it); the red ones are marked again by their
    # boxes afterwards, as the first reading marks them
    detections = [Detection(plain_code(t["code"]), tuple(t["box"]), float(t["confidence"]),
                            tuple((a["code"], float(a["confidence"])) for a in t.get("alternatives", ())))
                  for t in tiles]
    red_boxes = {tuple(t["box"]) for t in tiles if t["code"] in RED_FIVES}
    again = recognition_json(assemble, detections, recognition["width"], recognition["height"],
                             recognition.get("image", "image"), kongs)
    again = with_red_fives(again, {i for i, t in enumerate(again["tiles"]) if tuple(t["box"]) in red_boxes})
    asked = {d["message"] for d in recognition.get("warning_details", ()) if d.get("code") == FACE_DOWN_KONG}
    first = [w for w in recognition.get("warnings", ()) if w not in asked]
    again["warnings"] = first + [w for w in again["warnings"] if w not in first]
    return {**recognition, **again}


def _tile_groups(layout: Any, groups: list[dict], count: int) -> list[int | None]:
    """Each tile's group index: the layout's ``tile_group`` (a list or a mapping), else read from the groups."""
    given = getattr(layout, "tile_group", None)
    if isinstance(given, dict):
        return [given.get(i) for i in range(count)]
    if given is not None and len(given) == count:
        return list(given)
    result: list[int | None] = [None] * count
    for g, group in enumerate(groups):
        for i in group.get("tiles", ()):
            result[i] = g
    return result
