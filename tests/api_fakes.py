"""A stand-in detector for the API, page and CLI tests: it decodes the photo with the real image layer (so
corrupt, oversized and wrong-format photos fail as they would in production) and then reports a fixed hand,
laid out left to right across the photo."""

from __future__ import annotations

import io
import threading
from typing import Any

from PIL import Image, ImageDraw

from mjlens.vision.runtime.decode import load_image

#: 123m 456p 78s 11z concealed, a pung of white dragons, 9s won: a winning hand under every rule system.
CONCEALED = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z"]
MELD = ["5z", "5z", "5z"]
WINNING = "9s"


def recognition_for(name: str, width: int, height: int, codes: list[str] | None = None) -> dict[str, Any]:
    """The Recognition JSON of the fixed hand (or of ``codes``, 14 tiles in the same places) in a photo."""
    codes = codes or CONCEALED + MELD + [WINNING]
    step = width / (len(codes) + 2)
    tiles = []
    for i, code in enumerate(codes):
        x1 = step * (i + 1)
        tiles.append({"code": code, "box": [round(x1, 1), round(height * 0.35, 1), round(x1 + step * 0.9, 1),
                                            round(height * 0.65, 1)],
                      "confidence": 0.42 if i == 3 else 0.97, "alternatives": [{"code": "6p", "confidence": 0.02}],
                      "group": 0 if i < 10 else (1 if i < 13 else 2)})
    hand = {"concealed": codes[:10], "winning_tile": codes[13], "flowers": [],
            "melds": [{"kind": "pung", "tiles": codes[10:13], "concealed": False}]}
    return {"image": name, "width": width, "height": height, "tiles": tiles,
            "groups": [{"role": "concealed", "tiles": list(range(10))},
                       {"role": "meld", "kind": "pung", "tiles": [10, 11, 12]},
                       {"role": "winning", "tiles": [13]}],
            "hand": hand, "warnings": []}


class FakeRecognizer:
    """Thread-safe like the real one; counts its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.last: tuple[str, int, int] | None = None  # name, width, height of the latest photo
        self._lock = threading.Lock()

    def recognize(self, data: bytes, name: str) -> dict[str, Any]:
        image = load_image(data)
        with self._lock:
            self.calls += 1
            self.last = (name, image.width, image.height)
        return recognition_for(name, image.width, image.height)

    def recognize_path(self, path) -> dict[str, Any]:
        from pathlib import Path

        return self.recognize(Path(path).read_bytes(), Path(path).name)


class BlockingRecognizer(FakeRecognizer):
    """Holds every call until ``release`` is set: fills the worker pool on purpose."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.started = threading.Semaphore(0)

    def recognize(self, data: bytes, name: str) -> dict[str, Any]:
        self.started.release()
        self.release.wait(timeout=30)
        return super().recognize(data, name)


#: A hand whose concealed kong lies with all four tiles face down: 123m 456p 789s 1z, 1z won, the kong's tile unseen.
FACE_DOWN_ROW = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z"]


def laid_out_recognition(name: str, width: int, height: int, parts: list[tuple[list[str], float]],
                         kongs: tuple[str, ...] = (), above: tuple[str, ...] = ()) -> dict[str, Any]:
    """The Recognition JSON the real layout step gives for tiles laid left to right across a photo: ``parts``, each
    its codes and the gap after it (tile widths beyond touching); ``kongs``: answers to face_down_kong; ``above``:
    tiles in a row set apart above them by most of a tile's length (a riichi player's dora indicators)."""
    from mjlens.vision.detection import Detection
    from mjlens.vision.hand.layout import assemble
    from mjlens.vision.recognize import recognition_json

    tile_w = width / 24
    tile_h, top = tile_w * 1.35, height * 0.4
    detections, x = [], tile_w
    for codes, gap in parts:
        for code in codes:
            detections.append(Detection(code, (x, top, x + tile_w, top + tile_h), 0.95))
            x += tile_w * 1.02
        x += tile_w * gap
    for k, code in enumerate(above):
        x = tile_w * (3 + k * 1.02)
        detections.append(Detection(code, (x, top - tile_h * 1.8, x + tile_w, top - tile_h * 0.8), 0.95))
    return recognition_json(assemble, detections, width, height, name, kongs)


#: A riichi hand, all simples, 5s won on a pair wait: 234m 456p 678s 22p 55s +5s; and a dora indicator, 1p, set
#: apart above the row (its two 2p are dora).
DORA_ROW = ["2m", "3m", "4m", "4p", "5p", "6p", "6s", "7s", "8s", "2p", "2p", "5s", "5s"]
DORA_INDICATORS = ("1p",)


def dora_row_recognition(name: str, width: int, height: int) -> dict[str, Any]:
    """The riichi hand of ``DORA_ROW``, its winning tile set apart, and ``DORA_INDICATORS`` above it."""
    return laid_out_recognition(name, width, height, [(DORA_ROW, 1.2), (["5s"], 1.2)], above=DORA_INDICATORS)


def face_down_kong_recognition(name: str, width: int, height: int, kongs: tuple[str, ...] = ()) -> dict[str, Any]:
    """The face-down hand: its row, the winning tile and the kong of four backs each set apart by 1.2 tiles
    (``kongs``: the kong's tile, as the player gives it)."""
    return laid_out_recognition(name, width, height, [(FACE_DOWN_ROW, 1.2), (["1z"], 1.2), (["back"] * 4, 1.2)],
                                kongs)


def unsure_meld_recognition(name: str, width: int, height: int) -> dict[str, Any]:
    """123m 456p 789s 1z, 1z won, and a pung of 5z set apart from the winning tile by half a tile only: a meld the
    layout is unsure of."""
    return laid_out_recognition(name, width, height, [(FACE_DOWN_ROW, 1.2), (["1z"], 0.55), (["5z"] * 3, 0.0)])


class LaidOutRecognizer(FakeRecognizer):
    """Reads every photo as the hand ``read(name, width, height)`` lays out (default: the face-down kong's)."""

    def __init__(self, read=face_down_kong_recognition) -> None:
        super().__init__()
        self.read = read

    def recognize(self, data: bytes, name: str) -> dict[str, Any]:
        image = load_image(data)
        with self._lock:
            self.calls += 1
            self.last = (name, image.width, image.height)
        return self.read(name, image.width, image.height)


FaceDownKongRecognizer = LaidOutRecognizer


def sample_photo(fmt: str = "JPEG", size: tuple[int, int] = (960, 540), exif_orientation: int | None = None) -> bytes:
    """A synthetic table photo: green cloth and fourteen light tiles with their names, in ``fmt``."""
    image = Image.new("RGB", size, (20, 90, 50))
    draw = ImageDraw.Draw(image)
    codes = CONCEALED + MELD + [WINNING]
    step = size[0] / (len(codes) + 2)
    for i, code in enumerate(codes):
        x1 = step * (i + 1)
        draw.rectangle([x1, size[1] * 0.35, x1 + step * 0.9, size[1] * 0.65], fill=(240, 235, 220))
        draw.text((x1 + 4, size[1] * 0.45), code, fill=(0, 0, 0))
    out = io.BytesIO()
    kwargs: dict[str, Any] = {}
    if exif_orientation:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        kwargs["exif"] = exif.tobytes()
    if fmt == "HEIF":  # pillow-heif's own writer: Pillow learns HEIF from mjlens only when a HEIC file comes
        import pillow_heif

        pillow_heif.from_pillow(image).save(out, **kwargs)
    else:
        image.save(out, fmt, **kwargs)
    return out.getvalue()
