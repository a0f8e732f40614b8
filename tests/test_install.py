"""What an installed mjlens offers wherever it lives: one import name, the models found as package data, the
version, and clear errors for what a wheel does not ship (tile art)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

import mjlens
from mjlens.api.cli.commands import synth
from mjlens.api.cli.main import main
from mjlens.models import CLASSIFIER_FILE, DETECTOR_FILE, shipped

REPO = Path(__file__).resolve().parents[1]


def test_every_package_installs_under_mjlens_and_every_folder_is_listed():
    setup = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages, folders = set(setup["packages"]), setup["package-dir"]
    assert {name.split(".")[0] for name in packages} == {"mjlens"}
    for top, folder in folders.items():  # each sub-package folder of a mapped folder is in the list, so it ships
        for init in (REPO / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO / folder).parts
            if "__pycache__" not in parts:
                assert ".".join((top, *parts)) in packages, init


def test_the_models_are_package_data():
    assert shipped(DETECTOR_FILE).is_file() and shipped(CLASSIFIER_FILE).is_file()
    assert shipped(DETECTOR_FILE).parent == Path(sys.modules["mjlens.models"].__file__).parent


@pytest.mark.parametrize(("folder", "package"), [("service/static", "mjlens.api.service.static"),  # the phone page
                                                  ("labelling/review_page", "mjlens.api.labelling.review_page")])
def test_every_file_of_a_page_is_package_data(folder, package):
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    page = sorted(path for path in (REPO / "api" / folder).iterdir() if path.is_file() and path.suffix != ".py")
    assert page
    for path in page:  # a file no pattern names would be missing from a wheel
        assert any(fnmatch(path.name, pattern) for pattern in patterns[package]), path.name


def test_version_and_python_dash_m():
    assert mjlens.__version__ and mjlens.__version__ != "0+unknown"
    proc = subprocess.run([sys.executable, "-m", "mjlens", "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"mjlens {mjlens.__version__}"


def test_synth_without_tile_art_says_where_to_get_it(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(synth.ART_ENV, raising=False)
    monkeypatch.setattr(synth, "ART_CANDIDATES", (tmp_path / "none",))
    assert main(["synth", "--n", "1", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert synth.ART_ENV in err and "--art" in err and "Traceback" not in err
