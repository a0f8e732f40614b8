"""Metric arithmetic of ``mjlens eval`` on a tiny dataset built here, with a fake detector whose answers are known."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from mjlens.vision.detection import Detection
from mjlens.vision.evaluate import (
    EvalError,
    Label,
    Sample,
    average_precision,
    collect_samples,
    evaluate_samples,
    match_tiles,
    read_dataset,
    write_confusion_png,
)

SIZE = 64
A, B = (4, 4, 20, 28), (24, 4, 40, 28)
C, D, E, F = (10, 10, 30, 50), (34, 10, 54, 50), (4, 52, 20, 62), (40, 52, 60, 62)
C_SHIFTED = (13, 10, 33, 50)  # IoU with C = 17/23 = 0.739: a hit at IoU 0.50..0.70, a miss from 0.75


# these tests read with tiny detectors of their own, alone
pytestmark = pytest.mark.usefixtures("detector_alone")


def det(code: str, box, confidence: float = 0.9) -> Detection:
    return Detection(code, tuple(float(v) for v in box), confidence)


#: photo id (its grey level) -> (labels, candidates for mAP, operating predictions)
PHOTOS = {
    40: ([("1m", A), ("2m", B)],
         [det("1m", A), det("2m", B), det("1m", A, 0.3)],  # a low duplicate: a false positive ranked last
         [det("1m", A), det("2m", B)]),
    80: ([("5p", C), ("1f", D), ("3s", E)],
         [det("5p", C_SHIFTED), det("6p", D, 0.6), det("7z", F, 0.5)],
         [det("5p", C_SHIFTED), det("6p", D, 0.6), det("7z", F, 0.5)]),  # right, misread, missed, extra
    120: ([], [], []),  # a photo with no tiles, and none predicted: exactly right
}


class FakeDetector:
    """Answers by the photo's grey level, as the tiny dataset's photos are plain fills."""

    def detect_for_eval(self, bgr: np.ndarray):
        _, candidates, operating = PHOTOS[int(bgr[0, 0, 0])]
        return list(candidates), list(operating)


@pytest.fixture
def dataset(tmp_path):
    from mjlens.scoring.tiles import DETECTOR_CLASSES

    for split in ("images", "labels"):
        (tmp_path / "valid" / split).mkdir(parents=True)
    for grey, (labels, _, _) in PHOTOS.items():
        cv2.imwrite(str(tmp_path / "valid" / "images" / f"p{grey}.png"), np.full((SIZE, SIZE, 3), grey, np.uint8))
        if labels:
            lines = [f"{DETECTOR_CLASSES.index(code)} {(x1 + x2) / 2 / SIZE} {(y1 + y2) / 2 / SIZE} "
                     f"{(x2 - x1) / SIZE} {(y2 - y1) / SIZE}" for code, (x1, y1, x2, y2) in labels]
            (tmp_path / "valid" / "labels" / f"p{grey}.txt").write_text("\n".join(lines) + "\n")
    names = "\n".join(f"  {i}: '{c}'" for i, c in enumerate(DETECTOR_CLASSES))
    (tmp_path / "data.yaml").write_text(f"train: train/images\nval: valid/images\nnc: 43\nnames:\n{names}\n")
    return tmp_path / "data.yaml"


@pytest.fixture
def report(dataset):
    return evaluate_samples(collect_samples(dataset, FakeDetector()))


def test_dataset_is_read_with_labels_in_pixels(dataset):
    codes, pairs = read_dataset(dataset, "val")
    assert len(codes) == 43 and [p.name for p, _ in pairs] == ["p120.png", "p40.png", "p80.png"]
    samples = {s.name: s for s in collect_samples(dataset, FakeDetector())}
    assert samples["p40.png"].labels[0] == Label("1m", pytest.approx(A))
    assert samples["p120.png"].labels == []


def test_tile_counts_and_rates(report):
    assert (report["images"], report["labels"], report["predictions"]) == (3, 5, 5)
    assert report["tile_accuracy"] == 0.6  # 1m, 2m, 5p of five labelled tiles
    assert report["tile_precision"] == 0.6  # 6p misread and 7z extra count against precision
    assert report["exact_photos"] == 2 and report["exact_rate"] == round(2 / 3, 4)
    assert report["bonus_labels"] == 1 and report["bonus_recall"] == 0.0
    assert report["hand_photos"] == 0 and report["hand_exact_rate"] is None


def test_map_is_coco_style(report):
    per_class = report["per_class"]
    assert per_class["1m"]["ap50"] == 1.0  # the duplicate ranks below the hit: the precision envelope keeps 1.0
    assert per_class["5p"]["ap50"] == 1.0 and per_class["5p"]["ap50_95"] == 0.5  # hits at 5 of 10 thresholds
    assert per_class["1f"]["ap50"] == 0.0 and per_class["6p"]["ap50"] is None  # 6p has no labels: not averaged
    assert report["map50"] == 0.6  # (1m 1 + 2m 1 + 5p 1 + 1f 0 + 3s 0) / 5
    assert report["map50_95"] == 0.5  # (1 + 1 + 0.5 + 0 + 0) / 5


def test_per_class_precision_recall_and_confusion(report):
    per_class = report["per_class"]
    assert per_class["5p"]["precision"] == 1.0 and per_class["5p"]["recall"] == 1.0
    assert per_class["6p"]["precision"] == 0.0 and per_class["1f"]["recall"] == 0.0
    classes = report["confusion"]["classes"]
    matrix = np.array(report["confusion"]["matrix"])
    at = {(classes[i], classes[j]): int(matrix[i, j]) for i, j in zip(*np.nonzero(matrix), strict=True)}
    assert at == {("1m", "1m"): 1, ("2m", "2m"): 1, ("5p", "5p"): 1, ("1f", "6p"): 1,
                  ("3s", "background"): 1, ("background", "7z"): 1}
    json.dumps(report)  # the report is plain JSON


def test_tiles_not_read_are_told_by_where_they_were_lost(report):
    assert report["tiles_lost"] == {"misread": 1, "no_box": 1, "dropped_read_right": 0, "dropped_read_wrong": 0}
    labels = [Label("1m", A), Label("2m", B), Label("5p", C)]
    candidates = [det("1m", A, 0.1), det("9m", A, 0.05), det("3p", C, 0.15), det("5p", C, 0.1)]
    sample = Sample("p", labels, candidates, [], (SIZE, SIZE))
    assert evaluate_samples([sample])["tiles_lost"] == {"misread": 0, "no_box": 1, "dropped_read_right": 1,
                                                        "dropped_read_wrong": 1}  # the surest candidate decides


def test_average_precision_101_points():
    tp = np.array([True, False, True])
    ap = average_precision(tp, np.array([0.9, 0.8, 0.7]), n_labels=2)
    assert ap == pytest.approx((51 * 1.0 + 50 * 2 / 3) / 101)  # recall 0.5 at precision 1, then 1.0 at 2/3
    assert average_precision(np.array([], dtype=bool), np.array([]), 3) == 0.0
    assert np.isnan(average_precision(tp, np.array([0.9, 0.8, 0.7]), 0))


def test_matching_prefers_the_right_code_over_the_closest_box():
    labels = [Label("5p", (0, 0, 20, 30))]
    match = match_tiles(labels, [det("6p", (0, 0, 20, 30)), det("5p", (2, 0, 22, 30))])
    assert match.correct == [(0, 1)] and match.extra == [0] and match.wrong == []


def test_class_subset_drops_other_codes(dataset):
    report = evaluate_samples(collect_samples(dataset, FakeDetector()), classes=["1m", "2m", "5p", "6p", "3s"])
    assert report["labels"] == 4 and report["predictions"] == 4  # 1f and 7z are outside the subset
    assert report["tile_accuracy"] == 0.75


def test_confusion_png(report, tmp_path):
    path = write_confusion_png(report, tmp_path / "confusion.png")
    image = cv2.imread(str(path))
    assert image is not None and image.shape[0] > 44 * 10


def test_bad_dataset(tmp_path):
    with pytest.raises(EvalError):
        read_dataset(tmp_path / "absent.yaml")
    (tmp_path / "data.yaml").write_text("names: ['1m', 'dog']\nval: valid/images\n")
    with pytest.raises(EvalError, match="not tile codes"):
        read_dataset(tmp_path / "data.yaml")
    (tmp_path / "data.yaml").write_text("names: ['1m']\nval: valid/images\n")
    with pytest.raises(EvalError, match="neither"):
        read_dataset(tmp_path / "data.yaml")
    with pytest.raises(EvalError, match="no 'test' split"):
        read_dataset(tmp_path / "data.yaml", "test")


def test_cli_eval_runs_the_onnx_runtime(dataset, tmp_path, capsys):
    from test_detector import anchor, tiny_model

    from mjlens.api.cli.main import main
    from mjlens.scoring.tiles import DETECTOR_CLASSES

    model = tiny_model(tmp_path / "tiny.onnx", [anchor(*A, t1m=0.9), anchor(*B, t2m=0.8)], list(DETECTOR_CLASSES))
    png = tmp_path / "confusion.png"
    assert main(["eval", str(dataset), "--model", str(model), "--json", "--confusion", str(png)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["images"] == 3 and report["labels"] == 5 and report["predictions"] == 6  # 2 boxes in each photo
    assert report["tile_accuracy"] == 0.4 and report["exact_photos"] == 1 and png.is_file()
    assert main(["eval", str(dataset), "--model", str(model)]) == 0
    assert "tile accuracy" in capsys.readouterr().out
    assert main(["eval", str(tmp_path / "absent.yaml"), "--model", str(model)]) == 2


@pytest.mark.parametrize("turn", [1, 2, 3])
def test_a_photo_and_its_labels_are_turned_together(turn):
    from mjlens.vision.evaluate import turned_photo

    photo = np.zeros((60, 100, 3), np.uint8)
    photo[10:30, 50:70] = 255  # a tile at x 50..70, y 10..30 of a 100 x 60 photo
    bgr, (label,) = turned_photo(photo, [Label("1m", (50, 10, 70, 30))], turn)
    assert bgr.shape[:2] == ((100, 60) if turn % 2 else (60, 100))
    ys, xs = np.nonzero(bgr[..., 0])
    assert label == Label("1m", (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))


def test_photos_are_read_turned_on_request(dataset, capsys):
    from mjlens.api.cli.main import main

    samples = collect_samples(dataset, FakeDetector(), turn=1)
    assert [s.labels[0] for s in samples if s.name == "p40.png"] == [Label("1m", (SIZE - 28, 4, SIZE - 4, 20))]
    with pytest.raises(SystemExit) as stop:
        main(["eval", str(dataset), "--turn", "5"])  # a count of quarter turns from 0 to 3
    assert stop.value.code == 2 and "--turn" in capsys.readouterr().err
    for mode in ("--sweep", "--ceiling"):  # they read the photos as they are: a turn asked for is refused, not ignored
        assert main(["eval", str(dataset), "--turn", "1", mode]) == 2
        assert "--turn" in capsys.readouterr().err


def test_sweep_picks_the_exact_rate_then_f1():
    from mjlens.vision.evaluate import best_setting

    rows = [{"conf": 0.2, "exact_rate": 0.1, "f1": 0.9}, {"conf": 0.3, "exact_rate": 0.2, "f1": 0.5},
            {"conf": 0.4, "exact_rate": 0.2, "f1": 0.6}, {"conf": 0.5, "exact_rate": None, "f1": 0.99},
            {"conf": 0.6, "exact_rate": 0.195, "f1": 0.7}]
    assert best_setting(rows)["conf"] == 0.6  # within a point of the best exact rate, with the best F1
    assert best_setting(rows, tolerance=0.0)["conf"] == 0.4


def test_cli_eval_sweep(dataset, tmp_path, capsys):
    from test_detector import anchor, tiny_model

    from mjlens.api.cli.main import main
    from mjlens.scoring.tiles import DETECTOR_CLASSES

    rows = [anchor(*A, t1m=0.9), anchor(*B, t2m=0.3)]
    model = tiny_model(tmp_path / "tiny.onnx", rows, list(DETECTOR_CLASSES))
    assert main(["eval", str(dataset), "--model", str(model), "--sweep", "--json"]) == 0
    sweep = json.loads(capsys.readouterr().out)
    by_conf = {(r["conf"], r["merge_iou"]): r for r in sweep}
    assert by_conf[(0.25, None)]["predictions"] == 6 and by_conf[(0.35, None)]["predictions"] == 3
    assert main(["eval", str(dataset), "--model", str(model), "--sweep"]) == 0
    assert "best: conf" in capsys.readouterr().out


@pytest.mark.parametrize("mode", [[], ["--sweep"], ["--ceiling", "--fixes", "FIXES"]])
def test_cli_eval_names_a_photo_it_cannot_read_instead_of_failing(dataset, tmp_path, capsys, mode):
    from test_detector import anchor, tiny_model

    from mjlens.api.cli.main import main
    from mjlens.scoring.tiles import DETECTOR_CLASSES

    model = tiny_model(tmp_path / "tiny.onnx", [anchor(*A, t1m=0.9)], list(DETECTOR_CLASSES))
    (dataset.parent / "valid" / "images" / "p40.png").write_bytes(b"not a photo")
    (tmp_path / "fixes.txt").write_text("")
    mode = [str(tmp_path / "fixes.txt") if flag == "FIXES" else flag for flag in mode]
    assert main(["eval", str(dataset), "--model", str(model), *mode]) == 2
    assert "p40.png" in capsys.readouterr().err


def test_cli_eval_leaves_out_the_listed_photos(dataset, tmp_path, capsys):
    from test_detector import anchor, tiny_model

    from mjlens.api.cli.main import main
    from mjlens.scoring.tiles import DETECTOR_CLASSES

    model = tiny_model(tmp_path / "tiny.onnx", [anchor(*A, t1m=0.9), anchor(*B, t2m=0.8)], list(DETECTOR_CLASSES))
    first = sorted((dataset.parent / "valid/images").iterdir())[0].name
    listing = tmp_path / "errors.txt"
    listing.write_text(f"# photos with wrong labels\n{first}  # every tile mislabelled\n\n")
    assert main(["eval", str(dataset), "--model", str(model), "--json", "--exclude", str(listing)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["images"] == 2 and report["excluded"] == [first]
    assert main(["eval", str(dataset), "--model", str(model), "--exclude", str(tmp_path / "absent.txt")]) == 2


def test_label_fixes_correct_the_named_lines_only(dataset, tmp_path):
    from mjlens.vision.evaluate import PhotoFixes, read_fixes

    fixes = tmp_path / "fixes.txt"
    fixes.write_text("# checked by eye\np80.png  3  3s  4s  # four sticks\n\np40.png 2 2m 3m\n")
    assert read_fixes(fixes) == {"p80.png": PhotoFixes({3: ("3s", "4s")}), "p40.png": PhotoFixes({2: ("2m", "3m")})}
    samples = {s.name: s for s in collect_samples(dataset, FakeDetector(), fixes=read_fixes(fixes))}
    assert [label.code for label in samples["p80.png"].labels] == ["5p", "1f", "4s"]
    assert [label.code for label in samples["p40.png"].labels] == ["1m", "3m"]


def test_a_fix_drops_a_second_label_on_a_tile_labelled_already(dataset, tmp_path):
    from mjlens.vision.evaluate import read_fixes

    fixes = tmp_path / "fixes.txt"
    fixes.write_text("p80.png 2 1f -  # the 5p beside it boxed twice\n")
    samples = {s.name: s for s in collect_samples(dataset, FakeDetector(), fixes=read_fixes(fixes))}
    assert [label.code for label in samples["p80.png"].labels] == ["5p", "3s"]


def test_a_fix_adds_the_label_of_a_tile_left_unlabelled(dataset, tmp_path):
    from mjlens.vision.evaluate import read_fixes

    fixes = tmp_path / "fixes.txt"
    fixes.write_text("p40.png + 7z 0.5 0.25 0.1 0.2  # a tile the source did not label\np40.png 2 2m 3m\n")
    samples = {s.name: s for s in collect_samples(dataset, FakeDetector(), fixes=read_fixes(fixes))}
    labels = samples["p40.png"].labels
    width, height = samples["p40.png"].size
    assert [label.code for label in labels] == ["1m", "3m", "7z"]
    assert labels[-1].box == pytest.approx((0.45 * width, 0.15 * height, 0.55 * width, 0.35 * height))


def test_a_fix_that_does_not_match_its_label_or_is_malformed_is_an_error(dataset, tmp_path):
    from mjlens.vision.evaluate import PhotoFixes, read_fixes

    with pytest.raises(EvalError, match="the fix expects 9s"):
        collect_samples(dataset, FakeDetector(), fixes={"p80.png": PhotoFixes({3: ("9s", "4s")})})
    for bad in ("p80.png 3 3s\n", "p80.png three 3s 4s\n", "p80.png 3 3s dog\n", "p80.png 3 - 3s\n"):
        (tmp_path / "bad.txt").write_text(bad)
        with pytest.raises(EvalError, match="PHOTO LINE LABELLED SHOWN"):
            read_fixes(tmp_path / "bad.txt")
    for bad in ("p80.png + 3s 0.5 0.5 0.1\n", "p80.png + 3s 0.5 0.5 0.1 two\n", "p80.png + 3s 0.5 0.5 0.1 1.5\n",
                "p80.png + dog 0.5 0.5 0.1 0.1\n"):
        (tmp_path / "bad.txt").write_text(bad)
        with pytest.raises(EvalError, match="PHOTO"):
            read_fixes(tmp_path / "bad.txt")
    with pytest.raises(EvalError):
        read_fixes(tmp_path / "absent.txt")


def test_cli_eval_applies_the_fixes_and_says_how_many(dataset, tmp_path, capsys):
    from test_detector import anchor, tiny_model

    from mjlens.api.cli.main import main
    from mjlens.scoring.tiles import DETECTOR_CLASSES

    model = tiny_model(tmp_path / "tiny.onnx", [anchor(*A, t1m=0.9), anchor(*B, t3m=0.8)], list(DETECTOR_CLASSES))
    fixes = tmp_path / "fixes.txt"
    fixes.write_text("p40.png 2 2m 3m\n")
    assert main(["eval", str(dataset), "--model", str(model), "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert main(["eval", str(dataset), "--model", str(model), "--json", "--fixes", str(fixes)]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["label_fixes"] == 1 and after["tile_accuracy"] == pytest.approx(before["tile_accuracy"] + 0.2)
    assert main(["eval", str(dataset), "--model", str(model), "--fixes", str(tmp_path / "absent.txt")]) == 2


def test_the_ceiling_reads_each_photo_as_its_fixes_say_and_scores_it_on_the_labels_as_given(dataset, tmp_path):
    from mjlens.vision.evaluate import PhotoFixes, ceiling_samples

    samples = {s.name: s for s in ceiling_samples(dataset, {"p80.png": PhotoFixes({3: ("3s", "4s")})})}
    assert [d.code for d in samples["p80.png"].operating] == ["5p", "1f", "4s"]
    assert [label.code for label in samples["p80.png"].labels] == ["5p", "1f", "3s"]
    assert all(d.confidence == 1.0 for s in samples.values() for d in s.operating)
    report = evaluate_samples(list(samples.values()))
    assert report["tile_accuracy"] == pytest.approx(4 / 5)  # the mislabelled tile, read right, counts wrong
    assert report["exact_photos"] == 2


def test_cli_eval_ceiling_needs_fixes_and_runs_no_model(dataset, tmp_path, capsys):
    from mjlens.api.cli.main import main

    fixes = tmp_path / "fixes.txt"
    fixes.write_text("p40.png 2 2m 3m\n")
    assert main(["eval", str(dataset), "--ceiling", "--json", "--fixes", str(fixes),
                 "--model", str(tmp_path / "absent.onnx")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tile_accuracy"] == pytest.approx(4 / 5) and report["label_fixes"] == 1
    assert str(fixes) in report["model"]
    assert main(["eval", str(dataset), "--ceiling"]) == 2
    assert "--ceiling needs --fixes" in capsys.readouterr().err


def _hand_photo(extra: list[Detection]):
    """A labelled hand of 14 tiles in a row, read right, plus the ``extra`` readings."""
    from mjlens.vision.evaluate import Sample

    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z"]
    boxes = [(100 + 42 * k, 400, 140 + 42 * k, 454) for k in range(len(codes))]
    labels = [Label(c, b) for c, b in zip(codes, boxes, strict=True)]
    return Sample("hand.jpg", labels, [], [det(c, b) for c, b in zip(codes, boxes, strict=True)] + extra, (1200, 900))


def test_a_hand_read_exactly_leaves_out_the_tiles_the_layout_files_apart():
    far_off = [det("9p", (900, 40, 940, 94)), det("3s", (960, 40, 1000, 94))]  # two tiles the source left unlabelled
    report = evaluate_samples([_hand_photo(far_off)])
    assert report["hand_photos"] == 1 and report["hand_exact_rate"] == 0.0
    assert report["hand_read_rate"] == 1.0 and report["hands_read"] == 1


def test_a_tile_read_into_the_hand_spoils_the_hand_read():
    beside = [det("9p", (100 + 42 * 15, 400, 140 + 42 * 15, 454))]  # a fifteenth tile set apart at the row's end
    report = evaluate_samples([_hand_photo(beside)])
    assert report["hand_exact_rate"] == 0.0 and report["hand_read_rate"] == 0.0


def test_a_hand_read_counts_the_tile_the_recognizer_reads_as_its_runner_up_to_complete_the_hand():
    sample = _hand_photo([])
    unsure = sample.operating[13]  # the second 2z, read 3z at 0.55 with 2z its runner-up
    sample.operating[13] = Detection("3z", unsure.box, 0.55, (("2z", 0.3),))
    report = evaluate_samples([sample])
    assert report["tile_accuracy"] < 1.0  # the tile reader's own figures are its readings'
    assert report["hands_read"] == 1  # the hand is the recognizer's, completed by the runner-up
