"""Bad flags on the command line: each refusal carries a stable code (CONVENTIONS §5), names the flag the user
typed rather than an option key inside, and offers the flag, command or choice that was meant where one is close."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjlens.api.cli.main import main

MCR = "123m456p78s11z [555z] 1f +9s"
TAIWAN = "123m456m789m234p55p67s +8s"
GUANGDONG_HOUSE_RULES = Path(__file__).resolve().parent.parent / "examples" / "house-rules.toml"


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The last line on stderr of a command line that must exit 2."""
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize(("argv", "code", "hint"), [
    (["score", MCR, "--self-drwn"], "unknown_flag", "did you mean --self-drawn?"),
    (["score", MCR, "--stakse=100/20"], "unknown_flag", "did you mean --stakes?"),
    (["scroe", MCR], "bad_flag_value", "did you mean score?"),
    (["score", MCR, "--seat", "X"], "bad_flag_value", "--seat"),
    (["score", MCR, "--streak", "x"], "bad_flag_value", "--streak"),
    (["score", MCR, "--streak"], "missing_value", "--streak"),
    (["score", MCR, "--dealer", "--not-dealer"], "conflicting_flags", "--dealer"),
    (["photo"], "missing_argument", "IMAGE"),
])
def test_a_bad_flag_gets_a_code_and_a_hint(capsys, argv: list[str], code: str, hint: str) -> None:
    line = _refused(capsys, *argv)
    assert line.startswith(f"mjlens {argv[0] if argv[0] != 'scroe' else ''}".rstrip() + ":")
    assert f": {code}: " in line and hint in line


def test_no_hint_where_nothing_is_close(capsys) -> None:
    assert "did you mean" not in _refused(capsys, "score", MCR, "--zzzzzz")


def test_the_rule_system_is_read_in_any_case(capsys) -> None:
    assert main(["score", MCR, "--rules", "MCR", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"] == "mcr"


def test_stakes_name_the_flag_and_the_system_it_is_for(capsys) -> None:
    line = _refused(capsys, "score", MCR, "--rules", "mcr", "--stakes", "100/20")
    assert "bad_option: --stakes" in line and "--rules taiwan only" in line and "option 'stakes'" not in line
    assert main(["score", TAIWAN, "--rules", "taiwan", "--stakes", "100/20", "--json"]) == 0


@pytest.mark.parametrize("rules", ["mcr", "taiwan"])
def test_a_house_rule_file_of_another_system_names_the_file(capsys, rules: str) -> None:
    line = _refused(capsys, "score", TAIWAN if rules == "taiwan" else MCR, "--rules", rules,
                    "--house-rules", str(GUANGDONG_HOUSE_RULES))
    assert line.startswith("mjlens score: bad_option: house rules ")
    assert f"do not fit --rules {rules}" in line and "house rule" in line and f"docs/rules/{rules}.md" in line
    assert "option 'rules'" not in line


def test_each_system_takes_a_house_rule_file_in_its_shape(capsys, tmp_path: Path) -> None:
    mcr = tmp_path / "mcr.toml"
    mcr.write_text("minimum = 0\n", encoding="utf-8")
    taiwan = tmp_path / "taiwan.toml"
    taiwan.write_text('stakes = "50/10"\n[values]\nall_chows = 3\n', encoding="utf-8")
    assert main(["score", "123456789m234p5s +5s", "--rules", "mcr", "--house-rules", str(mcr), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"]
    assert main(["score", TAIWAN, "--rules", "taiwan", "--house-rules", str(taiwan), "--option", "discarder=S",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["settlement_detail"]["stakes"] == {"base": 50, "per_tai": 10}
    assert main(["score", "11122233m444p55z +5z", "--rules", "cantonese", "--house-rules",
                 str(GUANGDONG_HOUSE_RULES), "--json"]) == 0


def test_a_house_rule_file_that_is_not_toml(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml", encoding="utf-8")
    assert "bad_option: house rules" in _refused(capsys, "score", MCR, "--house-rules", str(bad))


def test_train_help_gives_each_default(capsys, monkeypatch) -> None:
    import argparse

    from mjlens.api.cli.main import build_parser

    monkeypatch.setenv("COLUMNS", "400")  # one line per flag, so no default is wrapped apart
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    train = next(a for a in build_parser(["train"])._actions if isinstance(a, argparse._SubParsersAction)
                 ).choices["train"]
    shown = [a for a in train._actions if a.option_strings and a.default not in (None, False, [], argparse.SUPPRESS)]
    assert shown and all(f"(default: {a.default})" in out for a in shown)
    assert "(default: None)" not in out
