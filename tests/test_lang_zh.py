"""``--lang zh``: what score, photo, waits, advise and recognize print for people holds no English sentence, and
the catalogue has a Chinese translation, with the same placeholders, for every message the code can say."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from lang_check import english_sentences

from mjlens.api.cli.main import main
from mjlens.i18n import catalogue, join, lang_of, localize, msg, pmsg, say

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
MODELS = REPO / "models"


def test_the_check_finds_english_and_lets_chinese_codes_and_commands_pass():
    assert english_sentences("不計：自摸 (because of 不求)") == ["because of"]
    assert english_sentences("! the hand is empty") == ["the hand is empty"]
    assert english_sentences("手牌：123m456p78s11z [555z] +9s （mcr）\nmjlens advise 會列出；bad_notation: 5z×4") == []


def run_zh(capsys, *args: str) -> tuple[int, str]:
    status = main([*args, "--lang", "zh"])
    out = capsys.readouterr()
    return status, out.out + out.err


# (command line, exit status): valid hands of each rule system, hands with warnings, and bad input of each kind
SCORE_CASES = [
    (["score", "123m456p78s11z [555z] 1f +9s", "--rules", "mcr"], 0),  # flower, discarder assumed
    (["score", "123m456p78s11z [555z] +9s", "--rules", "mcr", "--seat", "S", "--dealer"], 0),  # dealer mismatch
    (["score", "123m123m456p789s5z +5z", "--rules", "mcr", "--self-drawn"], 0),  # items not counted (excluded)
    (["score", "123m456m789m11z234p +5p", "--rules", "mcr"], 2),  # below the 8-fan minimum: table, then the refusal
    (["score", "123m456m789m234p55p67s +8s", "--rules", "taiwan", "--self-drawn", "--streak", "2"], 0),
    (["score", "123m456m789m234p55p67s +8s", "--rules", "taiwan", "--robbing-kong", "--self-drawn"], 2),
    (["score", "123m456m789m23p55z +1p", "--rules", "cantonese", "--kong"], 2),  # kong win without a kong
    (["score", "123m456m789m23p55z1f +1p", "--rules", "cantonese"], 0),  # bonus tiles ignored
    (["score", "234m456p678s22z33p +3p", "--rules", "riichi", "--riichi", "--dora", "2m", "--self-drawn"], 0),
    (["score", "234m456p678s22z33p +3p", "--rules", "riichi", "--riichi", "--double-riichi"], 0),  # both given
    (["score", "123m45x"], 2),  # bad notation
    (["score", "11111m234p567s99s +9s"], 2),  # too many copies
    (["score", "123m456p789s1234z +5z", "--rules", "mcr"], 2),  # not winning
    (["score", "123m456p789s11z +1z", "--rules", "nosuch"], 2),  # unknown rule system
    (["score", "123m456p789s11z22z +1z", "--rules", "mcr", "--option", "nosuch=1"], 2),  # unknown option
    (["score", "[1234m] 456p789s11z +1z"], 2),  # a meld that is no meld
]

WAITS_CASES = [
    (["waits", "123m456p78s11z [555z]", "--rules", "mcr", "--seen", "9s"], 0),
    (["waits", "123m456p78s11z [555z]", "--rules", "mcr", "--discards", "E=6s"], 0),  # furiten: E is the hand's own
    (["waits", "234m456p678s22z33p", "--rules", "riichi", "--riichi"], 0),  # riichi: fu and points for each win
    (["waits", "123m456m789m23p55z", "--rules", "cantonese"], 0),
    (["waits", "123m458p78s11z [555z]", "--rules", "mcr"], 0),  # not ready: the pointer to advise
    (["waits", "123m456p789s11z [555z]", "--rules", "mcr"], 2),  # a tile too many: the pointer to advise
    (["waits", "123m456p78s1x"], 2),
]

ADVISE_CASES = [
    (["advise", "123m456m789m55p6s7s +9s", "--rules", "mcr", "--discards", "S=1m3z", "--seat", "E"], 0),
    (["advise", "123m456m789m55p6s7s", "--rules", "mcr"], 0),  # 13 tiles: the useful tiles
    (["advise", "123m456m789m158p37s", "--rules", "mcr"], 0),  # far from ready
    (["advise", "123m456m789m55p78s +9s", "--rules", "mcr"], 0),  # already wins
    (["advise", "234m456p678s22z35p +9s", "--rules", "riichi", "--discards", "S=9s1z", "--discards", "W=4p"], 0),
    (["advise", "1234567m"], 2),
]


@pytest.mark.parametrize(("args", "status"), SCORE_CASES + WAITS_CASES + ADVISE_CASES,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_hand_commands_say_no_english_sentence(capsys, args, status):
    got, text = run_zh(capsys, *args)
    assert got == status, text
    assert text.strip()
    assert english_sentences(text) == [], text


@pytest.mark.parametrize("args", [["score", "--rules"], ["score", "123m", "--seat", "X"],
                                  ["waits", "1m", "--streak", "x"], ["advise", "--hand-json", "a", "--jsonl", "b"],
                                  ["score", "1m", "--self-drwn"], ["score", "1m", "--s"], ["nosuch"]])
def test_a_mistyped_command_line_is_refused_in_chinese_with_its_code(capsys, args):
    with pytest.raises(SystemExit) as stop:
        main([*args, "--lang", "zh"])
    assert stop.value.code == 2
    complaint = capsys.readouterr().err.strip().splitlines()[-1]  # after argparse's usage line, which is syntax
    code = complaint.split(": ")[1]
    assert code in {"missing_value", "bad_flag_value", "conflicting_flags", "unknown_flag", "bad_arguments"}
    assert english_sentences(complaint) == [], complaint


def test_the_same_commands_in_english_are_english(capsys):
    # the default is English and its words are the ones scripts and users knew
    assert main(["waits", "123m458p78s11z [555z]", "--rules", "mcr"]) == 0
    assert "mjlens advise lists the tiles that bring it nearer" in capsys.readouterr().out
    assert main(["score", "123m45x"]) == 2
    assert capsys.readouterr().err.strip() == "mjlens score: bad_notation: unexpected character 'x' in the hand"


def test_an_error_keeps_its_code_in_chinese(capsys):
    assert run_zh(capsys, "score", "123m45x")[1].strip() == "mjlens score: bad_notation: 手牌中有意外的字元 'x'"


def test_json_output_keeps_english_messages_and_codes(capsys):
    # --json is for scripts (CONVENTIONS §3): the codes and the messages are the same whatever --lang says
    assert main(["score", "123m45x", "--json", "--lang", "zh"]) == 2
    out = capsys.readouterr()
    assert '"code": "bad_notation"' in out.out and "unexpected character" in out.out


def _recognize_example(capsys, command: list[str]) -> str:
    if not (MODELS / "mjlens-tiles.onnx").is_file():
        pytest.skip("the tile model is not in this tree")
    status, text = run_zh(capsys, *command)
    assert status in (0, 2), text
    return text


@pytest.mark.parametrize("photo", ["hand.jpg", "taiwan.jpg", "flowers.jpg"])
def test_recognize_and_photo_say_no_english_sentence(capsys, photo):
    text = _recognize_example(capsys, ["recognize", str(EXAMPLES / photo)])
    assert "張牌" in text and english_sentences(text) == [], text
    rules = "taiwan" if photo == "taiwan.jpg" else "mcr"
    text = _recognize_example(capsys, ["photo", str(EXAMPLES / photo), "--rules", rules])
    assert english_sentences(text) == [], text


def test_a_file_that_is_no_photo_is_refused_in_chinese(capsys, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    for command in (["recognize", str(bad)], ["photo", str(bad), "--rules", "mcr"]):
        text = _recognize_example(capsys, command)
        assert "not_an_image" in text and english_sentences(text) == [], text


# -- the catalogue ------------------------------------------------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_every_message_in_the_code_has_a_chinese_translation_with_its_placeholders():
    from babel.messages.extract import extract_from_dir
    from babel.messages.frontend import parse_mapping_cfg

    with open(REPO / "mjlens" / "i18n" / "babel.cfg") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    keywords = {"msg": (1,), "pmsg": ((1, "c"), 2), "tr": (2,), "ptr": ((2, "c"), 3)}
    skip = {"models", "datasets", "tests", "benchmarks", "train"}
    found: dict[tuple[str | None, str], str] = {}
    for filename, _, message, _, context in extract_from_dir(
            str(REPO), method_map, options_map, keywords=keywords,
            directory_filter=lambda d: Path(d).name not in skip and not Path(d).name.startswith((".", "_"))):
        found.setdefault((context, message), filename)
    assert len(found) > 300
    zh = catalogue("zh")
    missing = {key: where for key, where in found.items() if key not in zh}
    assert missing == {}
    # a translation keeps every placeholder, but may leave out an English name (name_en) that Chinese has no use for
    wrong = {key: zh[key] for key in found
             if not _fields(key[1]) - {f for f in _fields(key[1]) if f.endswith("_en")} <= _fields(zh[key])
             or not _fields(zh[key]) <= _fields(key[1])}
    assert wrong == {}


def test_a_message_is_english_until_said_in_chinese_and_keeps_its_parameters():
    said = msg("{code} is read {count} times, but one set holds only {COPIES_IN_SET}: check those tiles",
               code="5z", count=5, COPIES_IN_SET=4)
    assert said == "5z is read 5 times, but one set holds only 4: check those tiles"
    assert say(said, "zh") == "5z 讀到 5 張，但一副牌只有 4 張：請檢查這些牌"
    nested = msg("{flag}: {message}", flag="--seen", message=msg("the hand is empty"))
    assert say(nested, "zh") == "--seen：手牌是空的"
    assert say(join("; ", [msg("the hand is empty"), msg("no tiles found")]), "zh") == "手牌是空的；找不到牌"
    assert say(pmsg("wait shape", "pung"), "zh") == "雙碰" and say(pmsg("kind", "pung"), "zh") == "碰"
    assert localize({"code": "x", "message": nested, "n": 3}, "zh") == {"code": "x", "message": "--seen：手牌是空的",
                                                                       "n": 3}


def test_a_message_survives_a_worker_process():
    import pickle

    said = pickle.loads(pickle.dumps(msg("no tiles were found in the photo")))
    assert say(said, "zh") == "照片中找不到牌"


@pytest.mark.parametrize(("header", "lang"), [(None, "en"), ("", "en"), ("zh-TW", "zh"), ("zh-Hant-HK,en;q=0.8", "zh"),
                                             ("en-US,en;q=0.9,zh;q=0.8", "en"), ("fr, zh;q=0.5", "zh"),
                                             ("zh;q=0", "en"), ("ZH-cn", "zh")])
def test_the_language_a_browser_asks_for(header, lang):
    assert lang_of(header) == lang


def test_no_catalogued_message_hides_inside_another_ones_arguments():
    # Babel's extractor does not look inside the arguments of a call it extracts: a message written there would
    # be missing from the catalogue without the test above seeing it
    import ast

    message_at = {"msg": 0, "pmsg": 1, "tr": 1, "ptr": 2}  # where each call has its message template

    def catalogued(node: ast.AST) -> bool:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in message_at):
            return False
        at = message_at[node.func.id]
        return len(node.args) > at and isinstance(node.args[at], ast.Constant)

    hidden = []
    for folder in ("api", "scoring", "vision", "mjlens"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                # nor inside an f-string, which the extractor reads as one string
                if catalogued(node) or isinstance(node, ast.JoinedStr):
                    hidden += [f"{path.relative_to(REPO)}:{sub.lineno}" for sub in ast.walk(node)
                               if sub is not node and catalogued(sub)]
    assert hidden == []


def test_a_translation_that_does_not_fit_its_fields_falls_back_to_english(monkeypatch):
    from mjlens import i18n

    broken = {**catalogue("zh"), (None, "the hand is {size}"): "手牌 {nosuch}"}
    monkeypatch.setattr(i18n, "catalogue", lambda lang: broken)
    assert say(msg("the hand is {size}", size=3), "zh") == "the hand is 3"
