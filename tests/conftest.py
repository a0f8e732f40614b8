"""Shared test fixtures: where the shared data lives, and skipping where it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present (a fresh clone has only the repository)")
    return SHARED
