"""Faces printed another way (vision/synth/restyle.py): the drawing kept, the printing changed, photos otherwise
the same."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import VENDORED_ART

from mjlens.api.cli.main import main
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.generate import generate_one
from mjlens.vision.synth.restyle import PAPER, FaceStyle, draw_style, restyled

AS_DRAWN = FaceStyle((0, 1, 2), 0, 0, 1.0, (int(PAPER),) * 3, None)


@pytest.fixture(scope="module")
def face() -> np.ndarray:
    art = ArtBank(VENDORED_ART)
    return art.face(art.names[0], "5m")


def _ink(img: np.ndarray) -> np.ndarray:
    """Where the face carries ink: far from its own commonest shade."""
    grey = img.mean(axis=2)
    return np.abs(grey - np.median(grey)) > 40


def test_as_drawn_style_changes_nothing_but_rounding(face):
    assert np.abs(restyled(face, AS_DRAWN) - face).max() <= 1.0


def test_a_style_keeps_the_drawing_and_changes_the_printing(face):
    bold = restyled(face, FaceStyle((0, 1, 2), 0, 2, 1.0, (int(PAPER),) * 3, None))
    thin = restyled(face, FaceStyle((0, 1, 2), 0, -1, 1.0, (int(PAPER),) * 3, None))
    assert _ink(bold).sum() > _ink(face).sum() > _ink(thin).sum()
    faded = restyled(face, FaceStyle((0, 1, 2), 0, 0, 0.5, (int(PAPER),) * 3, None))
    assert faded.min() > face.min() + 50
    swapped = restyled(face, FaceStyle((2, 1, 0), 0, 0, 1.0, (int(PAPER),) * 3, None))
    assert np.allclose(swapped, face[:, :, ::-1], atol=1.0)
    dark = restyled(face, FaceStyle((0, 1, 2), 0, 0, 1.0, (40, 40, 120), (245, 245, 245)))
    assert dark.shape == face.shape
    # Light ink on a dark face: where the drawing has ink the face is now lighter than its ground.
    ink = _ink(face)
    assert dark[ink].mean() > dark[~ink].mean() + 60


def test_styles_are_drawn_from_the_generator_alone():
    first = [draw_style(np.random.default_rng(seed)) for seed in range(20)]
    assert first == [draw_style(np.random.default_rng(seed)) for seed in range(20)]
    assert len(set(first)) > 15
    assert any(style.light_ink for style in first) and any(style.light_ink is None for style in first)


def test_restyled_photos_keep_the_hand_and_the_labels():
    art = ArtBank(VENDORED_ART)
    plain = generate_one(3, 1, art, size=256)
    assert generate_one(3, 1, art, size=256, restyle=0.0).jpeg == plain.jpeg
    shown = generate_one(3, 1, art, size=256, restyle=1.0)
    assert shown.labels == plain.labels and shown.record == plain.record
    assert shown.jpeg != plain.jpeg
    assert generate_one(3, 1, art, size=256, restyle=1.0).jpeg == shown.jpeg


def test_cli_restyle_share_is_checked(tmp_path, capsys):
    base = ["synth", "--n", "1", "--out", str(tmp_path), "--size", "128", "--art", str(VENDORED_ART)]
    assert main([*base, "--restyle", "1.5"]) == 2
    assert "--restyle" in capsys.readouterr().err
    assert main([*base, "--restyle", "0.5", "--sheet", "--set", "xmj_real"]) == 2
    assert main([*base, "--restyle", "1"]) == 0
    assert "--restyle 1.0" in (tmp_path / "data.yaml").read_text()
