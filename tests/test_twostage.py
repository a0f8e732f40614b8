"""Two-stage reading: tile crops, the ONNX crop classifier runtime, and the detector + classifier reader."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_detector import anchor, tiny_model

from mjlens.scoring.tiles import BONUS_CODES, DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.reading import sure_boxes as sure_boxes_module
from mjlens.vision.reading.reader import (
    SQUASHES_READ,
    SURE_TILE,
    UNSURE,
    KeepAt,
    TwoStageDetector,
    load_tile_reader,
    loaded_models,
)
from mjlens.vision.reading.second.squeezed import MIN_TILES, candidate_squashes, squeezed_by_detail_alone
from mjlens.vision.recognize import Recognizer
from mjlens.vision.runtime.classifier import CLASSIFIER_ENV, DEFAULT_CLASSIFIER, PAIR_KEY, CropClassifier
from mjlens.vision.runtime.crops import PAD_VALUE, crop_tiles
from mjlens.vision.runtime.detector import Detector, ModelError, tile_scores
from mjlens.vision.train.crops import hue_turned, jittered, write_crops

# ultralytics names a classifier's classes in its folders' sorted order, not the detector's
FOLDER_ORDER = sorted(DETECTOR_CLASSES)


def tiny_classifier(path: Path, bright: str = "3m", dark: str = "1m", runner_up: str = "4m", size: int = 16,
                    classes: list[str] = FOLDER_ORDER) -> Path:
    """An ONNX 'classifier' reading only a crop's mean brightness: bright crops are ``bright`` (``runner_up``
    second), dark ones ``dark``. Its ``classes`` are in folder order, as ultralytics exports them."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    weight = np.zeros((1, len(classes)), np.float32)
    bias = np.zeros(len(classes), np.float32)
    weight[0, classes.index(bright)] = 40.0
    weight[0, classes.index(runner_up)] = 38.0
    bias[classes.index(dark)] = 10.0
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], axes=[1, 2, 3], keepdims=1),
        helper.make_node("Flatten", ["mean"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "weight"], ["scaled"]),
        helper.make_node("Add", ["scaled", "bias"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny-cls", [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, size, size])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", len(classes)])],
        [numpy_helper.from_array(weight, "weight"), numpy_helper.from_array(bias, "bias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    entry = model.metadata_props.add()
    entry.key, entry.value = "names", str(dict(enumerate(classes)))
    onnx.save(model, str(path))
    return path


# -- crops -----------------------------------------------------------------------------------------------------------


def labelled_photo(tmp_path: Path, bgr: np.ndarray, label_lines: str, name: str = "a") -> Path:
    """Write ``bgr`` as ``set/images/NAME.png`` with its YOLO label lines beside it; returns the images folder."""
    images, labels = tmp_path / "set/images", tmp_path / "set/labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(images / f"{name}.png"), bgr)
    (labels / f"{name}.txt").write_text(label_lines)
    return images


def test_crop_keeps_the_aspect_on_a_grey_square():
    bgr = np.full((100, 200, 3), 255, np.uint8)
    (crop,) = crop_tiles(bgr, [(50, 10, 80, 70)], size=64, margin=0.0)  # a 30 x 60 portrait tile
    assert crop.shape == (64, 64, 3)
    assert (crop[:, 32] == 255).all()  # the tile fills the height
    assert (crop[:, :8] == PAD_VALUE).all() and (crop[:, -8:] == PAD_VALUE).all()  # grey beside it


def test_crop_beyond_the_photo_is_padded_and_degenerate_boxes_do_not_fail():
    bgr = np.full((50, 50, 3), 255, np.uint8)
    edge, empty, outside = crop_tiles(bgr, [(-25, 0, 25, 50), (10, 10, 10, 10), (500, 500, 520, 530)], size=32,
                                      margin=0.0)
    assert (edge[:, :16] == PAD_VALUE).all() and (edge[:, 17:] == 255).all()
    assert empty.shape == outside.shape == (32, 32, 3) and (outside == PAD_VALUE).all()


def test_jitter_moves_each_edge_a_little_and_is_seeded():
    box = (100.0, 100.0, 130.0, 140.0)
    a = jittered(box, np.random.default_rng(3))
    assert a == jittered(box, np.random.default_rng(3)) and a != box
    assert all(abs(p - q) <= 0.08 * 40 for p, q in zip(a, box, strict=True))


def test_write_crops_files_each_tile_under_its_code(tmp_path, photo):
    images = labelled_photo(tmp_path, photo, "2 0.1953 0.4688 0.2344 0.3125\n27 0.7422 0.4688 0.2344 0.3125\n")
    counts = write_crops([images / "a.png"], list(DETECTOR_CLASSES), tmp_path / "crops", copies=2, jitter=0.05)
    assert counts == {"3m": 2, "1z": 2}
    assert len(list((tmp_path / "crops/3m").glob("*.png"))) == 2
    assert cv2.imread(str(next((tmp_path / "crops/1z").glob("*.png")))).shape == (64, 64, 3)


def test_rare_classes_are_cut_more_often_and_squeezed_photos_squashed_back(tmp_path, photo):
    images = labelled_photo(tmp_path, photo, "2 0.1953 0.4688 0.2344 0.3125\n34 0.7422 0.4688 0.2344 0.3125\n")
    counts = write_crops([images / "a.png"], list(DETECTOR_CLASSES), tmp_path / "crops", copies=2,
                         class_copies={"1f": 5})
    assert counts == {"3m": 2, "1f": 5}

    tall = cv2.resize(photo, (128, 1280))  # the same photo squeezed: tiles ten times taller than wide
    labelled_photo(tmp_path, tall, "2 0.1953 0.4688 0.2344 0.3125\n", name="b")
    write_crops([images / "b.png"], list(DETECTOR_CLASSES), tmp_path / "tall")
    (crop,) = [cv2.imread(str(p)) for p in (tmp_path / "tall/3m").glob("*.png")]
    assert (crop[32, 16:48] > 200).all()  # the tile fills the crop's width again, not a sliver


def test_a_turned_tile_is_boxed_whole_at_the_angle_it_lies(photo):
    from mjlens.vision.train.crops import turned

    box = (10.0, 40.0, 40.0, 80.0)  # a 30 x 40 tile
    centre = (25.0, 60.0)
    angles = []
    for seed in range(40):
        image, (x1, y1, x2, y2) = turned(photo, box, np.random.default_rng(seed))
        assert image.shape == photo.shape
        assert ((x1 + x2) / 2, (y1 + y2) / 2) == pytest.approx(centre)  # turned about its centre
        assert x2 - x1 >= 30 - 1e-6 or y2 - y1 >= 30 - 1e-6  # the box bounds the whole turned tile
        angles.append(np.degrees(np.arctan2(y2 - y1, x2 - x1)))
    sideways_or_diagonal = [a for a in angles if abs(a - np.degrees(np.arctan2(40, 30))) > 5]
    assert 0 < len(sideways_or_diagonal) < 40


def test_only_the_codes_asked_for_are_cut_and_turned_copies_follow_the_first(tmp_path, photo):
    images = labelled_photo(tmp_path, photo, "2 0.1953 0.4688 0.2344 0.3125\n34 0.7422 0.4688 0.2344 0.3125\n")
    counts = write_crops([images / "a.png"], list(DETECTOR_CLASSES), tmp_path / "crops", copies=6, jitter=0.0,
                         only={"1f"}, turn=1.0)
    assert counts == {"1f": 6}
    first, *others = [cv2.imread(str(tmp_path / f"crops/1f/a-1-{copy}.png")) for copy in range(6)]
    assert first.shape == (64, 64, 3)
    assert any(not np.array_equal(first, other) for other in others)


def test_a_hue_turn_recolours_the_ink_and_keeps_the_ivory_face():
    crop = np.full((8, 8, 3), (225, 235, 240), np.uint8)  # ivory
    crop[2:6, 2:6] = (30, 30, 200)  # a red numeral
    turned = hue_turned(crop, np.random.default_rng(0))
    face = turned[0, 0].astype(int)
    assert face.min() >= 215 and face.max() - face.min() <= 20  # still a pale, nearly grey face
    assert turned[3, 3].argmax() != 2  # red is red no more
    assert turned[3, 3].max() >= 190  # the ink keeps its strength


def test_recolour_turns_the_hues_of_about_that_share_of_the_crops(tmp_path, photo):
    coloured = photo.copy()
    coloured[50:70, 15:35] = (30, 30, 200)  # a red numeral on the white tile
    images = labelled_photo(tmp_path, coloured, "2 0.1953 0.4688 0.2344 0.3125\n")
    write_crops([images / "a.png"], list(DETECTOR_CLASSES), tmp_path / "plain", copies=20)
    write_crops([images / "a.png"], list(DETECTOR_CLASSES), tmp_path / "turned", copies=20, recolour=0.5)
    plain, turned = (sorted((tmp_path / name / "3m").glob("*.png")) for name in ("plain", "turned"))
    differ = sum(not np.array_equal(cv2.imread(str(a)), cv2.imread(str(b))) for a, b in zip(plain, turned, strict=True))
    assert 4 <= differ <= 16


def test_the_crop_builder_takes_real_splits_and_a_slice_of_extra_photos(tmp_path, photo, capsys):
    from mjlens.vision.train.crops import main

    def photo_set(folder: Path, names: list[str], line: str) -> None:
        (folder / "images").mkdir(parents=True)
        (folder / "labels").mkdir(parents=True)
        for name in names:
            cv2.imwrite(str(folder / "images" / f"{name}.png"), photo)
            (folder / "labels" / f"{name}.txt").write_text(line)

    photo_set(tmp_path / "real/train", ["t1", "t2"], "2 0.1953 0.4688 0.2344 0.3125\n34 0.7422 0.4688 0.2344 0.3125\n")
    photo_set(tmp_path / "real/valid", ["v1"], "2 0.1953 0.4688 0.2344 0.3125\n")
    photo_set(tmp_path / "synth", ["s0", "s1", "s2"], "27 0.1953 0.4688 0.2344 0.3125\n")
    names = "[" + ", ".join(f"'{c}'" for c in DETECTOR_CLASSES) + "]"
    (tmp_path / "real/data.yaml").write_text(f"path: {tmp_path / 'real'}\ntrain: train/images\nval: valid/images\n"
                                             f"nc: {len(DETECTOR_CLASSES)}\nnames: {names}\n")
    main([str(tmp_path / "real/data.yaml"), "--out", str(tmp_path / "crops"), "--copies", "2", "--balance", "4",
          "--extra-train", str(tmp_path / "synth/images"), "--extra-skip", "1", "--extra-limit", "1"])
    train = {p.name: len(list(p.glob("*.png"))) for p in (tmp_path / "crops/train").iterdir()}
    # 3m and 1f have 2 real tiles each, under --balance 4: ceil(2 copies x 4 / 2) = 4 crops per tile, 2 photos
    assert train == {"3m": 2 * 4, "1f": 2 * 4, "1z": 1}
    assert [p.name for p in (tmp_path / "crops/train/1z").glob("*.png")][0].startswith("synth-s1-")
    assert len(list((tmp_path / "crops/val/3m").glob("*.png"))) == 1


# -- classifier runtime ----------------------------------------------------------------------------------------------


def test_classifier_columns_follow_the_detector_order(tmp_path, photo):
    classifier = CropClassifier(tiny_classifier(tmp_path / "cls.onnx"), threads=1)
    probs = classifier.probabilities(photo, [(10, 40, 40, 80), (80, 40, 110, 80)])
    assert probs.shape == (2, len(DETECTOR_CLASSES))
    assert DETECTOR_CLASSES[probs[0].argmax()] == "3m" and DETECTOR_CLASSES[probs[1].argmax()] == "1m"
    assert probs.sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-4)
    assert classifier.probabilities(photo, []).shape == (0, len(DETECTOR_CLASSES))


def test_crops_are_read_turned_on_request_in_one_batch(tmp_path, photo, monkeypatch):
    classifier = CropClassifier(tiny_classifier(tmp_path / "cls.onnx"), threads=1)
    boxes = [(10, 40, 40, 80), (80, 40, 110, 80)]
    seen, blob = [], cv2.dnn.blobFromImages
    monkeypatch.setattr(cv2.dnn, "blobFromImages", lambda crops, **kw: seen.append(list(crops)) or blob(crops, **kw))
    upright = classifier.probabilities(photo, boxes)
    turned = classifier.turned_probabilities(photo, boxes, (1, 2, 3))
    assert turned.shape == (3, 2, len(DETECTOR_CLASSES)) and len(seen) == 2 and len(seen[1]) == 6
    for reading in turned:
        assert reading == pytest.approx(upright, abs=1e-5)  # a brightness reader: the same whichever way it lies
    for k, turn in enumerate((-1, 2, 1)):  # clockwise quarter turns: numpy's rot90 turns the other way
        assert all((t == np.rot90(u, turn)).all() for t, u in zip(seen[1][2 * k:2 * k + 2], seen[0], strict=True))
    assert classifier.turned_probabilities(photo, [], (2,)).shape == (1, 0, len(DETECTOR_CLASSES))


def test_many_crops_run_in_batches(tmp_path, photo):
    classifier = CropClassifier(tiny_classifier(tmp_path / "cls.onnx"), threads=1)
    probs = classifier.probabilities(photo, [(10, 40, 40, 80)] * 70)
    assert (probs.argmax(axis=1) == DETECTOR_CLASSES.index("3m")).all()


def test_a_detector_or_a_missing_file_is_not_a_classifier(tmp_path):
    detector = tiny_model(tmp_path / "det.onnx", [anchor(0, 0, 5, 5, t1m=0.9)], list(DETECTOR_CLASSES))
    with pytest.raises(ModelError) as err:
        CropClassifier(detector)
    assert err.value.code == "model_invalid"
    with pytest.raises(ModelError) as err:
        CropClassifier(tmp_path / "nothing.onnx")
    assert err.value.code == "model_missing"


# -- the two stages together -----------------------------------------------------------------------------------------

# detector input 64x64, the 128x128 photo at scale 0.5: the white tile at 5..20 x 20..40, the black one at 40..55
ROWS = [anchor(5, 20, 20, 40, t9p=0.9), anchor(40, 20, 55, 40, t9p=0.8)]


def tiny_pair(folder: Path, bright: str = "3m") -> TwoStageDetector:
    """The tiny detector of ``ROWS`` with a tiny classifier reading the white tile as ``bright``, the black as 1m."""
    detector = Detector(tiny_model(folder / "det.onnx", ROWS, list(DETECTOR_CLASSES)), threads=1)
    return TwoStageDetector(detector, CropClassifier(tiny_classifier(folder / "cls.onnx", bright=bright), threads=1))


@pytest.fixture
def reader(tmp_path):
    return tiny_pair(tmp_path)


def test_boxes_from_the_detector_codes_from_the_classifier(reader, photo):
    tiles = sorted(reader.detect(photo), key=lambda d: d.box[0])
    assert [t.code for t in tiles] == ["3m", "1m"]
    assert tiles[0].box == pytest.approx((10, 40, 40, 80))
    assert tiles[0].alternatives[0][0] == "4m"  # the classifier's runner-up
    assert 0.5 < tiles[0].confidence <= 1.0


def test_a_tile_stays_by_its_chance_of_a_tile_times_the_classifiers_probability(reader, photo, no_sure_boxes):
    white, black = (10, 40, 40, 80), (80, 40, 110, 80)
    probability = reader.classifier.probabilities(photo, [white, black]).max(axis=1)
    kept_at = sorted(zip((0.9 * probability[0], 0.8 * probability[1]), ("3m", "1m"), strict=True))
    for level, code in kept_at:
        assert code in [t.code for t in reader.detect(photo, conf=level - 1e-3)]
        assert code not in [t.code for t in reader.detect(photo, conf=level + 1e-3)]


@pytest.fixture
def no_sure_boxes(monkeypatch):
    """The tiny detector is sure of both its tiles (0.9, 0.8): tests of the thresholds turn off the rule that keeps
    such boxes whatever their reading (``vision.reading.sure_boxes``)."""
    monkeypatch.setattr(sure_boxes_module, "SURE_BOX", 1.01)


def test_a_box_the_detector_is_sure_of_stays_however_unsurely_it_is_read(reader, photo, monkeypatch):
    probability = reader.classifier.probabilities(photo, [(10, 40, 40, 80), (80, 40, 110, 80)]).max(axis=1)
    level = max(0.9 * probability[0], 0.8 * probability[1]) + 1e-3  # over both products, under both chances
    assert level < 0.8
    assert sorted(t.code for t in reader.detect(photo, conf=level)) == ["1m", "3m"]
    monkeypatch.setattr(sure_boxes_module, "SURE_BOX", 1.01)
    assert reader.detect(photo, conf=level) == []


@pytest.fixture
def flower_reader(tmp_path):
    """The pair of ``reader`` with a classifier that reads the white tile as the flower 5f."""
    return tiny_pair(tmp_path, bright="5f")


def one_photo_dataset(root: Path, photo: np.ndarray, codes: tuple[str, str] = ("3m", "1m")) -> Path:
    """A YOLO dataset of ``photo`` alone, its white tile labelled ``codes[0]``, its black one ``codes[1]``."""
    (root / "valid/images").mkdir(parents=True)
    (root / "valid/labels").mkdir(parents=True)
    cv2.imwrite(str(root / "valid/images/p.png"), photo)
    white, black = (DETECTOR_CLASSES.index(code) for code in codes)
    (root / "valid/labels/p.txt").write_text(f"{white} 0.1953 0.4688 0.2344 0.3125\n"
                                             f"{black} 0.7422 0.4688 0.2344 0.3125\n")
    names = "\n".join(f"  {i}: '{c}'" for i, c in enumerate(DETECTOR_CLASSES))
    (root / "data.yaml").write_text(f"path: .\nval: valid/images\nnames:\n{names}\n")
    return root / "data.yaml"


def test_flowers_and_seasons_are_kept_at_a_threshold_of_their_own(flower_reader, photo, no_sure_boxes):
    reader = flower_reader
    white, black = (10, 40, 40, 80), (80, 40, 110, 80)
    probability = reader.classifier.probabilities(photo, [white, black]).max(axis=1)
    flower_level, tile_level = 0.9 * probability[0], 0.8 * probability[1]
    above_both = max(flower_level, tile_level) + 1e-3
    codes = [t.code for t in reader.detect(photo, conf=above_both, bonus_conf=flower_level - 1e-3)]
    assert codes == ["5f"]  # the flower stays under its own threshold, the 1m at the same one goes
    assert reader.detect(photo, conf=above_both, bonus_conf=flower_level + 1e-3) == []


def test_a_face_down_tile_is_kept_at_a_threshold_of_its_own(tmp_path, photo, no_sure_boxes):
    reader = tiny_pair(tmp_path, bright="back")
    level = 0.9 * reader.classifier.probabilities(photo, [(10, 40, 40, 80)]).max()
    assert "back" in [t.code for t in reader.detect(photo, conf=0.99, back_conf=level - 1e-3)]
    assert "back" not in [t.code for t in reader.detect(photo, conf=0.99, back_conf=level + 1e-3)]


def test_flowers_and_backs_are_never_held_to_more_than_the_other_tiles():
    assert KeepAt(0.1, 0.3, 0.4) == KeepAt(0.1, 0.1, 0.1)
    keep_at = KeepAt(0.2, 0.15, 0.1)
    assert [keep_at.of(code) for code in ("7f", "7z", "back")] == [0.15, 0.2, 0.1]
    assert keep_at.lowest == 0.1


def test_a_tile_the_detector_cannot_name_is_still_a_tile(tmp_path, photo):
    scores = np.array([[0.05, 0.04, 0.03], [0.5, 0.0, 0.0]])
    assert tile_scores(scores) == pytest.approx([1 - 0.95 * 0.96 * 0.97, 0.5])
    # the white tile's best class score is 0.06, under the floor; split over three codes it is a tile
    unsure = [anchor(5, 20, 20, 40, t9p=0.06, t1m=0.06, t5z=0.06), anchor(40, 20, 55, 40, t9p=0.01)]
    detector = Detector(tiny_model(tmp_path / "det.onnx", unsure, list(DETECTOR_CLASSES)), threads=1)
    pair = TwoStageDetector(detector, CropClassifier(tiny_classifier(tmp_path / "cls.onnx"), threads=1),
                            conf=0.1, floor=0.1)
    assert [t.code for t in pair.detect(photo)] == ["3m"]


class TurnedReader:
    """A classifier that reads every crop as ``upright`` with probability ``sure``, and turned by k quarter turns as
    ``turned[k]`` gives (code, probability), else as upright; it counts the crops it is given turned."""

    def __init__(self, upright: str, sure: float, turned: dict[int, tuple[str, float]]):
        self.upright, self.turned = (upright, sure), turned
        self.turned_crops = 0

    @staticmethod
    def rows(count: int, code: str, sure: float) -> np.ndarray:
        rows = np.full((count, len(DETECTOR_CLASSES)), (1 - sure) / (len(DETECTOR_CLASSES) - 1), np.float32)
        rows[:, DETECTOR_CLASSES.index(code)] = sure
        return rows

    def probabilities(self, bgr, boxes) -> np.ndarray:
        return self.rows(len(boxes), *self.upright)

    def turned_probabilities(self, bgr, boxes, turns) -> np.ndarray:
        self.turned_crops += len(boxes) * len(turns)
        return np.stack([self.rows(len(boxes), *self.turned.get(turn, self.upright)) for turn in turns])


@pytest.mark.parametrize("upright, turned, read_as", [
    ((0.5, "6s"), {2: ("7s", 0.9)}, "7s"),  # unsure upright, sure upside down: the tile lies upside down
    ((0.5, "6s"), {1: ("5m", 0.95), 3: ("5m", 0.9)}, "5m"),  # sure a quarter turn either way: on its side
    ((0.5, "6s"), {1: ("4s", 0.8), 3: ("6s", 0.98)}, "6s"),  # the quarter turns disagree: their mean is unsure
    ((0.5, "6s"), {1: ("5m", 0.8), 3: ("5m", 0.8), 2: ("7s", 0.9)}, "7s"),  # the surest turned reading
    ((0.5, "6s"), {2: ("7s", 0.6), 1: ("5m", 0.65)}, "6s"),  # none surer by TURN_GAIN: the upright reading stays
    ((0.8, "6s"), {2: ("7s", 0.99)}, "6s"),  # sure upright: not read turned
])
def test_a_tile_read_unsurely_is_read_again_turned(tmp_path, photo, upright, turned, read_as):
    detector = Detector(tiny_model(tmp_path / "det.onnx", ROWS, list(DETECTOR_CLASSES)), threads=1)
    classifier = TurnedReader(upright[1], upright[0], turned)
    pair = TwoStageDetector(detector, classifier, zoom_input=None)
    assert {t.code for t in pair.detect(photo)} == {read_as}
    assert (classifier.turned_crops > 0) == (upright[0] < UNSURE)


def test_a_box_that_may_not_be_a_tile_is_not_read_turned(tmp_path, photo):
    unsure = [anchor(5, 20, 20, 40, t9p=SURE_TILE - 0.1), anchor(40, 20, 55, 40, t9p=SURE_TILE - 0.1)]
    detector = Detector(tiny_model(tmp_path / "det.onnx", unsure, list(DETECTOR_CLASSES)), threads=1)
    classifier = TurnedReader("6s", 0.6, {2: ("7s", 0.95)})  # 0.35 x 0.6 keeps the tile; unsure, not read turned
    pair = TwoStageDetector(detector, classifier, zoom_input=None)
    assert {t.code for t in pair.detect(photo)} == {"6s"} and classifier.turned_crops == 0


def test_a_squeezed_photo_is_read_only_at_the_squashes_whose_boxes_most_surely_hold_tiles(reader, monkeypatch):
    photo = np.zeros((640, 64, 3), np.uint8)  # each squash of it has a size of its own
    sizes = [squash.apply(photo).shape[:2] for squash in candidate_squashes()]
    assert len(set(sizes)) == len(sizes)
    chance = {size: 0.3 + 0.04 * k for k, size in enumerate(sizes)}  # the later squashes: surer boxes
    monkeypatch.setattr(reader.detector, "raw", lambda image, *args, **kwargs: (image.shape[:2],))
    monkeypatch.setattr(reader, "locate", lambda size: [Detection("1m", (10.0 * i, 0.0, 10.0 * i + 8, 10.0),
                                                                  chance[size]) for i in range(MIN_TILES)])
    read = []

    def read_boxes(image, boxes, pixel_scale=1.0, *, keep_at=None):
        read.append(image.shape[:2])
        return list(boxes)

    monkeypatch.setattr(reader, "read", read_boxes)
    squash, reading, _ = reader.best_squash(photo, to_beat=0.0)
    assert read == sizes[::-1][:SQUASHES_READ]
    assert squash == list(candidate_squashes())[-1] and len(reading.tiles) == MIN_TILES


def test_a_squash_that_leaves_the_photo_squeezed_is_not_located(reader, monkeypatch):
    noise = np.random.default_rng(3).integers(0, 256, (64, 640, 3), dtype=np.uint8)
    strip = cv2.resize(cv2.GaussianBlur(noise, (5, 5), 1.0), (640, 640))  # stretched 10 times along y
    assert squeezed_by_detail_alone(strip)
    located = []

    def raw(image, *args, **kwargs):
        located.append(image.shape[:2])
        return (image.shape[:2],)

    monkeypatch.setattr(reader.detector, "raw", raw)
    monkeypatch.setattr(reader, "locate", lambda size: [])
    reader.best_squash(strip, to_beat=0.0)
    kept = [s.apply(strip).shape[:2] for s in candidate_squashes(strip) if not squeezed_by_detail_alone(s.apply(strip))]
    assert located == kept and 0 < len(located) < len(list(candidate_squashes(strip)))  # by 2 or 3: still squeezed


def test_eval_candidates_offer_the_top_readings_of_each_box(reader, photo):
    candidates, operating = reader.detect_for_eval(photo)
    assert sorted(d.code for d in operating) == ["1m", "3m"]
    assert len(candidates) == 6 and {d.code for d in candidates} >= {"3m", "4m", "1m"}
    best = max(candidates, key=lambda d: d.confidence)
    assert best.confidence <= 0.9 + 1e-6  # box confidence x class probability


def test_recognizer_reads_through_both_stages(reader, photo):
    ok, data = cv2.imencode(".png", photo)
    result = Recognizer(detector=reader).recognize(data.tobytes(), "two.png")
    assert [t["code"] for t in result["tiles"]] == ["3m", "1m"]


def test_loader_reads_with_a_classifier_unless_told_not_to(tmp_path, monkeypatch):
    detector = tiny_model(tmp_path / "det.onnx", ROWS, list(DETECTOR_CLASSES))
    classifier = tiny_classifier(tmp_path / "cls.onnx")
    monkeypatch.delenv(CLASSIFIER_ENV, raising=False)
    shipped = load_tile_reader(detector, threads=1)  # the shipped classifier fits any detector of the 43 classes
    assert isinstance(shipped, TwoStageDetector) and shipped.classifier.path == DEFAULT_CLASSIFIER
    assert loaded_models(shipped) == {"detector": "det.onnx", "classifier": DEFAULT_CLASSIFIER.name}
    assert isinstance(load_tile_reader(detector, classifier=classifier, threads=1), TwoStageDetector)
    alone = load_tile_reader(detector, classifier="none", threads=1)
    assert isinstance(alone, Detector) and loaded_models(alone) == {"detector": "det.onnx", "classifier": None}
    monkeypatch.setenv(CLASSIFIER_ENV, str(classifier))
    assert load_tile_reader(detector, threads=1).classifier.path == classifier
    monkeypatch.setenv(CLASSIFIER_ENV, "none")
    assert isinstance(load_tile_reader(detector, threads=1), Detector)


def test_a_detector_the_shipped_classifier_does_not_fit_is_an_error_not_a_downgrade(tmp_path, monkeypatch):
    peer = tiny_model(tmp_path / "peer.onnx", [np.zeros(4 + 34, np.float32)], list(DETECTOR_CLASSES[:34]))
    monkeypatch.delenv(CLASSIFIER_ENV, raising=False)
    with pytest.raises(ModelError) as err:
        load_tile_reader(peer, threads=1)
    assert err.value.code == "model_mismatch" and CLASSIFIER_ENV in err.value.message
    assert isinstance(load_tile_reader(peer, classifier="none", threads=1), Detector)


def test_a_pair_named_in_both_models_must_agree(tmp_path, monkeypatch):
    import onnx

    def tagged(path: Path, pair: str) -> Path:
        model = onnx.load(str(path))
        entry = model.metadata_props.add()
        entry.key, entry.value = PAIR_KEY, pair
        onnx.save(model, str(path))
        return path

    detector = tagged(tiny_model(tmp_path / "det.onnx", ROWS, list(DETECTOR_CLASSES)), "2026-12")
    monkeypatch.delenv(CLASSIFIER_ENV, raising=False)
    assert isinstance(load_tile_reader(detector, classifier=tagged(tiny_classifier(tmp_path / "a.onnx"), "2026-12"),
                                       threads=1), TwoStageDetector)
    with pytest.raises(ModelError, match="pair"):
        load_tile_reader(detector, classifier=tagged(tiny_classifier(tmp_path / "b.onnx"), "2025-01"), threads=1)


def test_cli_names_a_missing_classifier_with_exit_2(tmp_path, capsys):
    from mjlens.api.cli.main import main

    detector = tiny_model(tmp_path / "det.onnx", ROWS, list(DETECTOR_CLASSES))
    photo_path = tmp_path / "p.png"
    cv2.imwrite(str(photo_path), np.zeros((32, 32, 3), np.uint8))
    code = main(["recognize", str(photo_path), "--model", str(detector), "--classifier", str(tmp_path / "x.onnx")])
    assert code == 2 and "crop classifier" in capsys.readouterr().err


def test_threshold_sweep_reads_the_boxes_through_the_classifier(reader, photo, tmp_path):
    from mjlens.vision.evaluate import sweep

    rows = sweep(one_photo_dataset(tmp_path, photo), reader, confs=(0.5, 0.95))
    assert [(r["conf"], r["predictions"], r["tile_accuracy"]) for r in rows] == [(0.5, 2, 1.0), (0.95, 0, 0.0)]
    assert [(r["bonus_conf"], r["back_conf"]) for r in rows] == [(0.5, 0.5), (0.95, 0.95)]  # one for every tile


def test_the_flower_sweep_holds_the_other_tiles_at_one_threshold(flower_reader, photo, tmp_path, no_sure_boxes):
    from mjlens.vision.evaluate import sweep_thresholds

    data = one_photo_dataset(tmp_path / "data", photo, ("5f", "1m"))
    settings = [{"conf": 0.95, "bonus_conf": bonus, "back_conf": 0.95} for bonus in (0.5, 0.95)]
    rows = sweep_thresholds(data, flower_reader, settings)
    assert [(r["conf"], r["bonus_conf"], r["predictions"], r["bonus_recall"]) for r in rows] == [
        (0.95, 0.5, 1, 1.0), (0.95, 0.95, 0, 0.0)]


def test_cli_sweep_sweeps_only_the_thresholds_not_given(flower_reader, photo, tmp_path, capsys):
    from mjlens.api.cli.main import main

    data = one_photo_dataset(tmp_path / "data", photo, ("5f", "1m"))
    model = ["--model", str(flower_reader.path), "--classifier", str(tmp_path / "cls.onnx")]
    assert main(["eval", str(data), *model, "--sweep", "--json", "--conf", "0.5", "--bonus-conf", "0.3"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["conf"], r["bonus_conf"]) for r in rows} == {(0.5, 0.3)}  # the backs' table alone
    assert sorted(r["back_conf"] for r in rows) == [0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]
    assert main(["eval", str(data), *model, "--sweep", "--conf", "0.5", "--bonus-conf", "0.3",
                 "--back-conf", "0.3"]) == 2
    assert "nothing to sweep" in capsys.readouterr().err


def test_the_pair_runs_at_its_own_operating_point(tmp_path):
    from mjlens.vision.reading import reader as twostage

    dynamic = tiny_model(tmp_path / "dyn.onnx", [anchor(0, 0, 5, 5)], list(DETECTOR_CLASSES), size=None)
    classifier = tiny_classifier(tmp_path / "cls.onnx")
    alone = load_tile_reader(dynamic, classifier="none", threads=1)
    pair = load_tile_reader(dynamic, classifier=classifier, threads=1)
    assert (alone.conf, alone.input_size) == (0.2, 640)  # the detector's own defaults
    assert (pair.conf, pair.input_size) == (twostage.CONF, twostage.INPUT_SIZE)
    assert pair.decode_side == twostage.DECODE_SIDE  # crops are cut from a photo decoded larger than the input
    assert (pair.bonus_conf, pair.back_conf) == (twostage.BONUS_CONF, twostage.BACK_CONF)
    chosen = load_tile_reader(dynamic, classifier=classifier, threads=1, conf=0.3, input_size=320)
    assert (chosen.conf, chosen.bonus_conf, chosen.input_size) == (0.3, twostage.BONUS_CONF, 320)
    low = load_tile_reader(dynamic, classifier=classifier, threads=1, conf=0.05)
    assert (low.bonus_conf, low.back_conf) == (0.05, 0.05)  # flowers and backs at the lower of the two


def test_averaged_classifiers_answer_the_mean_of_their_members(tmp_path, photo):
    from mjlens.vision.train.average import average

    first = tiny_classifier(tmp_path / "a.onnx", bright="3m", runner_up="4m")
    second = tiny_classifier(tmp_path / "b.onnx", bright="4m", runner_up="3m")
    both = CropClassifier(average([first, second], tmp_path / "ab.onnx"), threads=1)
    boxes = [(10, 40, 40, 80), (80, 40, 110, 80)]
    members = [CropClassifier(path).probabilities(photo, boxes) for path in (first, second)]
    expected = (members[0] + members[1]) / 2
    assert both.probabilities(photo, boxes) == pytest.approx(expected, abs=1e-6)


def test_a_cascade_averages_only_the_crops_the_first_classifier_is_unsure_of(tmp_path, photo):
    from mjlens.vision.train.average import average

    first = tiny_classifier(tmp_path / "a.onnx", bright="3m", runner_up="4m")  # sure of the black tile only
    second = tiny_classifier(tmp_path / "b.onnx", bright="4m", runner_up="3m", dark="2m")
    cascade = CropClassifier(average([first, second], tmp_path / "ab.onnx", unsure_below=0.9), threads=1)
    white, black = (10, 40, 40, 80), (80, 40, 110, 80)
    alone, other = (CropClassifier(path).probabilities(photo, [white, black]) for path in (first, second))
    assert alone[0].max() < 0.9 <= alone[1].max()
    both = cascade.probabilities(photo, [white, black])
    assert both[0] == pytest.approx((alone[0] + other[0]) / 2, abs=1e-6)
    assert both[1] == pytest.approx(alone[1], abs=1e-6)
    assert cascade.probabilities(photo, [black]) == pytest.approx(alone[1:], abs=1e-6)  # none unsure: first alone


def test_the_first_member_may_weigh_as_several(tmp_path, photo):
    from mjlens.vision.train.average import average

    first = tiny_classifier(tmp_path / "a.onnx", bright="3m", runner_up="4m")
    second = tiny_classifier(tmp_path / "b.onnx", bright="4m", runner_up="3m", dark="2m")
    white, black = (10, 40, 40, 80), (80, 40, 110, 80)
    alone, other = (CropClassifier(path).probabilities(photo, [white, black]) for path in (first, second))
    mean = CropClassifier(average([first, second], tmp_path / "m.onnx", first_counts=3), threads=1)
    assert mean.probabilities(photo, [white, black]) == pytest.approx((3 * alone + other) / 4, abs=1e-6)
    cascade = CropClassifier(average([first, second], tmp_path / "c.onnx", unsure_below=0.9, first_counts=3))
    both = cascade.probabilities(photo, [white, black])
    assert both[0] == pytest.approx((3 * alone[0] + other[0]) / 4, abs=1e-6)
    assert both[1] == pytest.approx(alone[1], abs=1e-6)  # read surely by the first: the first alone
    assert cascade.metadata["ensemble_first_counts"] == "3"
    with pytest.raises(ValueError, match="one member or more"):
        average([first, second], tmp_path / "x.onnx", first_counts=0)


def test_a_cascade_may_leave_the_crops_it_names_a_flower_to_its_first_member(tmp_path, photo):
    from mjlens.vision.train.average import average

    first = tiny_classifier(tmp_path / "a.onnx", bright="3f", runner_up="4m", dark="2m")
    second = tiny_classifier(tmp_path / "b.onnx", bright="4m", runner_up="3f", dark="3m")
    white, black = (10, 40, 40, 80), (80, 40, 110, 80)  # read unsurely as a flower; read 2m
    alone, other = (CropClassifier(path).probabilities(photo, [white, black]) for path in (first, second))
    assert alone.max(axis=1).max() < 0.999
    joined = CropClassifier(average([first, second], tmp_path / "all.onnx", unsure_below=0.999))
    assert joined.probabilities(photo, [white])[0] == pytest.approx((alone[0] + other[0]) / 2, abs=1e-6)
    cascade = CropClassifier(average([first, second], tmp_path / "ab.onnx", unsure_below=0.999, leave_flowers=1.0))
    both = cascade.probabilities(photo, [white, black])
    assert both[0] == pytest.approx(alone[0], abs=1e-6)  # a flower: the first alone
    assert both[1] == pytest.approx((alone[1] + other[1]) / 2, abs=1e-6)
    assert cascade.metadata["ensemble_leaves_flowers"] == "1.0"
    flowers = [DETECTOR_CLASSES.index(code) for code in BONUS_CODES]
    share = alone[1][flowers].sum()  # the black tile's share of flowers, read 2m
    below = CropClassifier(average([first, second], tmp_path / "s.onnx", unsure_below=0.999, leave_flowers=share / 2))
    assert below.probabilities(photo, [black])[0] == pytest.approx(alone[1], abs=1e-6)  # flowers enough: left
    above = CropClassifier(average([first, second], tmp_path / "t.onnx", unsure_below=0.999, leave_flowers=share * 2))
    assert above.probabilities(photo, [black])[0] == pytest.approx((alone[1] + other[1]) / 2, abs=1e-6)
    with pytest.raises(ValueError, match="cascade"):
        average([first, second], tmp_path / "x.onnx", leave_flowers=1.0)


def test_a_deeper_level_adds_a_member_only_where_the_mean_so_far_is_unsure(tmp_path, photo):
    from mjlens.vision.train.average import average

    paths = [tiny_classifier(tmp_path / f"{name}.onnx", bright=bright, runner_up=other)
             for name, bright, other in (("a", "3m", "4m"), ("b", "4m", "3m"), ("c", "5m", "4m"))]
    white, black = (10, 40, 40, 80), (80, 40, 110, 80)
    a, b, c = (CropClassifier(path).probabilities(photo, [white, black]) for path in paths)
    so_far = (a[0] + b[0]) / 2
    assert so_far.max() < 0.9 and a[1].max() >= 0.9
    deep = CropClassifier(average(paths, tmp_path / "deep.onnx", unsure_below=[0.9, 0.9]), threads=1)
    both = deep.probabilities(photo, [white, black])
    assert both[0] == pytest.approx((a[0] + b[0] + c[0]) / 3, abs=1e-6)
    assert both[1] == pytest.approx(a[1], abs=1e-6)
    shallow = CropClassifier(average(paths, tmp_path / "shallow.onnx", unsure_below=[0.9, so_far.max() / 2]))
    assert shallow.probabilities(photo, [white])[0] == pytest.approx(so_far, abs=1e-6)  # sure enough: no third


def test_a_cascade_has_falling_levels_and_no_more_than_its_members_allow(tmp_path):
    from mjlens.vision.train.average import average

    paths = [tiny_classifier(tmp_path / f"{name}.onnx") for name in "abc"]
    with pytest.raises(ValueError, match="rise"):
        average(paths, tmp_path / "x.onnx", unsure_below=[0.8, 0.9])
    with pytest.raises(ValueError, match="levels"):
        average(paths, tmp_path / "x.onnx", unsure_below=[0.9, 0.8, 0.7])


def test_half_stored_weights_halve_the_file_and_keep_the_answers(tmp_path, photo):
    from mjlens.vision.train.average import average

    members = [tiny_classifier(tmp_path / f"{name}.onnx", bright=bright, runner_up=other)
               for name, bright, other in (("a", "3m", "4m"), ("b", "4m", "3m"))]
    full = average(members, tmp_path / "full.onnx", unsure_below=0.9)
    half = average(members, tmp_path / "half.onnx", unsure_below=0.9, half_weights=True)
    assert half.stat().st_size < full.stat().st_size
    boxes = [(10, 40, 40, 80), (80, 40, 110, 80)]
    expected = CropClassifier(full).probabilities(photo, boxes)
    assert CropClassifier(half).probabilities(photo, boxes) == pytest.approx(expected, abs=1e-3)


def test_classifiers_of_different_crop_sizes_read_crops_of_the_largest(tmp_path, photo):
    from mjlens.vision.train.average import average

    small = tiny_classifier(tmp_path / "a.onnx", bright="3m", runner_up="4m", size=16)
    large = tiny_classifier(tmp_path / "b.onnx", bright="4m", runner_up="3m", size=24)
    both = CropClassifier(average([small, large], tmp_path / "ab.onnx", unsure_below=0.9, half_weights=True))
    assert both.size == 24
    boxes = [(10, 40, 40, 80), (80, 40, 110, 80)]
    members = [CropClassifier(path).probabilities(photo, boxes) for path in (small, large)]
    expected = np.stack([(members[0][0] + members[1][0]) / 2, members[0][1]])  # the black tile is sure
    assert both.probabilities(photo, boxes) == pytest.approx(expected, abs=1e-2)


def test_only_classifiers_of_the_same_classes_are_averaged(tmp_path):
    from mjlens.vision.train.average import average

    first = tiny_classifier(tmp_path / "a.onnx")
    with pytest.raises(ValueError):
        average([first], tmp_path / "one.onnx")
    other = tiny_detector_names(tiny_classifier(tmp_path / "b.onnx"))
    with pytest.raises(ValueError):
        average([first, other], tmp_path / "ab.onnx")


def tiny_flower_classifier(path: Path, bright: str, runner_up: str, dark: str = "8f") -> Path:
    """A 'classifier' of the eight flowers and seasons alone (``tiny_classifier``'s brightness rule)."""
    return tiny_classifier(path, bright=bright, runner_up=runner_up, dark=dark, classes=list(BONUS_CODES))


def flowers_split(read: np.ndarray, members: list[np.ndarray]) -> np.ndarray:
    """``read`` with its share of flowers split by the mean of its own split and the flower ``members``'."""
    flowers = [DETECTOR_CLASSES.index(code) for code in BONUS_CODES]
    expected = read.copy()
    share = read[flowers].sum()
    expected[flowers] = (read[flowers] / share + sum(m[flowers] for m in members)) / (len(members) + 1) * share
    return expected


def test_flower_members_split_the_flowers_of_crops_read_as_one_and_nothing_else(tmp_path, photo):
    from mjlens.vision.train.average import average

    cascade = [tiny_classifier(tmp_path / f"{name}.onnx", bright=bright, runner_up=other, dark="1m")
               for name, bright, other in (("a", "3f", "1f"), ("b", "1f", "3f"))]
    flower = tiny_flower_classifier(tmp_path / "f.onnx", bright="1f", runner_up="4f")
    white, black = (10, 40, 40, 80), (80, 40, 110, 80)  # read as a flower; read 1m
    plain = CropClassifier(average(cascade, tmp_path / "ab.onnx")).probabilities(photo, [white, black])
    both = CropClassifier(average(cascade, tmp_path / "abf.onnx", flowers=[flower]))
    assert both.probabilities(photo, [white, black]) == pytest.approx(
        np.stack([flowers_split(plain[0], [CropClassifier(flower).probabilities(photo, [white])[0]]), plain[1]]),
        abs=1e-6)
    assert both.probabilities(photo, [black]) == pytest.approx(plain[1:], abs=1e-6)  # no flower: not read again


def test_a_cascade_can_take_flower_members_as_one_member(tmp_path, photo):
    from mjlens.vision.train.average import average

    first = tiny_classifier(tmp_path / "a.onnx", bright="3f", runner_up="1f", size=16)
    second = tiny_classifier(tmp_path / "b.onnx", bright="1f", runner_up="3f", dark="2m", size=24)
    cascade = average([first, second], tmp_path / "ab.onnx", unsure_below=0.9, half_weights=True)
    flowers = [tiny_flower_classifier(tmp_path / f"{name}.onnx", bright=bright, runner_up="3f")
               for name, bright in (("f", "1f"), ("g", "2f"))]
    read_again = CropClassifier(average([cascade], tmp_path / "abfg.onnx", flowers=flowers, half_weights=True))
    white = (10, 40, 40, 80)
    read = CropClassifier(cascade).probabilities(photo, [white])[0]
    members = [CropClassifier(path).probabilities(photo, [white])[0] for path in flowers]
    assert read_again.probabilities(photo, [white])[0] == pytest.approx(flowers_split(read, members), abs=1e-2)


def test_only_classifiers_of_flowers_are_flower_members(tmp_path):
    from mjlens.vision.train.average import average

    members = [tiny_classifier(tmp_path / f"{name}.onnx") for name in "ab"]
    with pytest.raises(ValueError, match="flowers"):
        average(members, tmp_path / "x.onnx", flowers=[tiny_classifier(tmp_path / "c.onnx")])


def tiny_detector_names(path: Path) -> Path:
    """The same tiny classifier naming its classes in the detector's order instead of folder order."""
    import onnx

    model = onnx.load(str(path))
    for prop in model.metadata_props:
        if prop.key == "names":
            prop.value = str(dict(enumerate(DETECTOR_CLASSES)))
    onnx.save(model, str(path))
    return path
