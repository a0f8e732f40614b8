"""Photo decoding: every accepted kind of file comes out upright BGR uint8; every bad one gets its stable code."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from mjlens.vision.runtime.decode import IMAGE_ERROR_CODES, ImageError, load_image

RED_RGB = (220, 20, 30)


def encode(image: Image.Image, fmt: str, **params) -> bytes:
    buf = io.BytesIO()
    if fmt == "HEIF":  # with pillow-heif's own writer: Pillow learns HEIF from mjlens only when a HEIC file comes
        import pillow_heif

        pillow_heif.from_pillow(image).save(buf, **params)
    else:
        image.save(buf, fmt, **params)
    return buf.getvalue()


def red(size=(80, 60), mode="RGB") -> Image.Image:
    return Image.new("RGB", size, RED_RGB).convert(mode)


def assert_code(data: bytes, code: str, **kwargs) -> ImageError:
    with pytest.raises(ImageError) as info:
        load_image(data, **kwargs)
    assert info.value.code == code
    assert info.value.code in IMAGE_ERROR_CODES
    assert info.value.to_json() == {"code": code, "message": info.value.message}
    return info.value


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
def test_accepted_formats_decode_to_bgr(fmt):
    decoded = load_image(encode(red(), fmt, **({"quality": 95} if fmt != "PNG" else {})))
    assert decoded.bgr.shape == (60, 80, 3) and decoded.bgr.dtype == np.uint8
    assert (decoded.width, decoded.height) == (80, 60)
    b, g, r = decoded.bgr[30, 40].astype(int)
    assert abs(r - 220) < 12 and abs(g - 20) < 12 and abs(b - 30) < 12  # channel order is BGR
    assert decoded.bgr.flags["C_CONTIGUOUS"]


@pytest.mark.parametrize("fmt", ["JPEG", "HEIF"])  # HEIF: libheif applies the turn itself; it must not happen twice
def test_exif_orientation_is_applied(fmt):
    image = Image.new("RGB", (80, 40), (0, 0, 0))
    image.paste((255, 255, 255), (0, 0, 20, 40))  # white stripe on the left of the stored pixels
    exif = Image.Exif()
    exif[0x0112] = 6  # the camera was turned: display rotated 90 degrees clockwise
    decoded = load_image(encode(image, fmt, exif=exif.tobytes(), quality=95))
    assert (decoded.width, decoded.height) == (40, 80)
    assert decoded.bgr.shape == (80, 40, 3)
    assert decoded.bgr[5, 20].mean() > 200 and decoded.bgr[75, 20].mean() < 50  # the stripe is now on top


def test_cmyk_jpeg():
    decoded = load_image(encode(red(mode="CMYK"), "JPEG", quality=95))
    assert decoded.bgr.shape == (60, 80, 3)
    assert decoded.bgr[30, 40, 2] > 180 and decoded.bgr[30, 40, 1] < 60


def test_sixteen_bit_grayscale_png_is_scaled_not_clipped():
    gray = np.full((40, 50), 32768, dtype=np.uint16)
    decoded = load_image(encode(Image.fromarray(gray), "PNG"))
    assert decoded.bgr.shape == (40, 50, 3)
    assert 120 <= int(decoded.bgr[0, 0, 0]) <= 135  # half of full scale, not clipped to 255


def test_rgba_is_composited_over_white():
    image = Image.new("RGBA", (50, 40), (0, 0, 0, 0))
    image.paste((0, 0, 255, 255), (0, 0, 25, 40))
    decoded = load_image(encode(image, "PNG"))
    assert decoded.bgr[20, 40].tolist() == [255, 255, 255]  # transparent -> white
    assert decoded.bgr[20, 5].tolist() == [255, 0, 0]  # opaque blue, in BGR order


@pytest.mark.parametrize("mode", ["L", "P", "1", "LA"])
def test_gray_palette_and_bilevel(mode):
    decoded = load_image(encode(red(mode=mode), "PNG"))
    assert decoded.bgr.shape == (60, 80, 3) and decoded.bgr.dtype == np.uint8


def test_not_an_image():
    assert_code(b"hello, this is text and not a photo", "not_an_image")
    assert_code(b"", "not_an_image")


def test_truncated_jpeg():
    data = encode(Image.effect_noise((200, 200), 64).convert("RGB"), "JPEG", quality=90)
    assert_code(data[: len(data) // 2], "corrupt_image")


def test_one_pixel_image_is_too_small():
    assert_code(encode(red((1, 1)), "PNG"), "image_too_small")


def test_file_over_the_byte_limit():
    assert_code(encode(red(), "PNG"), "image_too_large", max_bytes=100)


def _png_header_only(width: int, height: int) -> bytes:
    """A tiny PNG that claims a huge size: the header check must refuse it before decoding."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def test_decompression_bomb_header_is_refused():
    assert_code(_png_header_only(100_000, 100_000), "too_many_pixels")
    assert_code(_png_header_only(8000, 8000), "too_many_pixels")  # 64 Mpx: over our limit, under Pillow's


def test_unsupported_format():
    assert_code(encode(red(), "GIF"), "unsupported_image")
    assert_code(encode(red(), "BMP"), "unsupported_image")


def test_reduced_jpeg_decoding_keeps_the_original_size():
    data = encode(red((2400, 1600)), "JPEG", quality=80)
    decoded = load_image(data, target_side=640)
    assert (decoded.width, decoded.height) == (2400, 1600)
    assert 640 <= decoded.bgr.shape[1] < 2400  # reduced, never below what was asked
    assert decoded.scale == pytest.approx(decoded.bgr.shape[1] / 2400)
