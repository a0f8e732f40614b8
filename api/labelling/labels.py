"""Batch labelling: Recognition JSON -> YOLO or COCO labels in the detector's 43-class order, and an HTML page
to review and correct them (boxes drawn on each photo, low-confidence tiles flagged) before they are used for training.

Finding the photos is api.labelling.inputs, the photo-by-photo work api.labelling.work, writing files
api.labelling.outputs; this module only makes the formats, each a small pure function of the recognitions.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import yaml

from mjlens.i18n import DEFAULT_LANG, Message, page_words, pmsg, say
from mjlens.i18n.extract import REVIEW
from mjlens.scoring.tiles import DETECTOR_CLASSES, NAMES_ZH, RED_FIVES, plain_code

from .outputs import json_text

if TYPE_CHECKING:
    from .inputs import Photo
    from .outputs import Failure

CLASS_INDEX = {code: i for i, code in enumerate(DETECTOR_CLASSES)}
SUPERCATEGORY = {"m": "characters", "p": "dots", "s": "bamboo", "z": "honours", "f": "bonus"}


def known_tiles(recognition: dict[str, Any]) -> list[dict[str, Any]]:
    """The tiles of a reading in the detector's classes: a red five (``0p``) is labelled as its five, the class the
    detector gives it, not left out."""
    tiles = [{**t, "code": plain_code(t["code"])} if t.get("code") in RED_FIVES else t
             for t in recognition.get("tiles", [])]
    return [t for t in tiles if t.get("code") in CLASS_INDEX]


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


#: One labelled photo in this many is set aside for validation.
VAL_EVERY = 5
#: The lists of images of each split, beside data.yaml.
SPLIT_FILES = {"train": "train.txt", "val": "val.txt"}


def data_yaml() -> str:
    """The dataset description ultralytics reads: the photos of each split listed in ``SPLIT_FILES``."""
    return yaml.safe_dump({"path": ".", **SPLIT_FILES, "nc": len(DETECTOR_CLASSES),
                           "names": list(DETECTOR_CLASSES)}, sort_keys=False, allow_unicode=True)


def split(image_names: Sequence[str]) -> dict[str, list[str]]:
    """The photos of each split: one in ``VAL_EVERY`` for val, chosen by a hash of its name so that a photo keeps
    its split as more are labelled; each split holds at least one photo (a lone photo serves both)."""
    def in_val(name: str) -> bool:
        return int.from_bytes(hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()[:4], "big") \
            % VAL_EVERY == 0

    names = sorted(image_names)
    val = [n for n in names if in_val(n)]
    train = [n for n in names if not in_val(n)]
    if not val and train:
        val = [train.pop()] if len(train) > 1 else list(train)
    if not train and val:
        train = [val.pop()] if len(val) > 1 else list(val)
    return {"train": train, "val": val}


def split_lists(image_names: Sequence[str]) -> dict[str, str]:
    """The text of each split's list file, a line ``./images/NAME`` per photo (relative to the list, as ultralytics
    and ``mjlens eval`` read it)."""
    return {SPLIT_FILES[part]: "".join(f"./images/{name}\n" for name in names)
            for part, names in split(image_names).items()}


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


REVIEW_FILES = Path(__file__).resolve().parent / "review_page"  # the review page's script and style, inlined
#: The reader's alternatives the review page offers first for a tile.
REVIEW_ALTERNATIVES = 3


def counted(count: int, one: str, many: str) -> Message:
    """``1 photo``, ``2 photos``: the review page's template ``one`` or ``many``, with the field ``n``."""
    return pmsg(REVIEW, one if count == 1 else many, n=count)


#: The counts the review page's summary gives, one and many of each (its script says the same words): listed for
#: the catalogue, and given to ``counted``.
COUNT_WORDS = (pmsg("review", "{n} photo", n=1), pmsg("review", "{n} photos", n=2), pmsg("review", "{n} tile", n=1),
               pmsg("review", "{n} tiles", n=2), pmsg("review", "{n} file", n=1), pmsg("review", "{n} files", n=2))
PHOTOS, TILES, FILES = ("{n} photo", "{n} photos"), ("{n} tile", "{n} tiles"), ("{n} file", "{n} files")


def review_data(photos: list[tuple[Photo, dict[str, Any]]], low: float, formats: Sequence[str],
                token: str | None = None, lang: str = DEFAULT_LANG) -> dict[str, Any]:
    """What the review page edits: each photo's tiles (as corrected, where ``api.labelling.corrections`` made them so),
    the codes to pick from, the label formats its saves write, ``token`` when a local server saves them, and the
    page's words in ``lang`` (none in English)."""
    return {
        "low": low, "formats": list(formats), "token": token, "codes": list(DETECTOR_CLASSES), "names": NAMES_ZH,
        "words": page_words(lang, REVIEW) if lang != DEFAULT_LANG else {},
        "photos": [{"image": photo.image_name, "src": f"images/{_url(photo.image_name)}", "width": rec["width"],
                    "height": rec["height"], "done": bool(rec.get("done")), "corrected": bool(rec.get("corrected")),
                    "tiles": [_review_tile(t) for t in known_tiles(rec)]} for photo, rec in photos],
    }


def _review_tile(tile: dict[str, Any]) -> dict[str, Any]:
    # boxes and confidences as read, unrounded: a save from the page writes the same labels as one from here
    shown: dict[str, Any] = {"code": tile["code"], "box": [float(v) for v in tile["box"]]}
    if tile.get("confidence") is not None:
        shown["confidence"] = float(tile["confidence"])
    alternatives = [a["code"] for a in tile.get("alternatives") or [] if a.get("code") in CLASS_INDEX]
    if alternatives:
        shown["alternatives"] = alternatives[:REVIEW_ALTERNATIVES]
    return shown


def review_html(photos: list[tuple[Photo, dict[str, Any]]], low: float, failed: list[Failure],
                formats: Sequence[str] = ("yolo",), token: str | None = None, lang: str = DEFAULT_LANG) -> str:
    """The review page: every labelled photo with its boxes, to correct (a tile's code, a false box, a missed one)
    and mark done, then save as labels and ``corrections.jsonl``. Photos with tiles below ``low`` confidence come
    first, so a reviewer starts where corrections are most likely. The page is one file with its script and data
    inlined, so it works opened from the output folder; ``token`` is for a page served by ``mjlens label --review``
    (api.labelling.review_server), which saves into the folder itself. Its words are in ``lang``: the catalogue's
    sentences, trusted as HTML (file names and reasons are escaped)."""
    flagged = [r for _, r in photos if not r.get("done") and any(t.get("confidence", 1) < low
                                                                 for t in known_tiles(r))]
    tiles = sum(len(known_tiles(r)) for _, r in photos)
    buttons = {key: f"<b>{say(word, lang)}</b>" for key, word in (
        ("draw", pmsg("review", "Draw a box")), ("done", pmsg("review", "Done")), ("save", pmsg("review", "Save")))}
    summary = pmsg("review", "{photos}, {tiles}.", photos=counted(len(photos), *PHOTOS),
                   tiles=counted(tiles, *TILES))
    unsure = pmsg("review", "{photos} with tiles below {low} confidence", photos=counted(len(flagged), *PHOTOS),
                  low=f"{low:.2f}")
    title, heading = pmsg("review", "mjlens labels review"), pmsg("review", "Labels review")
    first = pmsg("review", "(dashed orange boxes) are shown first.")
    no_script = pmsg("review", "The review page needs JavaScript.")
    how = pmsg("review", "Tap a box to change its code or delete it; {draw}, then drag over a missed tile; {done} "
                         "when every box of a photo is right; then {save}.", **buttons)
    parts = [f"<!doctype html><html lang='{'en' if lang == DEFAULT_LANG else 'zh-Hant'}'><head>"
             "<meta charset='utf-8'><meta name='viewport' content='width=device-width, initial-scale=1'>"
             f"<title>{say(title, lang)}</title>",
             f"<style>{(REVIEW_FILES / 'review.css').read_text(encoding='utf-8')}</style></head><body>",
             f"<header id='bar'></header><h1>{say(heading, lang)}</h1><div class='summary'>",
             f"<p>{say(summary, lang)} <span class='flag'>{say(unsure, lang)}</span> "
             f"{say(first, lang)}</p>",
             f"<p class='help'>{say(how, lang)}</p>",
             f"<noscript><p class='flag'>{say(no_script, lang)}</p></noscript>"]
    if failed:
        not_labelled = pmsg("review", "{files} not labelled:", files=counted(len(failed), *FILES))
        parts.append(f"<p class='flag'>{say(not_labelled, lang)}</p><ul>")
        parts += [f"<li>{html.escape(f.relative)}: {html.escape(f.code)}: {html.escape(say(f.message, lang))}</li>"
                  for f in failed]
        parts.append("</ul>")
    data = json_text(review_data(photos, low, formats, token, lang)).replace("<", "\\u003c")
    parts += ["</div><main id='photos'></main><div id='picker' hidden></div>",
              f'<script type="application/json" id="review-data">{data}</script>',
              f"<script>{(REVIEW_FILES / 'review.js').read_text(encoding='utf-8')}</script></body></html>"]
    return "".join(parts)


def _url(name: str) -> str:
    """A file name as a relative URL: every byte that is not plain is escaped (``#``, ``?``, quotes, and names
    that are not UTF-8 included)."""
    return quote(name.encode("utf-8", errors="surrogateescape"), safe="")
