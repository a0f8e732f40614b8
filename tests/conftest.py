"""Shared test fixtures: where the shared data lives, and skipping where it is absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"


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
