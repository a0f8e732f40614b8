"""Shared test fixtures: where the shared data lives, and skipping where it is absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"
#: The art set vendored in the repository that the layout photos of the profile tests show.
VENDORED_ART = REPO / "datasets" / "tile-art"
LAYOUT_ART_SET = "xhokir_regular_flowers"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present (a fresh clone has only the repository)")
    return SHARED


@pytest.fixture
def photo() -> np.ndarray:
    """A 128x128 BGR photo: a white tile on the left half, a black one on the right, grey elsewhere (the two-stage
    reader's tests)."""
    bgr = np.full((128, 128, 3), 90, np.uint8)
    bgr[40:80, 10:40] = 255
    bgr[40:80, 80:110] = 0
    return bgr


@pytest.fixture
def detector_alone(monkeypatch):
    """Read with the detector alone (``MJLENS_CLASSIFIER=none``): for tests of tiny detectors of their own, which
    the shipped crop classifier would otherwise join."""
    monkeypatch.setenv("MJLENS_CLASSIFIER", "none")


@pytest.fixture(scope="session")
def vendored_layout_photo(tmp_path_factory) -> Path:
    """A synthetic photo of the vendored art set laid out in rows (``mjlens synth --sheet``), its labels beside it
    in the YOLO folder; read only."""
    from mjlens.vision.synth.sheet import write_sheets

    out = tmp_path_factory.mktemp("layout")
    write_sheets(out, 1, 0, VENDORED_ART, LAYOUT_ART_SET)
    return next((out / "images").glob("*.jpg"))
