"""Drawn sets: dots and bamboo drawn from shapes, characters and honours put together from an art set's parts
(vision.synth.drawn), from the art set vendored in the repository."""

from __future__ import annotations

import cv2
import numpy as np
from conftest import VENDORED_ART

from mjlens.scoring.tiles import ALL_CODES, PLAYING_CODES
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.drawn import FACE_SIZE, write_drawn_art


def _faces(folder):
    return {code: cv2.imread(str(folder / f"{code}.png")) for code in ALL_CODES if (folder / f"{code}.png").is_file()}


def test_each_set_draws_every_playing_tile_apart_and_the_same_seed_draws_the_same(tmp_path):
    names = write_drawn_art(tmp_path / "a", 3, 5, VENDORED_ART)
    again = write_drawn_art(tmp_path / "b", 3, 5, VENDORED_ART)
    assert names == again and len(set(names)) == 3
    for name in names:
        faces = _faces(tmp_path / "a" / name)
        assert set(PLAYING_CODES) <= set(faces)
        assert all(face.shape[:2] == (FACE_SIZE[1], FACE_SIZE[0]) for face in faces.values())
        for suit in "mps":  # each count is drawn differently
            drawn = [faces[f"{n}{suit}"].astype(int) for n in range(1, 10)]
            assert all(np.abs(a - b).sum() > 0 for i, a in enumerate(drawn) for b in drawn[i + 1:])
        assert all(np.array_equal(face, _faces(tmp_path / "b" / name)[code]) for code, face in faces.items())
    # Sets differ from one another: each draws its own style.
    first, second = (_faces(tmp_path / "a" / name)["5p"] for name in names[:2])
    assert np.abs(first.astype(int) - second.astype(int)).sum() > 0


def test_a_drawn_set_is_art_that_photos_are_made_of(tmp_path):
    name = write_drawn_art(tmp_path / "art", 1, 2, VENDORED_ART)[0]
    assert set(PLAYING_CODES) <= set(ArtBank(tmp_path / "art", [name]).faces[name])
