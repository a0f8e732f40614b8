"""``mjlens score``: the command-line contract of CONVENTIONS §5 (exit codes, JSONL streaming, Hand JSON)."""

import json
import subprocess
import sys

from mjlens.api.cli.main import main

HAND = {"concealed": ["1m", "2m", "3m", "2m", "3m", "4m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"],
        "winning_tile": "5z"}


def run_cli(args, stdin=""):
    return subprocess.run([sys.executable, "-m", "mjlens", *args], input=stdin, capture_output=True, text=True,
                          timeout=60)


def test_compact_notation_as_json(capsys):
    assert main(["score", "123m234m456p789s5z +5z", "--rules", "mcr", "--json", "--option", "discarder=S"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["valid"] and result["total"] == 11
    assert {i["key"] for i in result["items"]} == {"mixed_straight", "concealed_hand", "single_wait"}
    assert sum(result["settlement"].values()) == 0


def test_jsonl_goes_on_past_bad_lines():
    lines = [json.dumps(HAND), "{not json", json.dumps({"concealed": ["1m"] * 5}), "", json.dumps(HAND)]
    proc = run_cli(["score", "--rules", "mcr", "--jsonl", "-"], "\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["valid"] for r in out] == [True, False, False, True]
    assert out[1]["error"]["code"] == "bad_hand_json"
    assert out[2]["error"]["code"] == "too_many_copies"


def test_jsonl_with_workers_keeps_order():
    lines = [json.dumps({**HAND, "context": {"seat_wind": w}}) for w in "ESWN" * 3]
    proc = run_cli(["score", "--rules", "mcr", "--jsonl", "-", "--workers", "2"], "\n".join(lines))
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    winners = [max(r["settlement"].items(), key=lambda kv: kv[1])[0] for r in results]
    assert winners == list("ESWN" * 3)


def test_hand_json_from_stdin_with_flags_over_its_context():
    proc = run_cli(["score", "--hand-json", "-", "--rules", "mcr", "--self-drawn", "--json"], json.dumps(HAND))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "fully_concealed_hand" in {i["key"] for i in result["items"]}
    # self-drawn: each of the three others pays 8 + total
    assert result["settlement"] == {"E": 3 * (8 + result["total"])} | {s: -(8 + result["total"]) for s in "SWN"}


def test_unknown_winning_tile_scores_the_best_reading():
    hand = {**HAND, "concealed": HAND["concealed"] + ["5z"], "winning_tile": None}
    proc = run_cli(["score", "--hand-json", "-", "--rules", "mcr", "--json"], json.dumps(hand))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["valid"] and result["winning_tile"] in HAND["concealed"]
    assert result["warnings"][0].startswith("winning tile unknown")


def test_bad_input_exits_2_with_the_code_on_stderr():
    proc = run_cli(["score", "123m +", "--rules", "mcr"])
    assert proc.returncode == 2 and "bad_notation" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli(["score", "123m456p789s234m5z +5z", "--rules", "zung_jung"])
    assert proc.returncode == 2 and "unknown_rules" in proc.stderr
    proc = run_cli(["score", "--hand-json", "/nonexistent/hand.json"])
    assert proc.returncode == 2 and "cannot read" in proc.stderr
    proc = run_cli(["score", "--rules", "mcr", "--json"])
    assert proc.returncode == 2


def test_every_rule_system_answers():
    for rules, hand in [("mcr", "123m234m456p789s5z +5z"), ("cantonese", "123m234m456p789s5z +5z"),
                        ("taiwan", "123m456m789m234p55p67s +8s")]:
        proc = run_cli(["score", hand, "--rules", rules])
        assert proc.returncode == 0, (rules, proc.stderr)
        assert "Total" in proc.stdout
