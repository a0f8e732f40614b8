"""``mjlens waits`` and ``mjlens advise``: the same inputs and exit codes as ``mjlens score``, plus --seen and
--discards; --jsonl answers one line per Hand JSON line, a bad line a ``valid: false`` line."""

import json

import pytest

from mjlens.api.cli.main import main

READY = "123m456p78s11z [555z]"
ONE_TOO_MANY = "123m456m789m55p6s7s +9s"


def test_waits_as_json_with_what_is_seen(capsys):
    assert main(["waits", READY, "--rules", "mcr", "--json", "--seen", "9s", "--discards", "S=6s6s"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["shanten"] == 0
    assert {w["tile"]: w["left"] for w in result["waits"]} == {"6s": 2, "9s": 3}
    assert all(w["discard"]["valid"] and w["self_drawn"]["valid"] for w in result["waits"])


def test_waits_table_for_people(capsys):
    assert main(["waits", READY, "--rules", "mcr", "--self-drawn"]) == 0
    out = capsys.readouterr().out
    assert "ready" in out and "6s" in out and "9s" in out and "fan" in out


def test_advise_table_and_json(capsys):
    assert main(["advise", ONE_TOO_MANY, "--rules", "mcr", "--discards", "S=1m3z"]) == 0
    assert "9s" in capsys.readouterr().out
    assert main(["advise", ONE_TOO_MANY, "--rules", "mcr", "--json", "--discards", "S=1m3z"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["shanten"] == 0 and result["discards"][0]["tile"] == "9s"
    one_m = next(d for d in result["discards"] if d["tile"] == "1m")
    assert [m["rule"] for m in one_m["safety"]] == ["follow_discarded"]


@pytest.mark.parametrize("argv,code", [
    (["waits", READY + " +9s", "--rules", "mcr"], "tile_count"),
    (["advise", "123m", "--rules", "taiwan"], "tile_count"),
    (["waits", READY, "--rules", "zung_jung"], "unknown_rules"),
    (["waits", READY, "--seen", "5z5z"], "too_many_copies"),
    (["advise", READY, "--seen", "1q"], "bad_notation"),
    (["advise", READY, "--option", "nonsense=1"], "bad_option"),
    (["waits", "12x"], "bad_notation"),
])
def test_bad_input_exits_2_with_the_code(capsys, argv, code):
    assert main([*argv, "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"]["code"] == code
    assert f": {code}: " in captured.err


def test_a_malformed_discards_flag_is_a_usage_error(capsys):
    assert main(["advise", ONE_TOO_MANY, "--discards", "X=1m"]) == 2
    assert "SEAT=TILES" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["waits", "advise"])
def test_jsonl_one_line_out_per_line_in(tmp_path, capsys, command):
    hand = {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z"],
            "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"]}], "winning_tile": None}
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join([json.dumps(hand), "{not json", json.dumps({"concealed": ["1m"] * 5}), "",
                               json.dumps(hand)]) + "\n", encoding="utf-8")
    assert main([command, "--rules", "mcr", "--jsonl", str(path)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["valid"] for r in out] == [True, False, False, True]
    assert out[0]["shanten"] == 0 and {w["tile"] for w in out[0]["waits"]} == {"6s", "9s"}
    assert out[1]["error"]["code"] == "bad_hand_json" and out[2]["error"]["code"] == "too_many_copies"
