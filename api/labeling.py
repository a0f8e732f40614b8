"""Batch labelling: Recognition JSON -> YOLO or COCO labels in the detector's 43-class order, and an HTML page
to review them (boxes drawn on each photo, low-confidence tiles flagged) before they are used for training.

Finding the photos is api.label_inputs, the photo-by-photo work api.label_work, writing files api.label_outputs;
this module only makes the formats, each a small pure function of the recognitions.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import yaml

from mjlens.scoring.tiles import DETECTOR_CLASSES

if TYPE_CHECKING:
    from .label_inputs import Photo
    from .label_outputs import Failure

CLASS_INDEX = {code: i for i, code in enumerate(DETECTOR_CLASSES)}
SUPERCATEGORY = {"m": "characters", "p": "dots", "s": "bamboo", "z": "honours", "f": "bonus"}


def known_tiles(recognition: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in recognition.get("tiles", []) if t.get("code") in CLASS_INDEX]


def yolo_lines(recognition: dict[str, Any]) -> list[str]:
    """``class cx cy w h`` per tile, normalised to the upright photo's size (YOLO txt format)."""
    width, height = recognition["width"], recognition["height"]
    lines = []
    for tile in known_tiles(recognition):
        x1, y1, x2, y2 = (float(v) for v in tile["box"])
        x1, x2 = max(0.0, min(x1, width)), max(0.0, min(x2, width))
        y1, y2 = max(0.0, min(y1, height)), max(0.0, min(y2, height))
        if x2 <= x1 or y2 <= y1:
            continue
        lines.append(f"{CLASS_INDEX[tile['code']]} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                     f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return lines


def data_yaml() -> str:
    """The dataset description ultralytics reads; labelled photos serve as both train and val until split."""
    return yaml.safe_dump({"path": ".", "train": "images", "val": "images", "nc": len(DETECTOR_CLASSES),
                           "names": list(DETECTOR_CLASSES)}, sort_keys=False, allow_unicode=True)


def coco(photos: Iterable[tuple[Photo, dict[str, Any]]]) -> dict[str, Any]:
    """A COCO detection file; category ids are the class index + 1 (COCO keeps 0 for the background), and each
    ``file_name`` is the photo's name in the images folder, the image root COCO tools join it to."""
    images, annotations = [], []
    for image_id, (photo, rec) in enumerate(photos, start=1):
        images.append({"id": image_id, "file_name": photo.image_name, "width": rec["width"],
                       "height": rec["height"]})
        for tile in known_tiles(rec):
            x1, y1, x2, y2 = (float(v) for v in tile["box"])
            annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                "category_id": CLASS_INDEX[tile["code"]] + 1,
                                "bbox": [round(x1, 1), round(y1, 1), round(x2 - x1, 1), round(y2 - y1, 1)],
                                "area": round((x2 - x1) * (y2 - y1), 1), "iscrowd": 0,
                                "score": tile.get("confidence")})
    categories = [{"id": i + 1, "name": code, "supercategory": SUPERCATEGORY.get(code[-1], "back")}
                  for i, code in enumerate(DETECTOR_CLASSES)]
    return {"info": {"description": "mjlens batch labels"}, "images": images, "annotations": annotations,
            "categories": categories}


_REVIEW_CSS = """
body{font-family:system-ui,sans-serif;margin:16px;background:#f4f5f4;color:#1d2428}
.summary{margin-bottom:16px}.flag{color:#b42318;font-weight:600}
figure{background:#fff;margin:0 0 20px;padding:10px;border-radius:8px;box-shadow:0 1px 3px #0002}
.photo{position:relative;max-width:960px}.photo img{width:100%;display:block}
.b{position:absolute;border:2px solid #1a7f37;box-sizing:border-box}
.b span{position:absolute;bottom:100%;left:0;background:#1a7f37;color:#fff;font:11px monospace;padding:0 2px;
white-space:nowrap}.b.low{border:2px dashed #b42318}.b.low span{background:#b42318}
"""


def plural(count: int, noun: str) -> str:
    """``1 photo``, ``2 photos``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def review_html(photos: list[tuple[Photo, dict[str, Any]]], low: float, failed: list[Failure]) -> str:
    """One page with every labelled photo and its boxes; tiles below ``low`` confidence are dashed red and
    their photos are listed first, so a reviewer starts where corrections are most likely."""
    flagged = [(p, r) for p, r in photos if any(t.get("confidence", 1) < low for t in known_tiles(r))]
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>mjlens labels review</title>",
             f"<style>{_REVIEW_CSS}</style></head><body><h1>Labels review</h1><div class='summary'>",
             f"<p>{plural(len(photos), 'photo')}, {plural(sum(len(known_tiles(r)) for _, r in photos), 'tile')}. "
             f"<span class='flag'>{plural(len(flagged), 'photo')} with tiles below {low:.2f} confidence</span> "
             "(dashed red boxes) are shown first.</p>"]
    if failed:
        parts.append(f"<p class='flag'>{plural(len(failed), 'file')} not labelled:</p><ul>")
        parts += [f"<li>{html.escape(f.relative)}: {html.escape(f.code)}: {html.escape(f.message)}</li>"
                  for f in failed]
        parts.append("</ul>")
    parts.append("</div>")
    flagged_keys = {p.key for p, _ in flagged}
    ordered = flagged + [(p, r) for p, r in photos if p.key not in flagged_keys]
    for photo, rec in ordered:
        w, h = rec["width"], rec["height"]
        tiles = known_tiles(rec)
        n_low = sum(t.get("confidence", 1) < low for t in tiles)
        parts.append(f"<figure id='{html.escape(photo.key, quote=True)}'><figcaption>"
                     f"<b>{html.escape(photo.image_name)}</b> {w}x{h}, {plural(len(tiles), 'tile')}"
                     + (f", <span class='flag'>{n_low} to check</span>" if n_low else "")
                     + f"</figcaption><div class='photo'><img src='images/{_url(photo.image_name)}'"
                     " alt='' loading='lazy'>")
        for t in tiles:
            x1, y1, x2, y2 = (float(v) for v in t["box"])
            conf = float(t.get("confidence", 1))
            parts.append(f"<div class='b{' low' if conf < low else ''}' style='left:{100 * x1 / w:.3f}%;"
                         f"top:{100 * y1 / h:.3f}%;width:{100 * (x2 - x1) / w:.3f}%;height:{100 * (y2 - y1) / h:.3f}%'>"
                         f"<span>{html.escape(t['code'])} {conf:.2f}</span></div>")
        parts.append("</div></figure>")
    parts.append("</body></html>")
    return "".join(parts)


def _url(name: str) -> str:
    """A file name as a relative URL: every byte that is not plain is escaped (``#``, ``?``, quotes, and names
    that are not UTF-8 included)."""
    return quote(name.encode("utf-8", errors="surrogateescape"), safe="")
