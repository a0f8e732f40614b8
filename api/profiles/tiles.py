"""The ``tiles`` form field of the profile calls: a JSON list of ``{"code", "box": [x1, y1, x2, y2]}`` in pixels of
the photo as decoded (EXIF orientation applied), the coordinates ``/v1/recognize`` answers in. Other keys of a tile
(``row``, ``confidence`` from ``POST /v1/profiles/preview``) are ignored, so a preview's tiles can be sent back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from mjlens.api.service.errors import quoted
from mjlens.api.service.jsonlimits import JsonLimitError, loads_limited
from mjlens.scoring.tiles import DETECTOR_CLASSES

if TYPE_CHECKING:
    from mjlens.vision.profile.sources import LabelledTile

#: Pixels a box may reach past the photo's edge (the detector's boxes are clipped to it; a client may round).
EDGE_SLACK_PX = 1.0
SHAPE = '{"code": "1m", "box": [x1, y1, x2, y2]}'
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


class BadTiles(ValueError):
    """The ``tiles`` field cannot be used; the service answers 400 ``bad_tiles`` with this message."""


class TileLabel(BaseModel):
    model_config = ConfigDict(extra="ignore")

    code: str
    box: tuple[FiniteFloat, FiniteFloat, FiniteFloat, FiniteFloat]


_TILE_LIST = TypeAdapter(list[TileLabel])


def parse_tiles(text: str, max_tiles: int, max_bytes: int, max_depth: int) -> list[TileLabel]:
    """The tiles of the field, their shape and codes checked (their boxes against the photo by ``in_photo``)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise BadTiles(f"'tiles' is {size} bytes; the limit is {max_bytes}")
    try:
        value = loads_limited(text, max_depth)
    except JsonLimitError as err:
        raise BadTiles(f"'tiles': {err}") from None
    except ValueError as err:
        raise BadTiles(f"'tiles' is not valid JSON: {err}") from None
    if isinstance(value, list) and len(value) > max_tiles:
        raise BadTiles(f"'tiles' holds {len(value)} tiles; the limit is {max_tiles}")
    try:
        tiles = _TILE_LIST.validate_python(value)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top"
        raise BadTiles(f"'tiles' must be a list of {SHAPE}: at {where}: {first['msg']}") from None
    unknown = [tile.code for tile in tiles if tile.code not in DETECTOR_CLASSES]
    if unknown:
        raise BadTiles(f"'tiles' holds an unknown tile code {quoted(unknown[0])}: the codes are 1m..9m, 1p..9p, "
                       f"1s..9s, 1z..7z, 1f..8f and back")
    return tiles


def in_photo(tiles: list[TileLabel], width: int, height: int) -> list[LabelledTile]:
    """The tiles as (code, box), each box checked to lie inside the ``width`` x ``height`` photo."""
    for number, tile in enumerate(tiles):
        x1, y1, x2, y2 = tile.box
        if not (x1 < x2 and y1 < y2):
            raise BadTiles(f"tile {number} ({tile.code}): a box is [x1, y1, x2, y2] with x1 < x2 and y1 < y2")
        if x1 < -EDGE_SLACK_PX or y1 < -EDGE_SLACK_PX or x2 > width + EDGE_SLACK_PX or y2 > height + EDGE_SLACK_PX:
            raise BadTiles(f"tile {number} ({tile.code}): its box {list(tile.box)} is outside the photo, {width} x "
                           f"{height} pixels as decoded (EXIF orientation applied)")
    return [(tile.code, tile.box) for tile in tiles]
