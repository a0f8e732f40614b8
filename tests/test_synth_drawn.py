"""Drawn sets: dots and bamboo drawn from shapes, characters and honours put together from an art set's parts
(vision.synth.drawn), from the art set vendored in the repository."""

from __future__ import annotations

import cv2
import numpy as np
from conftest import VENDORED_ART

from mjlens.scoring.tiles import ALL_CODES, BONUS_CODES, PLAYING_CODES
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.drawn import FACE_SIZE, write_drawn_art
from mjlens.vision.synth.plants import KINDS, draw_picture


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


def test_pictured_flowers_tell_each_face_apart_by_its_numeral_or_word(tmp_path):
    names = write_drawn_art(tmp_path / "art", 4, 3, VENDORED_ART, pictured_share=1.0)
    for name in names:
        faces = _faces(tmp_path / "art" / name)
        bonus = [faces[code].astype(int) for code in BONUS_CODES]
        assert len(bonus) == 8
        assert all(np.abs(a - b).sum() > 0 for i, a in enumerate(bonus) for b in bonus[i + 1:])
    # Picturing the flowers changes nothing else: every other face is the one the same seed draws without it.
    plain = write_drawn_art(tmp_path / "plain", 4, 3, VENDORED_ART)
    for name in plain:
        pictured = _faces(tmp_path / "art" / name)
        assert all(np.array_equal(face, pictured[code])
                   for code, face in _faces(tmp_path / "plain" / name).items() if code not in BONUS_CODES)


def test_every_kind_of_picture_draws_inside_its_box_alone():
    for kind in KINDS:
        canvas = np.full((384, 288, 3), 242, np.uint8)
        draw_picture(canvas, (40, 100, 248, 340), kind, np.random.default_rng(0))
        inked = np.abs(canvas.astype(int) - 242).sum(axis=2) > 30
        assert inked[100:340, 40:248].sum() > 200, kind
        outside = inked.copy()
        outside[100:340, 40:248] = False
        assert outside.sum() == 0, kind
