"""The review of ``mjlens label`` output: the corrections file's format, a labelling run that writes its labels
and page as corrected, ``mjlens label --review DIR`` (its checks and its server's routes), and a profile made from
the photos marked done."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.request

import pytest
from api_fakes import FakeRecognizer, sample_photo
from test_label import FakeRecipe, review_data

import mjlens.api.cli.commands.label as label_command
from mjlens.api.cli.main import main
from mjlens.api.labelling.corrections import (
    CORRECTIONS_FILE,
    Correction,
    CorrectionError,
    corrected,
    parse_corrections,
    read_corrections,
)
from mjlens.api.labelling.outputs import OutputFolder
from mjlens.api.labelling.review_server import TOKEN_HEADER, Review, ReviewServer
from mjlens.scoring.tiles import DETECTOR_CLASSES


@pytest.fixture
def labelled(monkeypatch, tmp_path):
    """An output folder of ``mjlens label`` (YOLO) with two photos read by the fake recognizer."""
    recognizer = FakeRecognizer()
    monkeypatch.setattr(label_command, "recognizer_recipe", lambda args: FakeRecipe(recognizer))
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(sample_photo())
    (folder / "b.png").write_bytes(sample_photo("PNG", size=(800, 600)))
    out = tmp_path / "out"
    assert main(["label", str(folder), "--out", str(out)]) == 0
    return folder, out


def tiles_of(out, image: str) -> list[dict]:
    return next(p["tiles"] for p in review_data(out)["photos"] if p["image"] == image)


def edited_a(out, done: bool = True) -> dict:
    """A correction of a.jpg: its first tile read as 9m, its second deleted, a missed 7z drawn."""
    tiles = tiles_of(out, "a.jpg")
    as_read = [{key: t[key] for key in ("code", "box", "confidence") if key in t} for t in tiles[2:]]
    kept = [{"code": "9m", "box": tiles[0]["box"]}] + as_read + [{"code": "7z", "box": [10, 20, 60, 90]}]
    return {"image": "images/a.jpg", "width": 960, "height": 540, "done": done, "tiles": kept}


def yolo_classes(out, key: str) -> list[str]:
    return [DETECTOR_CLASSES[int(line.split()[0])] for line in (out / "labels" / f"{key}.txt").read_text().splitlines()]


# -- the corrections format ------------------------------------------------------------------------------------------

def test_a_correction_reads_back_as_written(tmp_path):
    line = {"image": "images/a.jpg", "width": 960, "height": 540, "done": True,
            "tiles": [{"code": "1m", "box": [1, 2, 30, 40], "confidence": 0.9}, {"code": "back", "box": [5, 5, 9, 9]}]}
    [correction] = parse_corrections([line])
    assert correction.image_name == "a.jpg" and correction.line() == line
    path = tmp_path / CORRECTIONS_FILE
    path.write_text(json.dumps(line) + "\n\n")  # a blank line is no photo
    assert read_corrections(path) == {"a.jpg": correction}
    assert read_corrections(tmp_path / "absent.jsonl") == {}


def test_a_correction_is_not_done_unless_said():
    [correction] = parse_corrections([{"image": "images/a.jpg", "width": 9, "height": 9, "tiles": []}])
    assert correction.done is False


@pytest.mark.parametrize(("value", "reason"), [
    ({"corrections": []}, "list"),
    ([{"image": "images/a.jpg", "width": 9, "height": 9, "tiles": [{"code": "0m", "box": [0, 0, 1, 1]}]}],
     "tiles.0.code"),
    ([{"image": "images/a.jpg", "width": 9, "height": 9, "tiles": [{"code": "1m", "box": [5, 0, 1, 1]}]}],
     "x1 < x2"),
    ([{"image": "images/a.jpg", "width": 9, "height": 9, "tiles": [{"code": "1m", "box": [0, 0, 1]}]}], "box"),
    ([{"image": "images/../../etc/passwd", "width": 9, "height": 9, "tiles": []}], "images/NAME"),
    ([{"image": "a.jpg", "width": 9, "height": 9, "tiles": []}], "images/NAME"),
    ([{"image": "images/a.jpg", "width": 0, "height": 9, "tiles": []}], "width"),
    ([{"image": "images/a.jpg", "width": 9, "height": 9}], "tiles"),
    ([{"image": "images/a.jpg", "width": 9, "height": 9, "tiles": []}] * 2, "corrected twice"),
])
def test_bad_corrections_are_refused_saying_where(value, reason):
    with pytest.raises(CorrectionError) as refused:
        parse_corrections(value)
    assert refused.value.code == "bad_corrections" and reason in refused.value.message


@pytest.mark.parametrize("text", ["{half\n", "[1, 2]\n", '{"image": "images/a.jpg"}\n'])
def test_a_damaged_corrections_file_names_its_line(tmp_path, text):
    path = tmp_path / CORRECTIONS_FILE
    path.write_text('{"image": "images/b.png", "width": 9, "height": 9, "tiles": []}\n' + text)
    with pytest.raises(CorrectionError) as refused:
        read_corrections(path)
    assert refused.value.code == "bad_corrections" and f"{path}:2: " in refused.value.message


def test_a_correction_replaces_the_reading_and_no_correction_keeps_it():
    reading = {"image": "a.jpg", "width": 960, "height": 540, "tiles": [{"code": "1m", "box": [0, 0, 9, 9]}],
               "groups": [{"kind": "chow"}], "hand": {"concealed": ["1m"]}}
    assert corrected(reading, None) is reading
    correction = Correction(image="images/a.jpg", width=960, height=540, done=True,
                            tiles=[{"code": "2m", "box": (0, 0, 9, 9)}])
    assert corrected(reading, correction) == {"image": "a.jpg", "width": 960, "height": 540, "done": True,
                                              "corrected": True, "tiles": [{"code": "2m", "box": [0, 0, 9, 9]}]}


# -- a labelling run with corrections ---------------------------------------------------------------------------------

def test_a_run_writes_labels_and_page_as_corrected(labelled):
    folder, out = labelled
    correction = edited_a(out)
    (out / CORRECTIONS_FILE).write_text(json.dumps(correction) + "\n")
    assert main(["label", str(folder), "--out", str(out)]) == 0
    classes = yolo_classes(out, "a")
    assert classes[0] == "9m" and classes[-1] == "7z" and len(classes) == len(correction["tiles"])
    assert yolo_classes(out, "b") == [t["code"] for t in tiles_of(out, "b.png")]  # not corrected: as read
    shown = {p["image"]: p for p in review_data(out)["photos"]}
    assert shown["a.jpg"]["done"] and shown["a.jpg"]["corrected"] and not shown["b.png"]["corrected"]
    assert [t["code"] for t in shown["a.jpg"]["tiles"]] == [t["code"] for t in correction["tiles"]]


def test_a_coco_run_writes_its_annotations_as_corrected(labelled, tmp_path):
    folder, out = labelled
    coco_out = tmp_path / "coco"
    assert main(["label", str(folder), "--out", str(coco_out), "--format", "coco"]) == 0
    (coco_out / CORRECTIONS_FILE).write_text(json.dumps(edited_a(out)) + "\n")
    assert main(["label", str(folder), "--out", str(coco_out), "--format", "coco"]) == 0
    doc = json.loads((coco_out / "annotations.json").read_text())
    image_id = next(image["id"] for image in doc["images"] if image["file_name"] == "a.jpg")
    codes = [DETECTOR_CLASSES[a["category_id"] - 1] for a in doc["annotations"] if a["image_id"] == image_id]
    assert codes[0] == "9m" and codes[-1] == "7z"


@pytest.mark.parametrize(("text", "code"), [
    ("not json\n", "bad_corrections"),
    ('{"image": "images/a.jpg", "width": 961, "height": 540, "tiles": []}\n', "unknown_photo"),
])
def test_a_run_with_corrections_it_cannot_use_stops_before_labelling(labelled, capsys, text, code):
    folder, out = labelled
    (out / CORRECTIONS_FILE).write_text(text)
    before = (out / "labels" / "a.txt").read_text()
    capsys.readouterr()
    assert main(["label", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{code}: " in err and "Traceback" not in err
    assert (out / "labels" / "a.txt").read_text() == before


# -- mjlens label --review DIR: what it refuses ------------------------------------------------------------------------

def test_review_refuses_what_is_no_labelled_folder(labelled, tmp_path, capsys):
    folder, out = labelled
    cases = [(["--review", str(tmp_path / "absent")], "not_a_folder"),
             (["--review", str(folder)], "not_labelled"),
             (["--review", str(out), str(folder)], "--review serves an output folder alone"),
             (["--review", str(out), "--port", "70000"], "--port"),
             ([str(folder), "--out", str(tmp_path / "o"), "--port", "8000"], "--port needs --review"),
             ([], "--review DIR")]
    for argv, message in cases:
        assert main(["label", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)
    (out / CORRECTIONS_FILE).write_text("[]\n")
    assert main(["label", "--review", str(out)]) == 2
    assert f"bad_corrections: {out / CORRECTIONS_FILE}:1: " in capsys.readouterr().err


def test_review_on_a_taken_port_says_so(labelled, capsys):
    _, out = labelled
    with ReviewServer(Review(OutputFolder(out), 0.6, "t")) as taken:
        assert main(["label", "--review", str(out), "--port", str(taken.server_address[1])]) == 2
    assert "--port" in capsys.readouterr().err


def test_review_serves_the_folder_until_ctrl_c(labelled):
    _, out = labelled
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    child = subprocess.Popen([sys.executable, "-m", "mjlens", "label", "--review", str(out)], stderr=subprocess.PIPE,
                             text=True, env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        url = next(found[0] for line in child.stderr if (found := re.search(r"http://127\.0\.0\.1:\d+/", line)))
        with urllib.request.urlopen(url, timeout=30) as page:
            assert page.status == 200 and b'id="review-data"' in page.read()
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=60) == 0
        assert "review stopped" in child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


# -- the review server ---------------------------------------------------------------------------------------------

@pytest.fixture
def served(labelled):
    _, out = labelled
    server = ReviewServer(Review(OutputFolder(out), 0.6, "secret-token"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, out
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def request(server, method: str, path: str, body=None, headers=None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    try:
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


def save(server, corrections, token: str = "secret-token"):
    status, _, body = request(server, "POST", "/save", {"corrections": corrections}, {TOKEN_HEADER: token})
    return status, json.loads(body)


def test_the_server_serves_the_page_and_the_photos_of_the_folder_alone(served):
    server, out = served
    status, headers, page = request(server, "GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert '"token": "secret-token"' in page.decode()
    status, headers, photo = request(server, "GET", "/images/a.jpg")
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    assert photo == (out / "images" / "a.jpg").read_bytes()
    for path in ("/images/../recognitions/a.json", "/images/%2e%2e%2frecognitions%2fa.json", "/recognitions/a.json",
                 "/images/absent.jpg", "/corrections.jsonl"):
        status, _, body = request(server, "GET", path)
        assert status == 404 and json.loads(body)["error"]["code"] == "not_found", path


def test_a_photo_is_served_without_reading_the_folder_again(served, monkeypatch):
    """A page of many photos asks for each: one photo costs a file, not a read of every recognition."""
    import mjlens.api.labelling.review_server as review_server

    server, out = served
    monkeypatch.setattr(review_server, "reading_of", lambda out, photo: pytest.fail("read every recognition"))
    assert request(server, "GET", "/images/b.png")[0] == 200


def test_a_reading_rewritten_while_served_is_read_again(served):
    server, out = served
    assert request(server, "GET", "/")[0] == 200
    reading = json.loads((out / "recognitions" / "b.json").read_text())
    reading["tiles"] = reading["tiles"][:3]
    (out / "recognitions" / "b.json").write_text(json.dumps(reading))
    _, _, page = request(server, "GET", "/")
    (out / "review.html").write_bytes(page)
    assert len(tiles_of(out, "b.png")) == 3


def test_a_save_rewrites_the_labels_of_the_photos_it_changes(served):
    server, out = served
    a = edited_a(out)
    assert save(server, [a])[0] == 200
    (out / "labels" / "a.txt").write_text("kept\n")  # a mark: rewritten only if a.jpg's correction changes
    b = {"image": "images/b.png", "width": 800, "height": 600, "tiles": [{"code": "1s", "box": [1, 1, 20, 30]}]}
    assert save(server, [a, b])[0] == 200
    assert (out / "labels" / "a.txt").read_text() == "kept\n" and yolo_classes(out, "b") == ["1s"]
    assert save(server, [{**a, "done": False}])[0] == 200  # a.jpg changed, b.png's correction dropped
    assert yolo_classes(out, "a")[0] == "9m" and yolo_classes(out, "b")[0] == "1m"


def test_the_server_answers_only_under_its_own_name(served):
    server, _ = served
    status, _, body = request(server, "GET", "/", headers={"Host": "evil.example"})
    assert status == 403 and json.loads(body)["error"]["code"] == "wrong_host"


def test_a_save_writes_corrections_labels_and_page(served):
    server, out = served
    correction = edited_a(out)
    status, answer = save(server, [correction])
    assert status == 200 and answer["saved"] == 1 and answer["done"] == 1 and answer["photos"] == 2
    assert [json.loads(line) for line in (out / CORRECTIONS_FILE).read_text().splitlines()] == [correction]
    assert yolo_classes(out, "a")[0] == "9m" and len(yolo_classes(out, "a")) == len(correction["tiles"])
    assert next(p for p in review_data(out)["photos"] if p["image"] == "a.jpg")["done"]
    _, _, page = request(server, "GET", "/")
    assert '"corrected": true' in page.decode()
    # a later save holds every photo changed: one left out is as read again
    assert save(server, [])[0] == 200
    assert (out / CORRECTIONS_FILE).read_text() == "" and yolo_classes(out, "a")[0] == "1m"


@pytest.mark.parametrize(("corrections", "token", "status", "code"), [
    ([], "wrong", 403, "bad_token"),
    ([{"image": "images/a.jpg", "width": 960, "height": 540, "tiles": [{"code": "10m", "box": [0, 0, 1, 1]}]}],
     "secret-token", 400, "bad_corrections"),
    ([{"image": "images/c.jpg", "width": 960, "height": 540, "tiles": []}], "secret-token", 400, "unknown_photo"),
    ([{"image": "images/a.jpg", "width": 100, "height": 540, "tiles": []}], "secret-token", 400, "unknown_photo"),
])
def test_a_save_that_cannot_be_written_writes_nothing(served, corrections, token, status, code):
    server, out = served
    before = (out / "labels" / "a.txt").read_text()
    answered, answer = save(server, corrections, token)
    assert answered == status and answer["error"]["code"] == code and answer["error"]["message"]
    assert not (out / CORRECTIONS_FILE).exists() and (out / "labels" / "a.txt").read_text() == before


def test_a_save_the_disk_refuses_says_so(served, monkeypatch):
    import mjlens.api.labelling.review as label_review

    def full(path, text):
        raise OSError(28, "No space left on device", str(path))

    server, out = served
    monkeypatch.setattr(label_review, "write_atomic", full)
    status, answer = save(server, [edited_a(out)])
    assert status == 500 and answer["error"]["code"] == "cannot_write"
    assert "No space left on device" in answer["error"]["message"] and CORRECTIONS_FILE in answer["error"]["message"]


@pytest.mark.parametrize(("body", "headers", "status", "code"), [
    (b"{half", {}, 400, "bad_corrections"),
    (b'{"tiles": []}', {}, 400, "bad_corrections"),
    (b"", {"Content-Length": "999999999999"}, 413, "too_large"),
])
def test_a_save_that_is_no_save_is_refused(served, body, headers, status, code):
    server, _ = served
    answer = request(server, "POST", "/save", body, {TOKEN_HEADER: "secret-token", **headers})
    assert answer[0] == status and json.loads(answer[2])["error"]["code"] == code


# -- a profile of the photos marked done -------------------------------------------------------------------------------

def test_a_profile_learns_from_the_photos_marked_done(served, tmp_path, capsys):
    server, out = served
    profile = tmp_path / "set.npz"
    assert save(server, [edited_a(out, done=False)])[0] == 200
    capsys.readouterr()
    assert main(["profile", "create", "--from-corrections", str(out / CORRECTIONS_FILE), "--out", str(profile)]) == 2
    err = capsys.readouterr().err
    assert "no_examples" in err and "not marked done" in err and not profile.exists()

    correction = edited_a(out, done=True)
    assert save(server, [correction])[0] == 200
    assert main(["profile", "create", "--from-corrections", str(out / CORRECTIONS_FILE), "--out", str(profile),
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["sources"] == ["corrections"] and summary["examples"] == len(correction["tiles"])
    assert {"9m", "7z"} <= set(summary["codes"])


def test_the_page_inlines_its_script_whole():
    """The script is inlined into the page: a closing tag written in it would end it there."""
    from mjlens.api.labelling.labels import REVIEW_FILES, review_html

    script = (REVIEW_FILES / "review.js").read_text(encoding="utf-8")
    assert "</script" not in script.lower() and "<!--" not in script
    assert script in review_html([], 0.6, [])
