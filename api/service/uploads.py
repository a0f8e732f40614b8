"""Checks on an uploaded photo before it waits for a detector worker: size, format, pixel count and decode cost
(from the header, without decoding) against the service's limits, so a bad upload is refused at once.

Decoding, EXIF rotation and colour handling are the vision layer's job (``vision.runtime.decode``); the checks and the
errors here are its own (``open_checked``, ``ImageError`` codes), so a client sees one set of codes whichever
layer refused the photo.
"""

from __future__ import annotations

from mjlens.vision.runtime.decode import open_checked

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
    with open_checked(data, max_bytes=max_bytes, max_pixels=max_pixels) as image:
        return image.size
