"""Hard negatives (mjlens synth --negatives): seeded, no tile labelled where there is none, hands unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mjlens.api.cli.main import main
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.reading.path import KeepAt
from mjlens.vision.reading.reader import BLANK, BLANK_SURE, TwoStageDetector
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.generate import generate_one
from mjlens.vision.synth.negatives import KINDS, empty_photo, hand_photo

REPO = Path(__file__).resolve().parent.parent
VENDORED_ART = REPO / "datasets" / "tile-art"


@pytest.fixture(scope="module")
def art() -> ArtBank:
    return ArtBank(VENDORED_ART)


def test_same_seed_same_photo():
    a, b, c = empty_photo(3, 1, 192), empty_photo(3, 1, 192), empty_photo(4, 1, 192)
    assert a.jpeg == b.jpeg and a.distractors == b.distractors
    assert c.jpeg != a.jpeg
    assert a.labels == [] and a.record is None


def test_distractors_lie_in_the_picture_and_take_turns():
    for index in range(len(KINDS)):
        photo = empty_photo(5, index, 160)
        assert photo.distractors, index
        for d in photo.distractors:
            assert d["kind"] in KINDS
            x1, y1, x2, y2 = d["box"]
            assert 0 <= x1 < x2 <= photo.width and 0 <= y1 < y2 <= photo.height
    first = {empty_photo(5, i, 160).distractors[0]["kind"] for i in range(len(KINDS))}
    assert len(first) >= len(KINDS) - 3  # each photo leads with its own kind unless it fell out of frame


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_draws_something(kind):
    patch = KINDS[kind](np.random.default_rng(0), 20.0)
    assert patch.colour.shape[:2] == patch.alpha.shape
    assert patch.alpha.max() > 0.5 and patch.colour.min() >= 0  # the picture is clipped to 255 once laid


def test_a_hand_photo_keeps_the_hand_and_its_labels(art):
    for index in range(3):
        plain = generate_one(9, index, art, 256)
        shown = hand_photo(9, index, art, 256)
        assert shown.labels == plain.labels and shown.record == plain.record
        boxes = np.array([lb[1:] for lb in shown.labels])
        for d in shown.distractors:  # never over a labelled tile
            x1, y1, x2, y2 = d["box"]
            assert not np.any((boxes[:, 0] < x2) & (boxes[:, 2] > x1) & (boxes[:, 1] < y2) & (boxes[:, 3] > y1))


def test_cli_writes_empty_labels(tmp_path):
    assert main(["synth", "--negatives", "empty", "--n", "2", "--size", "160", "--out", str(tmp_path)]) == 0
    labels = sorted((tmp_path / "labels").glob("*.txt"))
    assert len(labels) == 2 and all(p.read_text() == "" for p in labels)
    assert len(list((tmp_path / "images").glob("*.jpg"))) == 2
    meta = json.loads(next((tmp_path / "distractors").glob("*.json")).read_text())
    assert meta["distractors"] and (tmp_path / "data.yaml").is_file()


def test_cli_writes_hands_with_distractors(tmp_path):
    args = ["synth", "--negatives", "with-hand", "--n", "1", "--size", "192", "--art", str(VENDORED_ART)]
    assert main([*args, "--out", str(tmp_path)]) == 0
    assert next((tmp_path / "labels").glob("*.txt")).read_text().strip()
    assert len(list((tmp_path / "hands").glob("*.json"))) == 1


def test_cli_refuses_negatives_with_other_photo_kinds(tmp_path, capsys):
    assert main(["synth", "--negatives", "empty", "--habits", "--n", "1", "--out", str(tmp_path)]) == 2
    assert "--negatives" in capsys.readouterr().err


def _reading(probability_of: dict[str, float]) -> list[str]:
    """What ``TwoStageDetector.read`` keeps of boxes, each surely a tile, read as one code at the given probability."""
    pair = object.__new__(TwoStageDetector)  # no models: the classifier's rows are given
    pair.keep_at, pair.names = KeepAt(0.2, 0.15, 0.1), DETECTOR_CLASSES
    pair.classifier = None  # the boxes leave no gap in their row and none lies sideways: it is never asked
    rows = np.zeros((len(probability_of), len(DETECTOR_CLASSES)), np.float32)
    for i, (code, p) in enumerate(probability_of.items()):
        rows[i, DETECTOR_CLASSES.index(code)] = p
        rows[i, DETECTOR_CLASSES.index("1m" if code != "1m" else "2m")] = 1 - p
    pair.probabilities = lambda bgr, located, pixel_scale=1.0: rows
    located = [Detection("tile", (i * 40.0, 0.0, i * 40.0 + 30, 40.0), 0.95) for i in range(len(rows))]
    return [t.code for t in pair.read(np.zeros((50, 400, 3), np.uint8), located)]


def test_a_blank_face_read_unsurely_is_no_tile():
    assert BLANK == "5z"
    assert _reading({"5z": BLANK_SURE - 0.05, "3p": 0.6}) == ["3p"]  # other codes keep their threshold
    assert _reading({"5z": BLANK_SURE + 0.05}) == ["5z"]
