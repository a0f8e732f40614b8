"""Decode an uploaded photo into an upright BGR array, refusing anything that is not a sane photo.

Photos arrive as untrusted bytes (HTTP uploads, files on the command line), so every failure is an
``ImageError`` with a stable ``code`` rather than a Pillow exception, and sizes are checked from the header
before any pixel is decoded (a 50 kB PNG can claim 100 000 x 100 000 pixels). Phones store the camera's
orientation in EXIF rather than rotating pixels; boxes must be in the upright image (CONVENTIONS §4), so the
rotation is applied here, once. Large JPEGs are decoded at a reduced scale when the caller only needs a small
image (the detector works at 640 px): libjpeg's DCT scaling makes a 12 Mpx photo several times cheaper; other
formats are reduced right after decoding, before any colour conversion copies them.

A file of a few kilobytes can describe a picture that costs seconds and gigabytes to decode (a flat lossless
WebP or PNG of 50 Mpx compresses to 2 kB). So the decode is budgeted from the header: its peak memory is
estimated from the size, the pixel format and the decoder's own copies (``decode_cost``), one photo over
``MAX_DECODE_BYTES`` is refused, and the photos being decoded at once share ``DECODE_BUDGET``, so the memory
of the decodes in flight stays bounded whatever the number of threads.
"""

from __future__ import annotations

import functools
import io
import re
import struct
import threading
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from mjlens.i18n import msg

MAX_BYTES = 20 * 1024 * 1024
MAX_PIXELS = 50_000_000
MIN_SIDE = 32  # below this no tile is legible; also refuses 1x1 tracking pixels and icons
#: Largest estimated peak memory of one decode (``decode_cost``); also the budget the decodes in flight share.
MAX_DECODE_BYTES = 512 * 2**20
#: Largest pixel data a decoder may produce (inflating a PNG costs CPU in proportion): 50 Mpx at 4 bytes.
MAX_RAW_BYTES = 200 * 2**20
#: Above this many pixels a photo takes at least ``MIN_BYTES_PER_MEGAPIXEL`` bytes of file: a flat lossless WebP
#: or HEIC of 50 Mpx fits in 2 kB yet costs seconds of CPU to decode, and no photo compresses that far.
SPARSE_CHECK_PIXELS = 8_000_000
MIN_BYTES_PER_MEGAPIXEL = 1000
#: Most scans read in a JPEG: each scan of a progressive JPEG is a pass over the whole picture, so a file of
#: a few hundred kB repeating a 40-byte scan thousands of times costs seconds; cameras write 1 to about 12.
MAX_JPEG_SCANS = 100
#: Most chunks in a PNG, and marker segments before a JPEG's first scan: Pillow reads each in Python (about
#: 3.5 us a PNG chunk), so 18 MB of empty chunks cost 5 s before a pixel; encoders write a few thousand at most.
MAX_PNG_CHUNKS = 100_000
MAX_JPEG_SEGMENTS = 1_000
#: Decodes whose estimate is at least this large hand their memory back to the system when they end.
_TRIM_AFTER_BYTES = 64 * 2**20

#: Pillow openers tried (the JPEG opener also returns "MPO", the multi-picture JPEG many cameras write).
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP", "HEIF")

#: The stable codes of ``ImageError`` (HTTP error bodies and the command line show them).
IMAGE_ERROR_CODES = {
    "not_an_image": "the data is not an image file",
    "corrupt_image": "the image file is damaged or truncated",
    "image_too_large": "the file is larger than the upload limit",
    "too_many_pixels": "the image has more pixels than the limit",
    "image_too_small": "the image is too small to show tiles",
    "unsupported_image": "the image format or pixel format is not supported",
}

#: The first bytes of each accepted format: a file that starts like one but fails to open is damaged, not alien.
_SIGNATURES = (re.compile(rb"\xff\xd8\xff"), re.compile(rb"\x89PNG\r\n\x1a\n"), re.compile(rb"RIFF....WEBP", re.S),
               re.compile(rb"....ftyp(heic|heix|hevc|heim|heis|hevm|hevs|mif1|msf1|avif)", re.S))

#: Bytes Pillow keeps per pixel for a mode (RGB and the other 3- and 4-band modes take 4).
_STORED_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16B": 2, "I;16L": 2, "I;16N": 2}
#: Copies of the full picture each decoder holds at its peak, beyond Pillow's own image: libwebp's animation
#: decoder keeps two canvases and hands a third over as bytes; libheif hands its output over as one more copy.
_DECODER_COPIES = {"WEBP": 3.0, "HEIF": 1.0}
#: Full-size copies made converting an image kept at full size to BGR (alpha compositing makes the most).
_CONVERSION_COPIES = 3.0

#: EXIF orientations 5-8 turn the picture a quarter, swapping width and height.
_ORIENTATION_TAG = 0x0112
_TRANSPOSING_ORIENTATIONS = {5, 6, 7, 8}


class ImageError(ValueError):
    """A photo that cannot be used. ``code`` is one of ``IMAGE_ERROR_CODES``."""

    def __init__(self, code: str, message: str):
        if code not in IMAGE_ERROR_CODES:
            raise KeyError(f"unregistered image error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class DecodedImage:
    """An upright photo. ``bgr`` may be smaller than ``width`` x ``height`` (reduced JPEG decoding)."""

    bgr: np.ndarray  # H x W x 3 uint8, OpenCV channel order
    width: int  # the upright photo's size in pixels, as the Recognition JSON reports it
    height: int
    format: str

    @property
    def scale(self) -> float:
        """Pixels of ``bgr`` per pixel of the original photo (1.0 unless decoded reduced)."""
        return self.bgr.shape[1] / self.width


class DecodeBudget:
    """Bytes of decode memory shared by the threads decoding at once: a decode waits until its estimate fits.

    One estimate over the whole budget is refused before this is asked (``load_image``), so a wait always ends.
    """

    def __init__(self, total_bytes: int):
        self.total_bytes = total_bytes
        self.in_use = 0
        self._changed = threading.Condition()

    def acquire(self, nbytes: int) -> None:
        nbytes = min(nbytes, self.total_bytes)
        with self._changed:
            self._changed.wait_for(lambda: self.in_use + nbytes <= self.total_bytes)
            self.in_use += nbytes

    def release(self, nbytes: int) -> None:
        nbytes = min(nbytes, self.total_bytes)
        with self._changed:
            self.in_use -= nbytes
            idle = self.in_use == 0
            self._changed.notify_all()
        if idle and nbytes >= _TRIM_AFTER_BYTES:
            _give_memory_back()


#: The budget every ``load_image`` call shares (the service sizes it from ``MJLENS_MAX_DECODE_BYTES``).
DECODE_BUDGET = DecodeBudget(MAX_DECODE_BYTES)


@functools.cache
def _libc_malloc_trim():
    """glibc's ``malloc_trim``, looked up on the first large decode (ctypes costs tens of ms to load at start)."""
    import ctypes

    try:
        return ctypes.CDLL(None).malloc_trim  # the process's own symbols: libc's where it is glibc
    except (OSError, AttributeError):  # not glibc: nothing to trim
        return None


def _give_memory_back() -> None:
    """glibc keeps freed heap pages for reuse; after a large decode that would leave hundreds of MB resident."""
    trim = _libc_malloc_trim()
    if trim is not None:
        trim(0)


#: ISO base media files (HEIC, HEIF, AVIF) have ``ftyp`` at bytes 4-8: only they need pillow-heif's opener.
_ISO_MEDIA = re.compile(rb"....ftyp", re.S)


@functools.cache
def _register_heif() -> None:
    """Register pillow-heif's opener, on the first file that may be HEIC/HEIF (iPhones write it by default): its
    import costs tens of ms that a JPEG or PNG read need not wait for."""
    try:
        from pillow_heif import register_heif_opener
    except ImportError:  # pragma: no cover - pillow-heif is a declared dependency; tolerate its absence
        return
    register_heif_opener()


@dataclass(frozen=True)
class DecodeCost:
    """What decoding a photo will take, known from its header."""

    width: int  # the pixels decoded (after a JPEG's reduced decoding)
    height: int
    peak_bytes: int  # estimated peak memory of the decode and the conversion to BGR


def decode_cost(image: Image.Image, factor: int = 1) -> DecodeCost:
    """The estimate for an opened, not yet decoded image (after ``draft``), reduced by ``factor`` once decoded
    (the conversion to BGR then copies only the reduced picture)."""
    width, height = image.size
    pixels = width * height
    stored = _STORED_BYTES.get(image.mode, 4) * pixels
    if factor > 1 and ("A" in image.mode or "transparency" in image.info):
        stored *= 2  # Image.reduce premultiplies alpha in a full-size copy
    decoder = _DECODER_COPIES.get(image.format or "", 0.0) * 4 * pixels
    kept = -(-width // factor) * -(-height // factor)
    return DecodeCost(width, height, int(stored + decoder + _CONVERSION_COPIES * 4 * kept))


def raw_bytes(image: Image.Image, data: bytes) -> int:
    """Bytes of pixel data the decoder produces: a PNG's bit depth and channels from its header (a 16-bit RGBA
    PNG inflates 8 bytes a pixel though Pillow keeps 4), one byte a band for the other formats."""
    width, height = image.size
    if image.format == "PNG" and len(data) >= 26:
        bit_depth, color_type = data[24], data[25]
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(color_type, 4)
        return -(-width * channels * bit_depth // 8) * height
    return width * height * len(image.getbands())


def check_cost(image: Image.Image, data: bytes, factor: int = 1, budget: DecodeBudget | None = None
               ) -> DecodeCost:
    """Refuse (``too_many_pixels``; ``unsupported_image`` for a JPEG of too many scans) a photo whose decode would
    cost more than the limits, from its header; the memory estimate is checked against ``budget`` when given."""
    width, height = image.size
    described = msg("the {format} image is {width}x{height} pixels", format=image.format, width=width, height=height)
    if image.format in ("JPEG", "MPO"):
        scans = data.count(b"\xff\xda")  # start-of-scan markers: entropy-coded data never holds FF DA
        if scans > MAX_JPEG_SCANS:
            raise ImageError("unsupported_image", msg("the JPEG has {scans} scans; at most {MAX_JPEG_SCANS} "
                                                      "are read", scans=scans, MAX_JPEG_SCANS=MAX_JPEG_SCANS))
    if width * height > SPARSE_CHECK_PIXELS and len(data) * 1e6 < MIN_BYTES_PER_MEGAPIXEL * width * height:
        raise ImageError("too_many_pixels", msg("{described} in {n_data} bytes: above {megapixels:g} megapixels a "
                                                "photo takes at least {MIN_BYTES_PER_MEGAPIXEL} bytes per "
                                                "megapixel",
                                                described=described, n_data=len(data),
                                                megapixels=SPARSE_CHECK_PIXELS / 1e6,
                                                MIN_BYTES_PER_MEGAPIXEL=MIN_BYTES_PER_MEGAPIXEL))
    raw = raw_bytes(image, data)
    if raw > MAX_RAW_BYTES:
        raise ImageError("too_many_pixels", msg("{described} in mode {mode}: {mib:.0f} MiB of pixel data; the "
                                                "limit is {limit:.0f} MiB",
                                                described=described, mode=image.mode, mib=raw / 2**20,
                                                limit=MAX_RAW_BYTES / 2**20))
    cost = decode_cost(image, factor)
    if budget is not None and cost.peak_bytes > budget.total_bytes:
        raise ImageError("too_many_pixels", msg("{described} in mode {mode}: decoding it would take about "
                                                "{mib:.0f} MiB; the limit is {limit:.0f} MiB",
                                                described=described, mode=image.mode, mib=cost.peak_bytes / 2**20,
                                                limit=budget.total_bytes / 2**20))
    return cost


def load_image(
    data: bytes,
    *,
    max_bytes: int = MAX_BYTES,
    max_pixels: int = MAX_PIXELS,
    min_side: int = MIN_SIDE,
    target_side: int | None = None,
    budget: DecodeBudget | None = None,
) -> DecodedImage:
    """Decode ``data`` (JPEG, PNG, WebP or HEIC/HEIF) into an upright BGR uint8 array.

    ``target_side``: the long side the caller will shrink the picture to; a JPEG may then be decoded at a
    power-of-two reduction whose long side is still at least that (never smaller), which is much faster, and
    other formats are reduced by the same factor right after decoding.
    ``budget``: the decode memory shared with other threads (default ``DECODE_BUDGET``); a photo whose
    estimated decode (``decode_cost``) is over the whole budget is refused with ``too_many_pixels``.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError("load_image expects the file's bytes")
    budget = budget or DECODE_BUDGET
    data = bytes(data)
    image = open_checked(data, max_bytes=max_bytes, max_pixels=max_pixels, min_side=min_side)
    width, height = image.size
    orientation = _orientation(image)
    factor = 1
    if target_side and max(width, height) > 2 * target_side:
        if image.format in ("JPEG", "MPO"):
            scale = max(width, height) / target_side  # draft keeps the decoded size >= the requested one
            image.draft("RGB", (int(image.size[0] / scale) + 1, int(image.size[1] / scale) + 1))
        else:  # the reduction libjpeg's draft would pick, so a photo reads alike whatever its format
            factor = max(f for f in (1, 2, 4, 8) if max(width, height) / f >= target_side)
    fmt = image.format or "unknown"
    try:
        cost = check_cost(image, data, factor, budget)
    except ImageError:
        image.close()
        raise
    budget.acquire(cost.peak_bytes)
    try:
        image.load()
        if orientation is None:  # a PNG's EXIF chunk may follow its pixels: known only now
            orientation = _orientation(image, decoded=True)
        if factor > 1:
            image = _reduced(image, factor)
        image = ImageOps.exif_transpose(image) if orientation not in (None, 1) else image
        bgr = _to_bgr(image)
    except Image.DecompressionBombError as err:
        raise ImageError("too_many_pixels", _bomb_message(err, max_pixels)) from None
    except (OSError, SyntaxError, ValueError, EOFError) as err:
        raise ImageError("corrupt_image", msg("the {fmt} file could not be decoded: {reason}", fmt=fmt,
                                              reason=_short(err))) from None
    finally:
        image.close()
        budget.release(cost.peak_bytes)
    if orientation in _TRANSPOSING_ORIENTATIONS:
        width, height = height, width
    return DecodedImage(bgr=bgr, width=width, height=height, format=fmt)


def open_checked(data: bytes, *, max_bytes: int = MAX_BYTES, max_pixels: int = MAX_PIXELS,
                 min_side: int = MIN_SIDE) -> Image.Image:
    """The photo opened but not decoded, after every check its header allows: file size, format, pixel count,
    smallest side, and a cost no photo has (``check_cost``'s first two checks). ImageError otherwise."""
    if len(data) == 0:
        raise ImageError("not_an_image", msg("the file is empty"))
    if len(data) > max_bytes:
        raise ImageError("image_too_large", msg("the file is {n_data} bytes ({mib:.1f} MiB); the limit is "
                                                "{max_bytes} bytes ({limit_mib:.0f} MiB)",
                                                n_data=len(data), mib=len(data) / 2**20, max_bytes=max_bytes,
                                                limit_mib=max_bytes / 2**20))
    declared = declared_size(data)
    if declared is not None:  # before Pillow's WebP opener allocates its canvas
        check_pixels(*declared, max_pixels)
    check_structure(data)
    image = _open(data, max_pixels)
    width, height = image.size
    try:
        check_pixels(width, height, max_pixels)
        if min(width, height) < min_side:
            raise ImageError("image_too_small", msg("the image is {width}x{height} pixels; each side must be "
                                                    "at least {min_side}",
                                                    width=width, height=height, min_side=min_side))
        check_cost(image, data)
    except ImageError:
        image.close()
        raise
    return image


def check_pixels(width: int, height: int, max_pixels: int) -> None:
    if width * height > max_pixels:
        raise ImageError("too_many_pixels", msg("the image is {width}x{height} pixels; the limit is {megapixels:g} "
                                                "megapixels", width=width, height=height, megapixels=max_pixels / 1e6))


def declared_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a WebP file's first chunk (lossy, lossless or extended), None for other files."""
    if len(data) < 30 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def check_structure(data: bytes) -> None:
    """Refuse (``unsupported_image``) a PNG of more chunks, or a JPEG of more segments before its first scan,
    than any encoder writes, by walking their lengths before Pillow parses each one."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        at, chunks = 8, 0
        while at + 8 <= len(data) and data[at + 4:at + 8] != b"IEND":
            chunks += 1
            if chunks > MAX_PNG_CHUNKS:
                raise ImageError("unsupported_image", msg("the PNG has more than {MAX_PNG_CHUNKS} chunks",
                                                          MAX_PNG_CHUNKS=MAX_PNG_CHUNKS))
            at += 12 + int.from_bytes(data[at:at + 4], "big")
    elif data.startswith(b"\xff\xd8"):
        at, segments = 2, 0
        while at + 4 <= len(data):
            if data[at] != 0xFF:
                return  # not a marker where one belongs: Pillow says how the file is damaged
            if data[at + 1] == 0xFF:  # fill bytes between segments
                at += 1
                continue
            segments += 1
            if segments > MAX_JPEG_SEGMENTS:
                raise ImageError("unsupported_image", msg("the JPEG has more than {MAX_JPEG_SEGMENTS} "
                                                          "segments before its first scan",
                                                          MAX_JPEG_SEGMENTS=MAX_JPEG_SEGMENTS))
            if data[at + 1] == 0xDA:
                return
            at += 2 + int.from_bytes(data[at + 2:at + 4], "big")


def _reduced(image: Image.Image, factor: int) -> Image.Image:
    """``image`` shrunk by a whole factor (box filter); modes ``reduce`` does not take are converted first."""
    try:
        return image.reduce(factor)
    except ValueError:
        has_alpha = "A" in image.mode or "transparency" in image.info
        wide = image.mode.startswith("I") or image.mode == "F"
        return image.convert("I" if wide else "RGBA" if has_alpha else "RGB").reduce(factor)


def _short(err: Exception, limit: int = 120) -> str:
    text = str(err)
    return text if len(text) <= limit else text[:limit] + "..."


def _bomb_message(err: Exception, max_pixels: int) -> str:
    """Pillow's own decompression-bomb refusal, told in the service's words and limit."""
    found = re.search(r"\((\d+) pixels\)", str(err))
    if found:
        return msg("the image has {size:.0f} megapixels; the limit is {limit:g} megapixels",
                   size=int(found.group(1)) / 1e6, limit=max_pixels / 1e6)
    return msg("the image has more pixels than Pillow accepts; the limit is {limit:g} megapixels",
               limit=max_pixels / 1e6)


def _open(data: bytes, max_pixels: int = MAX_PIXELS) -> Image.Image:
    """Read the header only, in an accepted format; tell damaged files and unsupported formats from non-images."""
    if _ISO_MEDIA.match(data):
        _register_heif()
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            return Image.open(io.BytesIO(data), formats=[f for f in ACCEPTED_FORMATS if f in Image.ID or f != "HEIF"])
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
            raise ImageError("too_many_pixels", _bomb_message(err, max_pixels)) from None
        except UnidentifiedImageError:
            pass
        except (OSError, SyntaxError, ValueError, EOFError) as err:
            raise ImageError("corrupt_image", msg("the image header could not be read: {reason}",
                                                  reason=_short(err))) from None
        except Exception:  # noqa: BLE001 - a plugin hooked into Image.open failing on bytes it cannot place
            pass
        if any(signature.match(data) for signature in _SIGNATURES):  # e.g. a PNG chunk with a wrong CRC
            raise ImageError("corrupt_image", msg("the file starts like a JPEG, PNG, WebP or HEIC image but "
                                                  "its header is damaged"))
        try:  # a format Pillow knows but this service does not take (GIF, BMP, TIFF, ...)
            other = Image.open(io.BytesIO(data))
        except Exception:  # noqa: BLE001 - any failure here means "not an image we recognise"
            raise ImageError("not_an_image", msg("the data is not a JPEG, PNG, WebP or HEIC image")) from None
    raise ImageError("unsupported_image", msg("{format} images are not supported; send JPEG, PNG, WebP or HEIC",
                                              format=other.format))


def _orientation(image: Image.Image, decoded: bool = False) -> int | None:
    """The EXIF orientation, read without decoding: Pillow's ``getexif`` decodes a whole PNG to look for its
    EXIF chunk, so a PNG not yet loaded answers from the chunks read so far."""
    if image.format == "PNG" and "exif" not in image.info and not decoded:
        return None
    try:
        value = image.getexif().get(_ORIENTATION_TAG)
    except Exception:  # noqa: BLE001 - a damaged EXIF block must not lose the photo; treat it as upright
        return None
    return value if isinstance(value, int) and 1 <= value <= 8 else None


def _to_bgr(image: Image.Image) -> np.ndarray:
    """Any Pillow mode -> H x W x 3 uint8 BGR: alpha over white, 16-bit scaled down, CMYK/palette/gray expanded."""
    mode = image.mode
    if mode in ("RGBA", "LA", "PA", "RGBa", "La") or (mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba).convert("RGB")
    elif mode.startswith("I") or mode == "F":  # 16/32-bit integer or float gray
        gray = np.asarray(image)
        sixteen_bit = mode.startswith("I;16") or (mode == "I" and gray.max(initial=0) > 255)
        scale = 257.0 if sixteen_bit else 1.0
        gray8 = np.clip(gray.astype(np.float32) / scale, 0, 255).astype(np.uint8)
        return cv2.cvtColor(gray8, cv2.COLOR_GRAY2BGR)
    elif mode != "RGB":
        image = image.convert("RGB")  # CMYK, YCbCr, P, L, 1, LAB, HSV
    rgb = np.asarray(image)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ImageError("unsupported_image", msg("pixel mode {mode} is not supported", mode=mode))
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)  # OpenCV's swap: a fiftieth of the time of a strided copy
