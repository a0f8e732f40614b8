"""Tile face art: which sets to draw faces from, how often, and how to load them.

The art lives outside the repository (``../shared/datasets/tile-art``, one folder per set with ``<code>.png``
and ``SOURCE.txt``); the sets whose licence allows it are vendored under ``datasets/tile-art``. Each image uses
one set, as a physical table does; a code the set lacks is drawn from a fallback set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from mjlens.i18n import msg
from mjlens.scoring.tiles import ALL_CODES, BONUS_CODES

#: Sets worth drawing from, with the weight of each: the four closest to real Chinese/HK tiles dominate. Sets
#: whose art carries a "non-profit only" caveat (xmj_thick/thin, bradfield_*) are left out.
SET_WEIGHTS: dict[str, float] = {
    "xmj_real": 3.0,
    "gnome_smooth": 3.0,
    "ffalt_classic": 2.0,
    "kmj_default": 2.0,
    "kmj_traditional": 0.6,
    "ffalt_uni": 0.6,
    "font_noto_symbols2": 0.3,
    "font_symbola": 0.3,
    "xhokir_regular_flowers": 0.4,
    "fluffy_regular": 0.3,
    "xmj_dorothys": 0.3,
}
#: Fraction of the art cut off each side, for sets whose pictures include the tile's edge or bevel.
EDGE_CROP: dict[str, float] = {"xmj_real": 0.07, "gnome_smooth": 0.09}
FALLBACK = ("xmj_real", "gnome_smooth", "ffalt_classic", "kmj_default")
#: The grey every face is loaded on where its art is transparent: the face colour renderers tint from.
PAPER = 242.0

#: Art no training run of the general reader draws from, by family: sets drawn from the same pictures (or the same
#: artist's lineage) are held out together, so a figure on them is one for a set never seen. ``kmj_jade`` is
#: kmj_default's faces recoloured (white on dark red): held out to measure colours never seen, reported apart.
HELD_OUT_FAMILIES: dict[str, tuple[str, ...]] = {
    "kmj_classic": ("kmj_classic", "xshisen_s2"),
    "bradfield": ("bradfield_numbered", "bradfield_v1"),
    "xmj_thick": ("xmj_thick", "xmj_thin", "xmj_small"),
    "gnome_postmodern": ("gnome_postmodern",),
    "kmj_jade": ("kmj_jade",),
}
HELD_OUT_SETS = frozenset(name for family in HELD_OUT_FAMILIES.values() for name in family)
#: Named groups of sets for ``mjlens synth --sets``: every set but the held-out ones, drawn evenly; or those.
SET_GROUPS = ("general", "held-out")


def sets_of_group(root: Path, group: str) -> list[str]:
    """The sets under ``root`` in ``group`` (``SET_GROUPS``), sorted."""
    if group not in SET_GROUPS:
        raise ArtError(msg("unknown group of sets {group}: one of {groups}", group=repr(group),
                           groups=", ".join(SET_GROUPS)))
    found = sorted(p.parent.name for p in Path(root).glob("*/1m.png"))
    return [name for name in found if (name in HELD_OUT_SETS) == (group == "held-out")]


def cut(face: np.ndarray, region: tuple[float, float, float, float]) -> np.ndarray:
    """The part of ``face`` inside ``region``: left, top, right, bottom as shares of its width and height."""
    h, w = face.shape[:2]
    x1, y1, x2, y2 = region
    return face[int(y1 * h):int(y2 * h), int(x1 * w):int(x2 * w)]


def distance_from_ground(region: np.ndarray) -> np.ndarray:
    """Each pixel's colour distance from ``region``'s ground, the median colour of its border: how far it is ink."""
    border = np.concatenate([region[0], region[-1], region[:, 0], region[:, -1]])
    return np.linalg.norm(region.astype(np.float32) - np.median(border, axis=0), axis=2)


def write_art_sets(out: Path, kind: str, seed: int, n: int,
                   make_set: Callable[[np.random.Generator], dict[str, np.ndarray]]) -> list[str]:
    """``n`` art sets of ``make_set`` (its faces by code), each from its own generator seeded with ``(seed, i)``,
    written as art folders ``out/<kind>_<seed>_<i>/<code>.png``; their names."""
    names = []
    for index in range(n):
        name = f"{kind}_{seed}_{index:04d}"
        folder = Path(out) / name
        folder.mkdir(parents=True, exist_ok=True)
        for code, image in make_set(np.random.default_rng([seed, index])).items():
            cv2.imwrite(str(folder / f"{code}.png"), image)
        names.append(name)
    return names


class ArtError(ValueError):
    """The art folder is missing or holds no usable set."""


class ArtBank:
    """Face pictures of every set found under ``root``, as BGR float32 on a white face, edges cropped; ``even``:
    each set drawn as often (else by ``SET_WEIGHTS``)."""

    def __init__(self, root: Path, sets: list[str] | None = None, even: bool = False):
        root = Path(root)
        if not root.is_dir():
            raise ArtError(msg("tile art folder not found: {folder}", folder=str(root)))
        self.faces: dict[str, dict[str, np.ndarray]] = {}
        for name in sets or list(SET_WEIGHTS):
            folder = root / name
            if not folder.is_dir():
                continue
            faces = {}
            for code in ALL_CODES:
                path = folder / f"{code}.png"
                if path.is_file():
                    faces[code] = _load_face(path, EDGE_CROP.get(name, 0.0))
            if faces:
                self.faces[name] = faces
        if not self.faces:
            raise ArtError(msg("no tile art set found under {folder} (expected folders such as xmj_real/ with 1m.png "
                               "...)", folder=str(root)))
        self.names = sorted(self.faces)
        weights = np.ones(len(self.names)) if even else np.array([SET_WEIGHTS.get(n, 0.3) for n in self.names])
        self.weights = weights / weights.sum()

    def pick_set(self, rng: np.random.Generator) -> str:
        return self.names[int(rng.choice(len(self.names), p=self.weights))]

    def has_bonus(self) -> bool:
        """Whether any set here has a picture of a flower or season (a set alone may have none)."""
        return any(code in faces for faces in self.faces.values() for code in BONUS_CODES)

    def face(self, set_name: str, code: str) -> np.ndarray:
        """The picture of ``code`` in ``set_name``, or in the first fallback set that has it."""
        faces = self.faces[set_name]
        if code in faces:
            return faces[code]
        for name in (*FALLBACK, *self.names):
            if name in self.faces and code in self.faces[name]:
                return self.faces[name][code]
        raise ArtError(msg("no tile art for {code}", code=code))


def _load_face(path: Path, crop: float) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ArtError(msg("cannot read {path}", path=str(path)))
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    if img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    h, w = img.shape[:2]
    dy, dx = int(round(h * crop)), int(round(w * crop))
    img = img[dy : h - dy, dx : w - dx]
    alpha = img[:, :, 3:4].astype(np.float32) / 255.0
    white = np.full_like(img[:, :, :3], PAPER, dtype=np.float32)
    return img[:, :, :3].astype(np.float32) * alpha + white * (1 - alpha)
