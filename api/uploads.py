"""Checks on an uploaded photo before it waits for a detector worker: size and pixel count (from the header,
without decoding) against the service's limits, so an oversized or non-image upload is refused at once.

Decoding, EXIF rotation and colour handling are the vision layer's job (``vision.imageio``); the errors here
use its ``ImageError`` codes, so a client sees one set of codes whichever layer refused the photo.
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, UnidentifiedImageError

from mjlens.vision.imageio import ACCEPTED_FORMATS, ImageError

#: ImageError code -> HTTP status.
IMAGE_ERROR_STATUS = {
    "image_too_large": 413,
    "too_many_pixels": 413,
    "not_an_image": 415,
    "unsupported_image": 415,
    "corrupt_image": 400,
    "image_too_small": 400,
}


def check_image(data: bytes, max_bytes: int, max_pixels: int) -> tuple[int, int]:
    """Width and height (before EXIF rotation) of an acceptable upload; ImageError otherwise."""
    if not data:
        raise ImageError("not_an_image", "the file is empty")
    if len(data) > max_bytes:
        raise ImageError("image_too_large", f"the file is {len(data)} bytes; the limit is {max_bytes}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS) as img:
                width, height = img.size
        except Image.DecompressionBombError as err:
            raise ImageError("too_many_pixels", str(err)) from None
        except UnidentifiedImageError:
            raise _unsupported_or_not_an_image(data) from None
        except (OSError, SyntaxError, ValueError, EOFError) as err:
            raise ImageError("corrupt_image", f"the image header could not be read: {err}") from None
        except Exception:  # noqa: BLE001 - a plugin hooked into Image.open failing on bytes it cannot place
            raise _unsupported_or_not_an_image(data) from None
    if width * height > max_pixels:
        raise ImageError("too_many_pixels", f"the image is {width}x{height}; the limit is {max_pixels} pixels")
    return width, height


def _unsupported_or_not_an_image(data: bytes) -> ImageError:
    """A format Pillow knows but the service does not take (GIF, BMP, TIFF...) is told apart from non-images."""
    try:
        with Image.open(io.BytesIO(data)) as other:
            fmt = other.format
    except Exception:  # noqa: BLE001 - any failure here means "not an image we recognise"
        return ImageError("not_an_image", "the data is not a JPEG, PNG, WebP or HEIC image")
    return ImageError("unsupported_image", f"{fmt} images are not supported; send JPEG, PNG, WebP or HEIC")
