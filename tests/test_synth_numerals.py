"""Numeral sets: flower and season faces told apart by their numeral (vision.synth.numerals), cut from the art set
vendored in the repository."""

from __future__ import annotations

import cv2
import numpy as np
from conftest import VENDORED_ART

from mjlens.scoring.tiles import FLOWER_CODES, SEASON_CODES
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.numerals import write_numeral_art
from mjlens.vision.synth.sheet import write_sheets


def _faces(folder):
    return {code: cv2.imread(str(folder / f"{code}.png")) for code in SEASON_CODES + FLOWER_CODES}


def test_each_set_has_eight_faces_that_differ_within_a_group_and_the_same_seed_draws_the_same(tmp_path):
    names = write_numeral_art(tmp_path / "a", 3, 7, VENDORED_ART)
    again = write_numeral_art(tmp_path / "b", 3, 7, VENDORED_ART)
    assert names == again and len(set(names)) == 3
    for name in names:
        faces = _faces(tmp_path / "a" / name)
        assert all(face is not None and face.shape[:2] == (160, 120) for face in faces.values())
        for group in (SEASON_CODES, FLOWER_CODES):  # the numeral tells them apart, whatever the picture
            for i, first in enumerate(group):
                for second in group[i + 1:]:
                    assert np.abs(faces[first].astype(int) - faces[second].astype(int)).sum() > 0
        assert all(np.array_equal(face, _faces(tmp_path / "b" / name)[code]) for code, face in faces.items())


def test_a_numeral_set_is_art_that_sheets_are_made_of(tmp_path):
    name = write_numeral_art(tmp_path / "art", 1, 3, VENDORED_ART)[0]
    assert sorted(ArtBank(tmp_path / "art", [name]).faces[name]) == sorted(SEASON_CODES + FLOWER_CODES)
    assert write_sheets(tmp_path / "sheets", 1, 3, tmp_path / "art", name) == 8
    labels = (tmp_path / "sheets" / "labels").glob("*.txt")
    assert sorted(int(line.split()[0]) for path in labels for line in path.read_text().splitlines()) == \
        list(range(34, 42))
