"""``--lang zh`` on label, eval, profile, synth, train and serve, and ``--help`` of every command: what they print
for people holds no English sentence, on their typical runs and on each kind of bad input; ``--json`` keeps its
English messages and codes."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import cv2
import numpy as np
import pytest
from api_fakes import FakeRecognizer, sample_photo
from lang_check import english_sentences
from test_label import FakeRecipe

import mjlens.api.cli.commands.eval as eval_command
import mjlens.api.cli.commands.label as label_command
from mjlens.api.cli.main import COMMANDS, main
from mjlens.scoring.tiles import DETECTOR_CLASSES

REPO = Path(__file__).resolve().parents[1]
VENDORED_ART = REPO / "datasets" / "tile-art"


def run_zh(capsys, *args: str) -> tuple[int, str]:
    """The exit status and everything printed (stdout and stderr) of ``mjlens ARGS --lang zh``; argparse's own
    refusals (exit 2 before the command runs) count as a status too."""
    try:
        status = main([*args, "--lang", "zh"])
    except SystemExit as stop:
        status = stop.code
    out = capsys.readouterr()
    return status, out.out + out.err


def said_in_chinese(capsys, args: list[str], status: int) -> str:
    got, text = run_zh(capsys, *args)
    assert got == status, text
    assert text.strip()
    assert english_sentences(text) == [], text
    return text


# -- label ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def fake(monkeypatch) -> FakeRecognizer:
    recognizer = FakeRecognizer()
    monkeypatch.setattr(label_command, "recognizer_recipe", lambda args: FakeRecipe(recognizer))
    return recognizer


@pytest.fixture
def photos(tmp_path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(sample_photo())
    (folder / "b.png").write_bytes(sample_photo("PNG", size=(800, 600)))
    (folder / "notes.jpg").write_bytes(b"not a photo at all")
    (folder / "a.jpg.d.jpg").mkdir()  # a folder named like a photo
    return folder


def test_label_says_its_progress_failures_and_summary_in_chinese(fake, photos, tmp_path, capsys):
    out = tmp_path / "out"
    text = said_in_chinese(capsys, ["label", str(photos), "--out", str(out)], 0)
    assert "not_an_image" in text and "not_a_file" in text and "張照片" in text
    text = said_in_chinese(capsys, ["label", str(photos), "--out", str(out)], 0)  # all done already
    assert "先前已完成 2 張" in text


def test_label_that_labels_nothing_says_so_in_chinese(fake, tmp_path, capsys):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "notes.jpg").write_bytes(b"not a photo at all")
    said_in_chinese(capsys, ["label", str(folder), "--out", str(tmp_path / "out")], 2)


@pytest.mark.parametrize("argv", [
    [], ["{photos}"], ["{tmp}/absent", "--out", "{tmp}/out"], ["{photos}", "--out", "{tmp}/out", "--workers", "0"],
    ["{photos}", "--out", "{tmp}/out", "--review-conf", "2"], ["{photos}", "--out", "{tmp}/out", "--address", "a"],
    ["{photos}", "--out", "{tmp}/out", "--port", "5"], ["{photos}", "--out", "{photos}"],
    ["{empty}", "--out", "{tmp}/out"],
    ["{photos}", "--out", "{tmp}/out", "--format", "xml"], ["--review", "{tmp}/absent"],
    ["--review", "{photos}"], ["--review", "{photos}", "--out", "{tmp}/out"], ["--review", "{photos}", "--port", "-1"],
], ids=lambda argv: " ".join(argv) or "nothing")
def test_label_refuses_bad_input_in_chinese(fake, photos, tmp_path, capsys, argv):
    (tmp_path / "empty").mkdir()
    argv = [a.format(photos=photos, tmp=tmp_path, empty=tmp_path / "empty") for a in argv]
    said_in_chinese(capsys, ["label", *argv], 2)


def test_label_refuses_a_threshold_out_of_range_in_chinese(photos, tmp_path, capsys):
    said_in_chinese(capsys, ["label", str(photos), "--out", str(tmp_path / "out"), "--conf", "2"], 2)


def test_label_without_ray_says_what_to_install_in_chinese(fake, photos, tmp_path, monkeypatch, capsys):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a))
    text = said_in_chinese(capsys, ["label", str(photos), "--out", str(tmp_path / "out"), "--engine", "ray"], 2)
    assert "pip install 'mjlens[cluster]'" in text


def test_label_refuses_corrections_it_cannot_use_in_chinese(fake, photos, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out)]) == 0
    capsys.readouterr()
    line = json.dumps({"image": "nosuch.jpg", "width": 10, "height": 10, "done": True, "tiles": []})
    (out / "corrections.jsonl").write_text(line + "\n" + line + "\n")  # the same photo corrected twice
    said_in_chinese(capsys, ["label", str(photos), "--out", str(out)], 2)
    said_in_chinese(capsys, ["label", "--review", str(out)], 2)
    (out / "corrections.jsonl").write_text(line + "\n")  # a photo the folder does not hold
    said_in_chinese(capsys, ["label", str(photos), "--out", str(out)], 2)


def _page_text(page: str) -> str:
    """What a reader sees of a review page before its script runs: the text outside tags, scripts and styles."""
    import re

    page = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def test_label_writes_its_review_page_in_chinese(fake, photos, tmp_path, capsys):
    from mjlens.i18n import catalogue

    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out), "--lang", "zh"]) == 0
    page = (out / "review.html").read_text(encoding="utf-8")
    text = _page_text(page)
    assert "標註檢查" in text and english_sentences(text) == [], text
    data = json.loads(page.split('id="review-data">', 1)[1].split("</script>", 1)[0])
    # the page's script says every sentence it has in the words the page carries
    script = (REPO / "api" / "labelling" / "review_page" / "review.js").read_text(encoding="utf-8")
    import re

    written = set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', script)) - {"..."}  # t("...") of its comment
    assert written and {w.replace('\\"', '"') for w in written} <= set(data["words"])
    assert all(data["words"][key] == catalogue("zh")[("review", key)] for key in data["words"])
    assert main(["label", str(photos), "--out", str(out)]) == 0  # English again, as the run that wrote it last
    assert "Labels review" in (out / "review.html").read_text(encoding="utf-8")


def test_the_review_server_answers_in_the_language_of_its_page(fake, photos, tmp_path):
    import http.client
    import threading

    from mjlens.api.labelling.outputs import OutputFolder
    from mjlens.api.labelling.review_server import Review, ReviewServer

    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out)]) == 0
    server = ReviewServer(Review(OutputFolder(out), 0.6, "secret-token", "zh"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for method, path, headers in (("GET", "/", {}), ("POST", "/save", {"X-Review-Token": "wrong"}),
                                      ("GET", "/nosuch", {})):
            connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
            connection.request(method, path, body=b"{}" if method == "POST" else None, headers=headers)
            body = connection.getresponse().read().decode("utf-8")
            connection.close()
            said = _page_text(body) if path == "/" else json.loads(body)["error"]["message"]
            assert said.strip() and english_sentences(said) == [], said
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# -- eval ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def dataset(tmp_path) -> Path:
    """A YOLO dataset of two plain photos, one with two labelled tiles."""
    for split in ("images", "labels"):
        (tmp_path / "valid" / split).mkdir(parents=True)
    for name in ("p1", "p2"):
        cv2.imwrite(str(tmp_path / "valid" / "images" / f"{name}.png"), np.full((64, 64, 3), 90, np.uint8))
    (tmp_path / "valid" / "labels" / "p1.txt").write_text(
        f"{DETECTOR_CLASSES.index('1m')} 0.2 0.5 0.2 0.4\n{DETECTOR_CLASSES.index('2m')} 0.6 0.5 0.2 0.4\n")
    names = "\n".join(f"  {i}: '{c}'" for i, c in enumerate(DETECTOR_CLASSES))
    (tmp_path / "data.yaml").write_text(f"val: valid/images\nnc: 43\nnames:\n{names}\n")
    return tmp_path / "data.yaml"


def test_eval_report_in_chinese_and_its_json_in_english(dataset, tmp_path, capsys):
    fixes = tmp_path / "fixes.txt"
    fixes.write_text("p1.jpg 2 2m 3m\n")
    exclude = tmp_path / "exclude.txt"
    exclude.write_text("p2.png\n")
    args = ["eval", str(dataset), "--ceiling", "--fixes", str(fixes), "--exclude", str(exclude)]
    text = said_in_chinese(capsys, args, 0)
    assert "牌準確率" in text and "[val]" in text
    assert main([*args, "--json", "--lang", "zh"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == f"the labels as {fixes} corrects them"


@pytest.fixture
def truth(tmp_path) -> Path:
    images = tmp_path / "images"
    images.mkdir()
    for name in ("a.jpg", "b.jpg"):
        (images / name).write_bytes(sample_photo())
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps([{"image": "a.jpg", "rows": [["1m", "2m", "3m"]]},
                                 {"image": "b.jpg", "rows": [["5m", "5m"]], "red": ["0m"], "confident": False}]))
    return truth


def test_eval_truth_report_in_chinese(truth, monkeypatch, capsys):
    monkeypatch.setattr(eval_command, "load_recognizer", lambda args: FakeRecognizer())
    text = said_in_chinese(capsys, ["eval", str(truth)], 0)
    assert "完全讀對的照片" in text


@pytest.mark.parametrize(("content", "argv"), [
    (None, []),  # no such truth file
    ('{"image": "a.jpg"}', []),  # not a list
    ('[{"rows": []}]', []),  # an entry without an image
    ('[{"image": "a.jpg", "rows": "1m"}]', []),
    ('[{"image": "a.jpg", "red": "0m"}]', []),
    ('[{"image": "a.jpg", "rows": [["9x"]]}]', []),  # not a tile code
    ('[{"image": "a.jpg", "rows": [["1m"]], "red": ["0m"]}]', []),  # a red five not among the tiles
    ('[{"image": "absent.jpg", "rows": [["1m"]]}]', []),  # a photo not there
    ('[{"image": "a.jpg", "rows": [["1m"]]}]', ["--images", "{tmp}/nowhere"]),
    ('[{"image": "a.jpg", "rows": [["1m"]]}]', ["--sweep"]),
], ids=lambda v: str(v))
def test_eval_refuses_a_bad_truth_file_in_chinese(tmp_path, monkeypatch, capsys, content, argv):
    monkeypatch.setattr(eval_command, "load_recognizer", lambda args: FakeRecognizer())
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.jpg").write_bytes(sample_photo())
    truth = tmp_path / "truth.json"
    if content is not None:
        truth.write_text(content)
    said_in_chinese(capsys, ["eval", str(truth), *[a.format(tmp=tmp_path) for a in argv]], 2)


@pytest.mark.parametrize(("yaml_text", "argv"), [
    (None, ["--ceiling", "--fixes", "{fixes}"]),  # no data.yaml
    ("val: valid/images\n", ["--ceiling", "--fixes", "{fixes}"]),  # no names
    ("names: ['1m', 'dog']\nval: valid/images\n", ["--ceiling", "--fixes", "{fixes}"]),
    ("names: ['1m']\nval: valid/images\n", ["--ceiling", "--fixes", "{fixes}", "--split", "test"]),
    ("names: ['1m']\nval: nowhere\n", ["--ceiling", "--fixes", "{fixes}"]),
    ("names: ['1m']\nval: valid/images\n", ["--ceiling"]),  # --ceiling without --fixes
    ("names: ['1m']\nval: valid/images\n", ["--ceiling", "--fixes", "{tmp}/absent.txt"]),
    ("names: ['1m']\nval: valid/images\n", ["--ceiling", "--fixes", "{bad_fixes}"]),
    ("names: ['1m']\nval: valid/images\n", ["--sweep", "--turn", "1"]),
    ("names: ['1m']\nval: valid/images\n", ["--images", "{tmp}"]),
    ("names: ['1m']\nval: valid/images\n", ["--conf", "1.5"]),
], ids=lambda v: str(v))
def test_eval_refuses_a_bad_dataset_in_chinese(tmp_path, capsys, yaml_text, argv):
    (tmp_path / "valid" / "images").mkdir(parents=True)
    (tmp_path / "fixes.txt").write_text("p1.png 1 1m 2m\n")
    (tmp_path / "bad_fixes.txt").write_text("p1.png 1 1m\n")
    data = tmp_path / "data.yaml"
    if yaml_text is not None:
        data.write_text(yaml_text)
    argv = [a.format(tmp=tmp_path, fixes=tmp_path / "fixes.txt", bad_fixes=tmp_path / "bad_fixes.txt") for a in argv]
    said_in_chinese(capsys, ["eval", str(data), *argv], 2)


# -- profile -------------------------------------------------------------------------------------------------------


def test_profile_show_in_chinese_and_its_json_in_english(tmp_path, capsys):
    from mjlens.vision.profile import Profile

    features = np.eye(3, 8, dtype=np.float32)
    path = Profile.of_examples(["1m", "2m", "5z"], features, "a" * 64, "labels",
                               reliance=np.zeros(len(DETECTOR_CLASSES), np.float32)).save(tmp_path / "set.npz")
    text = said_in_chinese(capsys, ["profile", "show", str(path)], 0)
    assert "3 種牌" in text and "標註" in text
    assert main(["profile", "show", str(path), "--json", "--lang", "zh"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"] == ["labels"]


@pytest.mark.parametrize("argv", [
    ["show", "{tmp}/absent.npz"], ["show", "{tmp}/notes.npz"], ["create", "--out", "{tmp}/p.npz"],
    ["create", "{tmp}/notes.npz", "--out", "{tmp}"], ["create"], ["show"],
    ["create", "--from-labels", "{tmp}/absent", "--out", "{tmp}/p.npz", "--model", "{tmp}/absent.onnx"],
], ids=lambda argv: " ".join(argv))
def test_profile_refuses_bad_input_in_chinese(tmp_path, capsys, argv):
    (tmp_path / "notes.npz").write_text("not a profile")
    said_in_chinese(capsys, ["profile", *[a.format(tmp=tmp_path) for a in argv]], 2)


# -- synth ---------------------------------------------------------------------------------------------------------


def test_synth_says_what_it_wrote_in_chinese(tmp_path, capsys):
    text = said_in_chinese(capsys, ["synth", "--n", "1", "--out", str(tmp_path / "neg"), "--negatives", "empty",
                                    "--size", "128"], 0)
    assert "data.yaml" in text
    if VENDORED_ART.is_dir():
        said_in_chinese(capsys, ["synth", "--n", "1", "--out", str(tmp_path / "set"), "--size", "128",
                                 "--art", str(VENDORED_ART)], 0)


@pytest.mark.parametrize("argv", [
    ["--n", "0"], ["--sheet"], ["--sheet", "--set", "x", "--habits"], ["--restyle", "2"],
    ["--standing", "0.5", "--sheet", "--set", "x"], ["--size", "10"], ["--workers", "0"],
    ["--negatives", "empty", "--piles"], ["--art", "{tmp}/absent"], ["--art", "{tmp}"],
    ["--art", "{art}", "--set", "nosuch"], ["--art", "{art}", "--set", "x", "--sets", "general"],
    ["--negatives", "nosuch"], ["--out", "{full}"],
], ids=lambda argv: " ".join(argv))
def test_synth_refuses_bad_input_in_chinese(tmp_path, capsys, argv):
    full = tmp_path / "full"
    (full / "images").mkdir(parents=True)
    (full / "images" / "0.jpg").write_bytes(b"")  # a folder that holds images already: --force is needed
    argv = [a.format(tmp=tmp_path, art=VENDORED_ART, full=full) for a in argv]
    args = ["synth", *argv] + ([] if "--n" in argv else ["--n", "1"]) + ([] if "--out" in argv else
                                                                         ["--out", str(tmp_path / "out")])
    said_in_chinese(capsys, args, 2)


# -- train ---------------------------------------------------------------------------------------------------------


def test_train_without_its_extra_says_what_to_install_in_chinese(monkeypatch, capsys):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    text = said_in_chinese(capsys, ["train", "--data", "somewhere"], 2)
    assert "pip install -e '.[train]'" in text


@pytest.mark.parametrize("argv", [
    [], ["--data", "{tmp}"], ["--resume", "{tmp}/absent.pt"], ["--data", "{data}", "--extra-train", "{tmp}/x.csv"],
    ["--data", "{data}", "--epochs", "0"],
], ids=lambda argv: " ".join(argv) or "nothing")
def test_train_refuses_bad_input_in_chinese(tmp_path, capsys, argv):
    # every refusal comes before training starts; without the train extra each says what to install instead
    (tmp_path / "data" / "train" / "images").mkdir(parents=True)
    argv = [a.format(tmp=tmp_path, data=tmp_path / "data") for a in argv]
    said_in_chinese(capsys, ["train", *argv], 2)


# -- serve ---------------------------------------------------------------------------------------------------------


def test_serve_refuses_a_bad_port_or_host_in_chinese(capsys):
    said_in_chinese(capsys, ["serve", "--port", "0"], 2)
    said_in_chinese(capsys, ["serve", "--host", "no-such-host.invalid"], 2)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        text = said_in_chinese(capsys, ["serve", "--port", str(taken.getsockname()[1])], 2)
    assert "port_in_use" in text


# -- every command -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["", *(c for c in COMMANDS if c != "train"), "profile create", "profile show"])
def test_help_in_chinese(capsys, command):
    got, text = run_zh(capsys, *command.split(), "--help")
    assert got == 0
    assert "用法" in text and english_sentences(text) == [], text


def test_train_help_says_its_own_words_in_chinese(capsys):
    # the training flags themselves are described where training is defined, in English
    got, text = run_zh(capsys, "train", "--help")
    assert got == 0
    assert "微調 43 類的 YOLO11n 牌偵測器" in text and "訓練後把 best.pt 匯出成這個 ONNX 檔" in text


def test_help_stays_english_without_lang(capsys):
    with pytest.raises(SystemExit):
        main(["label", "--help"])
    text = capsys.readouterr().out
    assert text.startswith("usage: mjlens label") and "batch-label" not in text
    assert "folder of photos (searched recursively)" in text


def test_an_internal_error_is_said_in_chinese_with_its_kind(monkeypatch, capsys):
    import mjlens.api.cli.commands.synth as synth_command

    def broken(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(synth_command, "run", broken)
    got, text = run_zh(capsys, "synth", "--n", "1", "--out", "x")
    assert got == 1 and text.strip() == "mjlens synth: 內部錯誤：RuntimeError：boom"


def test_chinese_help_is_wrapped_by_terminal_columns():
    import unicodedata

    from mjlens.api.cli.main import NO_LINE_END, NO_LINE_START, wrapped

    def columns(part: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in part)

    text = "使用牌面分類器時，是「是一張牌的機率」乘以「其代碼的機率」的最低值（預設 models/mjlens-tiles.onnx）"
    for width in range(12, 60):
        lines = wrapped(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for line in lines:
            # closing punctuation may overhang the width; a file name too long for a line stands alone
            rest = line.rstrip(NO_LINE_START)
            assert columns(rest) <= width or rest.isascii() and " " not in rest, (width, line)
            assert line[0] not in NO_LINE_START and line[-1] not in NO_LINE_END, (width, line)
