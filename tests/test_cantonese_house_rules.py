"""雞平和 house rules: values replaced from a TOML file (in-process and through ``mjlens score``), the minimum,
and bad house rules refused with ``bad_option``."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest
from conftest import EXAMPLES
from test_cantonese import cant, keys

from mjlens.api.cli.main import main
from mjlens.scoring import HandError
from mjlens.scoring.cantonese.rules import default_rules, rules_for

HOUSE = EXAMPLES / "house-rules.toml"


def test_defaults_match_the_rule_table():
    rules = default_rules()
    assert (rules.cap, rules.floor, rules.minimum, rules.seven_pairs) == (3, 3, 0, False)
    values = {k: d.value for k, d in rules.items.items() if d.kind != "floor"}
    assert values["all_chows"] == 1 and values["all_pungs"] == 2 and values["half_flush"] == 2
    assert values["full_flush"] == 4 and values["full_flush_pungs"] == 5 and values["big_dragons"] == 6


def test_house_values_replace_defaults():
    house = {"values": {"full_flush": 6, "all_chows": 2}}
    assert cant("123m456m789m234m5m +5m", {"house_rules": house}).total == 6
    assert cant("123m456p789s234m5s +5s", {"house_rules": house}).total == 2


def test_house_cap_changes_the_clip():
    hand = "[777z]123m456m789m5z +5z"  # 混一色 2 + 自摸 1 + 中 1 = 4
    assert cant(hand, self_drawn=True).total == 3
    raised = cant(hand, {"house_rules": {"rules": {"cap": 5}}}, self_drawn=True)
    assert raised.total == 4 and "capped_from" not in raised.extra and raised.extra["cap"] == 5


def test_house_minimum_makes_small_hands_below_minimum_with_items_kept():
    got = cant("123m456p789s999m5s +5s", {"house_rules": {"rules": {"minimum": 1}}})
    assert not got.valid and got.error.code == "below_minimum"
    assert keys(got) == ["chicken"] and got.total == 0
    out = got.to_json()
    assert out["error"]["code"] == "below_minimum" and out["items"][0]["key"] == "chicken"
    assert cant("123m456p789s234m5s +5s", {"house_rules": {"rules": {"minimum": 1}}}).valid


def test_house_floor_changes_the_three_fan_cases():
    got = cant("[1111m]234m567p999s5p +5p", {"house_rules": {"rules": {"floor": 2}}}, kong_replacement=True)
    assert got.total == 2


@pytest.mark.parametrize(
    "house",
    [
        {"rule": {"cap": 3}},
        {"rules": {"caps": 3}},
        {"rules": {"cap": -1}},
        {"rules": {"cap": 14}},
        {"rules": {"cap": "3"}},
        {"rules": {"cap": True}},
        {"rules": {"cap": 2.5}},
        {"rules": {"seven_pairs": "yes"}},
        {"rules": 3},
        {"values": {"dragon": 1}},
        {"values": {"kong_replacement": 3}},
        {"values": {"full_flush": -4}},
        {"settlement": {"discard_multiplier": 0}},
        {"settlement": {"tip": 1}},
        [1, 2],
    ],
)
def test_bad_house_rules_are_bad_option(house):
    with pytest.raises(HandError) as err:
        rules_for(house)
    assert err.value.code == "bad_option" and "house" in err.value.message.lower()


def test_example_house_rules_file_is_valid():
    rules = rules_for(tomllib.loads(HOUSE.read_text(encoding="utf-8")))
    assert rules.cap == 5 and rules.minimum == 1 and rules.seven_pairs and rules.discard_multiplier == 2


def test_cli_reads_house_rules_from_a_toml_file(capsys):
    rc = main(["score", "1122m3344p5566s7z +7z", "--rules", "cantonese", "--house-rules", str(HOUSE),
               "--json", "--option", "discarder=S"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["items"][0]["key"] == "seven_pairs" and out["total"] == 4
    assert out["settlement"] == {"E": 32, "S": -32, "W": 0, "N": 0}  # 16 points, the discarder pays double


def test_cli_house_minimum_refuses_a_chicken_hand(capsys):
    rc = main(["score", "123m456p789s999m5s +5s", "--rules", "cantonese", "--house-rules", str(HOUSE), "--json"])
    captured = capsys.readouterr()
    assert rc == 2 and json.loads(captured.out)["error"]["code"] == "below_minimum"
    assert "below_minimum" in captured.err


def test_cli_bad_house_rule_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "house.toml"
    bad.write_text("[rules]\ncap = 99\n", encoding="utf-8")
    rc = main(["score", "123m456p789s999m5s +5s", "--rules", "cantonese", "--house-rules", str(bad)])
    assert rc == 2 and "bad_option" in capsys.readouterr().err


def test_installed_command_with_the_example_file():
    """The real ``mjlens`` entry point, as a person types it."""
    cmd = [sys.executable, "-m", "mjlens", "score", "123m456m789m234m5m +5m", "--rules", "cantonese",
           "--house-rules", str(HOUSE), "--json", "--option", "discarder=N"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["total"] == 5 and out["points"] == 32 and out["house_rules"]["values"]["full_flush"] == 5
