"""The detector's output for one tile: what the runtime produces and the layout step consumes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Detection:
    """One tile found in a photo. ``box`` is x1, y1, x2, y2 in pixels of the EXIF-upright image."""

    code: str  # a tile code or "back" (CONVENTIONS §1)
    box: tuple[float, float, float, float]
    confidence: float
    alternatives: tuple[tuple[str, float], ...] = field(default_factory=tuple)  # runner-up (code, confidence)

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 4),
            "alternatives": [{"code": c, "confidence": round(p, 4)} for c, p in self.alternatives],
        }


def boxes_in_pixels(tiles: Sequence[Detection], pixel_scale: float = 1.0) -> list[tuple[float, float, float, float]]:
    """The boxes of ``tiles`` in pixels of an image decoded ``pixel_scale`` times the photo's size (a large JPEG is
    decoded reduced; the boxes are kept in the photo's own pixels)."""
    return [(x1 * pixel_scale, y1 * pixel_scale, x2 * pixel_scale, y2 * pixel_scale) for x1, y1, x2, y2 in
            (t.box for t in tiles)]


def mean_confidence(tiles: Sequence[Detection]) -> float:
    """How surely a reading names its tiles, whatever their number: the mean of their confidences (0 for none)."""
    return sum(tile.confidence for tile in tiles) / len(tiles) if tiles else 0.0
