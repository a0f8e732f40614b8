"""The command starts with only what its sub-command needs: reading a photo loads neither the web service nor the
table renderer, and scoring a typed hand loads no vision runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mjlens.api.cli.main import COMMANDS, build_parser, commands_for

REPO = Path(__file__).resolve().parents[1]
#: Packages a command must not load unless it uses them.
SERVICE = {"fastapi", "starlette", "uvicorn", "pydantic"}
VISION = {"onnxruntime", "cv2", "PIL", "pillow_heif"}


@pytest.mark.parametrize(("argv", "expected"), [
    (["recognize", "a.jpg", "--json"], ("recognize",)),
    (["score", "--rules", "mcr", "123m456m789m234p5s +5s"], ("score",)),
    (["--version"], ()),
    (["--help"], COMMANDS), (["--version", "--help"], COMMANDS),
    ([], COMMANDS), (["bogus"], COMMANDS), (None, COMMANDS),
])
def test_only_the_command_run_is_registered(argv, expected):
    assert commands_for(argv) == expected


def test_a_command_alone_parses_as_with_every_command():
    argv = ["recognize", "a.jpg", "--json", "--conf", "0.4"]
    assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))


def _loaded_by(argv: list[str]) -> set[str]:
    """Top-level packages imported by running ``mjlens ARGV`` in a fresh interpreter."""
    script = ("import contextlib, io, json, sys\nfrom mjlens.api.cli.main import main\n"
              "with contextlib.redirect_stdout(io.StringIO()): code = main(json.loads(sys.argv[1]))\n"
              "print(json.dumps({'code': code, 'modules': sorted({m.split('.')[0] for m in sys.modules})}))\n")
    done = subprocess.run([sys.executable, "-c", script, json.dumps(argv)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, done.stderr[-2000:]
    return set(out["modules"])


def test_reading_a_photo_loads_no_service_and_no_renderer():
    from mjlens.vision.runtime.detector import default_model_path

    if not default_model_path().is_file() or not (REPO / "examples" / "hand.jpg").is_file():
        pytest.skip("the shipped model or the sample photo is not present")
    loaded = _loaded_by(["recognize", "examples/hand.jpg", "--json"])
    assert not loaded & (SERVICE | {"rich", "yaml", "tqdm", "pillow_heif"})


def test_scoring_a_typed_hand_loads_no_vision_and_no_service():
    loaded = _loaded_by(["score", "123m456m789m234p5s +5s", "--rules", "mcr", "--json"])
    assert not loaded & (SERVICE | VISION)


def test_photos_read_at_once_give_what_one_after_another_gives(tmp_path):
    """``mjlens recognize`` reads several photos at once on one thread each: the same listing, in the same order,
    as one at a time on every core, an unreadable file in the middle included."""
    from mjlens.vision.runtime.detector import default_model_path

    photos = sorted(str(p.relative_to(REPO)) for p in (REPO / "examples").glob("*.jpg"))
    if not default_model_path().is_file() or len(photos) < 2:
        pytest.skip("the shipped model or the sample photos are not present")
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff\xe0 not a whole photo")
    argv = [sys.executable, "-m", "mjlens", "recognize", "--json", *photos[:1], str(broken), *photos[1:]]
    one, several = (subprocess.run([*argv, "--workers", n], cwd=REPO, capture_output=True, text=True, timeout=300)
                    for n in ("1", "3"))
    assert one.returncode == several.returncode == 2  # the broken file
    assert json.loads(one.stdout) == json.loads(several.stdout)
    assert [r["image"] for r in json.loads(several.stdout)] == [Path(p).name for p in photos[:1]] + [
        str(broken)] + [Path(p).name for p in photos[1:]]
    assert one.stderr == several.stderr


def test_workers_below_one_is_a_usage_error(capsys):
    from mjlens.api.cli.main import main

    assert main(["recognize", "examples/hand.jpg", "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
