"""The taiwan rules through the public doors: ``mjlens score --rules taiwan`` and the engine's catalogue."""

from __future__ import annotations

import json

import pytest

from mjlens.api.cli.main import main
from mjlens.scoring import engine


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict | None, str]:
    code = main(["score", *argv, "--rules", "taiwan", "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_cli_scores_with_stakes_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "123m456m789m234p55p67s +8s", "--seat", "S", "--not-dealer", "--stakes", "50/10",
                          "--option", "discarder=E", "--streak", "1")
    assert code == 0
    assert result["unit"] == "tai"
    assert result["total"] == 3 + 1 + 2
    assert result["settlement"] == {"E": -110, "S": 110, "W": 0, "N": 0}


def test_cli_flower_win_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "123m456m789m234p55p3s9s 1f2f3f4f5f6f7f +2s", "--option", "bonus_win=seven_rob_one",
                          "--option", "discarder=W")
    assert code == 0
    assert [i["key"] for i in result["items"]] == ["seven_rob_one", "dealer"]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["123m456m789m234p55p6s +8s"], "tile_count"),
        (["123m456m789m234p55p67s +8s", "--option", "colour=red"], "bad_option"),
        (["123m456m789m234p55p67s +8s", "--heavenly", "--not-dealer", "--seat", "S"], "bad_context"),
    ],
)
def test_cli_bad_input_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str], code: str) -> None:
    status, result, err = run(capsys, *argv)
    assert status == 2
    assert result["error"]["code"] == code
    assert code in err


def test_engine_catalogue_lists_taiwan_items() -> None:
    taiwan = next(r for r in engine.catalog() if r["rules"] == "taiwan")
    assert taiwan["unit"] == "tai"
    assert {"heavenly", "seven_pairs_pung", "eight_immortals"} <= {i["key"] for i in taiwan["items"]}
