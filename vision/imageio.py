"""Decode an uploaded photo into an upright BGR array, refusing anything that is not a sane photo.

Photos arrive as untrusted bytes (HTTP uploads, files on the command line), so every failure is an
``ImageError`` with a stable ``code`` rather than a Pillow exception, and sizes are checked from the header
before any pixel is decoded (a 50 kB PNG can claim 100 000 x 100 000 pixels). Phones store the camera's
orientation in EXIF rather than rotating pixels; boxes must be in the upright image (CONVENTIONS §4), so the
rotation is applied here, once. Large JPEGs are decoded at a reduced scale when the caller only needs a small
image (the detector works at 640 px): libjpeg's DCT scaling makes a 12 Mpx photo several times cheaper.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

try:  # HEIC/HEIF is what iPhones write by default
    from pillow_heif import register_heif_opener

    register_heif_opener()
except ImportError:  # pragma: no cover - pillow-heif is a declared dependency; tolerate its absence
    pass

MAX_BYTES = 20 * 1024 * 1024
MAX_PIXELS = 50_000_000
MIN_SIDE = 32  # below this no tile is legible; also refuses 1x1 tracking pixels and icons

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


def load_image(
    data: bytes,
    *,
    max_bytes: int = MAX_BYTES,
    max_pixels: int = MAX_PIXELS,
    min_side: int = MIN_SIDE,
    target_side: int | None = None,
) -> DecodedImage:
    """Decode ``data`` (JPEG, PNG, WebP or HEIC/HEIF) into an upright BGR uint8 array.

    ``target_side``: the long side the caller will shrink the picture to; a JPEG may then be decoded at a
    power-of-two reduction whose long side is still at least that (never smaller), which is much faster.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError("load_image expects the file's bytes")
    if len(data) == 0:
        raise ImageError("not_an_image", "the file is empty")
    if len(data) > max_bytes:
        raise ImageError("image_too_large", f"the file is {len(data) / 2**20:.1f} MiB; the limit is "
                                            f"{max_bytes / 2**20:.0f} MiB")
    image = _open(bytes(data))
    width, height = image.size
    if width * height > max_pixels:
        raise ImageError("too_many_pixels", f"the image is {width}x{height} pixels; the limit is "
                                            f"{max_pixels / 1e6:.0f} megapixels")
    if min(width, height) < min_side:
        raise ImageError("image_too_small", f"the image is {width}x{height} pixels; each side must be at least "
                                            f"{min_side}")
    orientation = _orientation(image)
    if orientation in _TRANSPOSING_ORIENTATIONS:
        width, height = height, width
    if target_side and image.format in ("JPEG", "MPO") and max(width, height) > 2 * target_side:
        factor = max(width, height) / target_side  # draft keeps the decoded size >= the requested one
        image.draft("RGB", (int(image.size[0] / factor) + 1, int(image.size[1] / factor) + 1))
    fmt = image.format or "unknown"
    try:
        image.load()
        image = ImageOps.exif_transpose(image) if orientation not in (None, 1) else image
    except Image.DecompressionBombError as err:
        raise ImageError("too_many_pixels", str(err)) from None
    except (OSError, SyntaxError, ValueError, EOFError) as err:
        raise ImageError("corrupt_image", f"the {fmt} file could not be decoded: {err}") from None
    return DecodedImage(bgr=_to_bgr(image), width=width, height=height, format=fmt)


def _open(data: bytes) -> Image.Image:
    """Read the header only, in an accepted format; tell unsupported formats from non-images."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            return Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
            raise ImageError("too_many_pixels", str(err)) from None
        except UnidentifiedImageError:
            pass
        except (OSError, SyntaxError, ValueError, EOFError) as err:
            raise ImageError("corrupt_image", f"the image header could not be read: {err}") from None
        try:  # a format Pillow knows but this service does not take (GIF, BMP, TIFF, ...)
            other = Image.open(io.BytesIO(data))
        except Exception:  # noqa: BLE001 - any failure here means "not an image we recognise"
            raise ImageError("not_an_image", "the data is not a JPEG, PNG, WebP or HEIC image") from None
    raise ImageError("unsupported_image", f"{other.format} images are not supported; send JPEG, PNG, WebP or HEIC")


def _orientation(image: Image.Image) -> int | None:
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
        raise ImageError("unsupported_image", f"pixel mode {mode} is not supported")
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)  # OpenCV's swap: a fiftieth of the time of a strided copy
