"""Photo-level truth (``vision.photo_truth``, ``mjlens eval TRUTH.json``): a reading scored as a player would, the
multiset of codes read against the one labelled, red fives and flowers apart."""

from __future__ import annotations

import json

import pytest

from mjlens.api.cli.main import main
from mjlens.vision.evaluate import EvalError
from mjlens.vision.photo_truth import PhotoTruth, evaluate_truth, read_truth, score_photo, summarize


def truth(codes, red=(), confident=True, image="a.jpg") -> PhotoTruth:
    return PhotoTruth(image=image, codes=tuple(codes), red=tuple(red), confident=confident)


def test_a_photo_is_scored_as_multisets_of_codes():
    score = score_photo(truth(["1m", "1m", "2m", "6f"]), ["1m", "2m", "2m", "6f"])
    assert (score.labelled, score.read, score.right) == (4, 4, 3)
    assert score.missed == {"1m": 1} and score.extra == {"2m": 1}
    assert not score.exact
    assert (score.bonus_labelled, score.bonus_right) == (1, 1)


def test_a_red_five_is_a_five_for_the_tiles_and_counted_apart_for_its_colour():
    labelled = truth(["5p", "5p", "5s"], red=["5p"])
    read_red = score_photo(labelled, ["0p", "5p", "5s"])
    assert read_red.exact and read_red.red_read_red == 1 and read_red.plain_read_red == 0
    read_plain = score_photo(labelled, ["5p", "5p", "5s"])
    assert read_plain.exact and read_plain.red_read_red == 0
    plain_as_red = score_photo(labelled, ["0p", "5p", "0s"])
    assert plain_as_red.exact and plain_as_red.red_read_red == 1 and plain_as_red.plain_read_red == 1


def test_photos_labelled_without_confidence_count_for_tiles_right_only():
    sure = score_photo(truth(["1m", "2m"]), ["1m", "2m"])
    unsure = score_photo(truth(["3m", "4m"], confident=False, image="b.jpg"), ["3m", "9s", "9s"])
    report = summarize([sure, unsure])
    assert report["photos"] == 2 and report["photos_confident"] == 1 and report["photos_exact"] == 1
    assert report["tiles_right"] == 0.75  # 3 of the 4 labelled
    assert report["precision"] == 1.0  # the unsure photo's extra reads are not counted against the reader
    assert report["most_missed"] == {"4m": 1} and report["most_extra"] == {}


def test_a_truth_file_is_read_and_checked(tmp_path):
    path = tmp_path / "truth.json"
    path.write_text(json.dumps([{"image": "a.jpg", "rows": [["1m", "0p"], ["5p"]], "red": ["5p"],
                                 "confident": False, "notes": "n"}]))
    (photo,) = read_truth(path)
    assert photo.codes == ("1m", "5p", "5p") and photo.red == ("5p",) and not photo.confident
    for bad in ({"rows": [["1m"]]}, {"image": "a.jpg", "rows": [["1x"]]}, {"image": "a.jpg", "rows": "1m"},
                {"image": "a.jpg", "rows": [["5s"]], "red": ["5p"]}):
        path.write_text(json.dumps([bad]))
        with pytest.raises(EvalError):
            read_truth(path)
    for text in ("{}", "not json"):
        path.write_text(text)
        with pytest.raises(EvalError):
            read_truth(path)
    with pytest.raises(EvalError, match="no such truth file"):
        read_truth(tmp_path / "absent.json")


def test_a_photo_missing_is_told_before_anything_is_read(tmp_path):
    read = []
    with pytest.raises(EvalError, match="not there"):
        evaluate_truth([truth(["1m"])], tmp_path, read.append)
    assert read == []


def test_every_photo_is_read_with_the_given_reading(tmp_path):
    (tmp_path / "a.jpg").write_bytes(b"")
    report = evaluate_truth([truth(["1m", "2m"])], tmp_path,
                            lambda path: {"tiles": [{"code": "1m"}, {"code": "2m"}, {"code": "back"}]})
    assert report["per_photo"][0]["extra"] == {"back": 1} and report["tiles_right"] == 1.0


def test_cli_refuses_what_a_truth_file_cannot_do(tmp_path, capsys):
    path = tmp_path / "truth.json"
    path.write_text(json.dumps([{"image": "a.jpg", "rows": [["1m"]]}]))
    assert main(["eval", str(path), "--sweep"]) == 2
    assert main(["eval", str(path)]) == 2  # no images/ folder beside it
    assert "no such folder" in capsys.readouterr().err


def test_cli_reads_real_photos_of_a_set_never_trained_on(shared_dir, capsys):
    sample = shared_dir / "datasets" / "real-sets" / "toby" / "truth.json"
    if not sample.is_file():
        pytest.skip("real-sets/toby is not in this copy of the shared data")
    assert main(["eval", str(sample), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["photos"] == 2 and report["labelled"] == 8
    assert 0.0 <= report["tiles_right"] <= 1.0 and len(report["per_photo"]) == 2
