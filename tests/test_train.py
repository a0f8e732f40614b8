"""Training side: the warm start keeps the peer network's function, the dataset file, the CLI's bad-input paths,
and the shipped ONNX model's contract (43 classes in the project's order)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import yaml

from mjlens.api.cli.main import main as cli_main
from mjlens.scoring.tiles import DETECTOR_CLASSES

REPO = Path(__file__).resolve().parent.parent


def _peer():
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("ultralytics")
    pytest.importorskip("mahjong_detector")
    from mjlens.vision.train import warm_start

    return warm_start


def test_peer_classes_map_onto_project_codes():
    warm_start = _peer()
    _tensors, names = warm_start.load_peer(warm_start.peer_onnx_path())
    mapping = warm_start.class_map(names)
    assert len(mapping) == 34 and len(set(mapping.values())) == 34
    assert DETECTOR_CLASSES[mapping[names.index("chun")]] == "7z"
    assert DETECTOR_CLASSES[mapping[names.index("haku")]] == "5z"
    assert DETECTOR_CLASSES[mapping[names.index("tou")]] == "1z"
    assert DETECTOR_CLASSES[mapping[names.index("9s")]] == "9s"
    with pytest.raises(ValueError):
        warm_start.class_map(["1m", "dragon"])


def test_warm_start_keeps_the_peer_function_in_eval_and_train_mode():
    import onnxruntime as ort

    warm_start = _peer()  # skips without the training extra, before torch is imported
    import torch

    tensors, names = warm_start.load_peer(warm_start.peer_onnx_path())
    model = warm_start.build_model()
    folded = warm_start.load_peer_weights(model, tensors, warm_start.class_map(names))
    rng = np.random.default_rng(0)
    images = [rng.random((3, 320, 320), dtype=np.float32) for _ in range(2)]
    warm_start.reestimate_bn(model, folded, images)
    batch = torch.from_numpy(np.stack(images))

    model.eval()
    with torch.no_grad():
        ours = model(batch)[0].numpy()
    session = ort.InferenceSession(str(warm_start.peer_onnx_path()))
    blob = np.zeros((1, 3, 640, 640), np.float32)
    blob[0, :, :320, :320] = images[0]
    with torch.no_grad():
        ours_640 = model(torch.from_numpy(blob))[0].numpy()[0]
    theirs = session.run(None, {"images": blob})[0][0]
    assert np.abs(ours_640[:4] - theirs[:4]).max() < 0.05  # boxes in pixels
    peer_rows = [warm_start.class_map(names)[j] for j in range(len(names))]
    assert np.abs(ours_640[4:][peer_rows] - theirs[4:]).max() < 1e-3

    # Train mode normalises with the batch's own statistics; on the calibration batch they ARE the running stats.
    neck = {}
    model.model[-2].register_forward_hook(lambda _m, _i, out: neck.setdefault(model.training, out.detach()))
    with torch.no_grad():
        model(batch)
        model.train()
        model(batch)
    assert ours.shape[1] == 4 + len(DETECTOR_CLASSES)
    assert torch.allclose(neck[False], neck[True], atol=1e-3)


def test_data_yaml_has_absolute_paths_and_only_adds_training_images(tmp_path):
    from mjlens.vision.train.train import write_data_yaml

    for split in ("train/images", "valid/images"):
        (tmp_path / "real" / split).mkdir(parents=True)
    (tmp_path / "synth" / "images").mkdir(parents=True)
    out = write_data_yaml(tmp_path / "real", tmp_path / "run" / "data.yaml", [tmp_path / "synth" / "images"])
    data = yaml.safe_load(out.read_text())
    assert Path(data["path"]).is_absolute()
    real, synth = (tmp_path / "real/train/images").resolve(), (tmp_path / "synth/images").resolve()
    assert data["train"] == [str(real), str(synth)]
    assert data["val"] == str((tmp_path / "real/valid/images").resolve())
    assert [data["names"][i] for i in range(data["nc"])] == list(DETECTOR_CLASSES)
    with pytest.raises(FileNotFoundError):
        write_data_yaml(tmp_path / "synth", tmp_path / "x.yaml")


def test_train_options_reach_the_recipe(monkeypatch, tmp_path):
    import argparse

    from mjlens.vision.train import train as recipe

    seen = {}
    monkeypatch.setattr(recipe, "train", lambda *args, **overrides: seen.update(overrides) or tmp_path)
    parser = argparse.ArgumentParser()
    recipe.add_arguments(parser)
    recipe.run_from_args(parser.parse_args(["--data", str(tmp_path), "--degrees", "30", "--imgsz", "448"]))
    assert seen["degrees"] == 30.0 and seen["imgsz"] == 448
    recipe.run_from_args(parser.parse_args(["--data", str(tmp_path)]))
    assert seen["degrees"] == recipe.HYPERPARAMETERS["degrees"]
    assert (seen["device"], seen["workers"]) == ("cpu", 2)
    recipe.run_from_args(parser.parse_args(["--data", str(tmp_path), "--device", "0", "--workers", "8"]))
    assert (seen["device"], seen["workers"]) == ("0", 8)


def test_classifier_options_reach_the_recipe(monkeypatch, tmp_path):
    from mjlens.vision.train import classifier

    (tmp_path / "train" / "1m").mkdir(parents=True)
    seen = {}
    monkeypatch.setattr(classifier, "train", lambda *args, **overrides: seen.update(overrides) or tmp_path)
    classifier.main([str(tmp_path), "--start", str(tmp_path / "g.pt"), "--device", "0", "--batch", "512"])
    assert (seen["device"], seen["batch"], seen["workers"]) == ("0", 512, 2)
    classifier.main([str(tmp_path), "--start", str(tmp_path / "g.pt")])
    assert (seen["device"], seen["batch"]) == ("cpu", classifier.HYPERPARAMETERS["batch"])


@pytest.mark.parametrize("argv", [["train"], ["train", "--data", "/nonexistent"], ["train", "--resume", "/none.pt"]])
def test_train_command_rejects_bad_input_with_exit_2(argv, capsys):
    assert cli_main(argv) == 2
    assert capsys.readouterr().err.startswith("mjlens train: ")


def test_shipped_model_has_the_project_classes():
    onnx = pytest.importorskip("onnx")
    path = REPO / "models" / "mjlens-tiles.onnx"
    if not path.is_file():
        pytest.skip("models/mjlens-tiles.onnx is not present")
    model = onnx.load(str(path), load_external_data=False)
    names = ast.literal_eval({p.key: p.value for p in model.metadata_props}["names"])
    assert [names[i] for i in sorted(names)] == list(DETECTOR_CLASSES)
    dims = [d.dim_value or d.dim_param for d in model.graph.output[0].type.tensor_type.shape.dim]
    assert dims[1] == 4 + len(DETECTOR_CLASSES)  # batch and anchors follow the input, which is left dynamic


def test_shipped_classifier_reads_every_class():
    onnx = pytest.importorskip("onnx")
    path = REPO / "models" / "mjlens-tile-crops.onnx"
    if not path.is_file():
        pytest.skip("models/mjlens-tile-crops.onnx is not present")
    metadata = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    assert sorted(ast.literal_eval(metadata["names"]).values()) == sorted(DETECTOR_CLASSES)
    assert metadata["task"] == "classify"
    from mjlens.vision.runtime.classifier import CropClassifier

    classifier = CropClassifier(path, threads=1)  # crops are cut at the size the file declares, and it reads them
    assert [classifier.size] * 2 == ast.literal_eval(metadata["imgsz"])
    crops = np.zeros((2, 3, classifier.size, classifier.size), np.float32)
    assert classifier.session.run(None, {classifier.input_name: crops})[0].shape == (2, len(DETECTOR_CLASSES))


def test_packaged_arguments_keep_no_machine_paths():
    from mjlens.vision.train.export import _without_paths

    args = {"data": "/somewhere/run/tiles-data.yaml", "project": "/tmp/run", "name": "tiles", "epochs": 13}
    assert _without_paths(args) == {"data": "tiles-data.yaml", "project": "run", "name": "tiles", "epochs": 13}


def test_a_blend_is_the_weighted_mean_of_two_checkpoints_of_one_network():
    torch = pytest.importorskip("torch")
    from mjlens.vision.train.blend import blended_state

    first = {"conv.weight": torch.zeros(2, 2), "bn.running_var": torch.ones(2),
             "bn.num_batches_tracked": torch.tensor(3)}
    second = {"conv.weight": torch.ones(2, 2) * 4, "bn.running_var": torch.ones(2) * 3,
              "bn.num_batches_tracked": torch.tensor(9)}
    blend = blended_state(first, second, 0.25)
    assert torch.allclose(blend["conv.weight"], torch.ones(2, 2))
    assert torch.allclose(blend["bn.running_var"], torch.ones(2) * 1.5)
    assert int(blend["bn.num_batches_tracked"]) == 9
    assert torch.equal(blended_state(first, second, 0.0)["conv.weight"], first["conv.weight"])


def test_checkpoints_of_different_networks_are_not_blended():
    torch = pytest.importorskip("torch")
    from mjlens.vision.train.blend import blended_state

    with pytest.raises(ValueError, match="not of one network"):
        blended_state({"a": torch.zeros(1)}, {"b": torch.zeros(1)}, 0.5)
    with pytest.raises(ValueError, match="shape"):
        blended_state({"a": torch.zeros(1)}, {"a": torch.zeros(2)}, 0.5)
    with pytest.raises(ValueError, match="weight"):
        blended_state({"a": torch.zeros(1)}, {"a": torch.zeros(1)}, 1.5)


@pytest.mark.parametrize("turn, kept_at", [(2, (80, 160, 0.8, 0.8)), (1, (40, 80, 0.8, 0.2)), (3, (160, 20, 0.2, 0.8))])
def test_turned_photos_keep_their_labels_on_their_tiles(tmp_path, turn, kept_at):
    import cv2

    from mjlens.vision.train.turned import turned_labels, write_turned

    split = tmp_path / "train"
    (split / "images").mkdir(parents=True)
    (split / "labels").mkdir()
    photo = np.zeros((100, 200, 3), np.uint8)
    photo[10:30, 20:60] = 255  # one white tile at the top left, twice as wide as tall
    cv2.imwrite(str(split / "images" / "a.png"), photo)
    (split / "labels" / "a.txt").write_text("3 0.2 0.2 0.2 0.2\n")
    cv2.imwrite(str(split / "images" / "b.png"), photo)  # no label file: a photo of no tile
    (split / "images" / "notes.txt").write_text("not a photo")

    images = write_turned(split, tmp_path / "out", (turn,), "_t")
    assert sorted(p.name for p in images.iterdir()) == ["a_t.jpg", "b_t.jpg"]
    turned = cv2.imread(str(images / "a_t.jpg"), cv2.IMREAD_GRAYSCALE)
    ys, xs = np.nonzero(turned > 128)
    row, column, cx_expected, cy_expected = kept_at
    assert abs(ys.mean() - row) <= 5 and abs(xs.mean() - column) <= 5
    (line,) = (tmp_path / "out" / "labels" / "a_t.txt").read_text().splitlines()
    code, cx, cy, w, h = line.split()
    height, width = turned.shape
    assert code == "3" and float(cx) == pytest.approx(cx_expected) and float(cy) == pytest.approx(cy_expected)
    assert float(cx) * width == pytest.approx(xs.mean(), abs=1.5)
    assert float(cy) * height == pytest.approx(ys.mean(), abs=1.5)
    assert (tmp_path / "out" / "labels" / "b_t.txt").read_text() == ""
    assert turned_labels("1 0.5 0.25 0.1 0.3\nbroken line\n", 2) == "1 0.500000 0.750000 0.1 0.3\n"
    assert turned_labels("1 0.5 0.25 0.1 0.3\n", 1) == "1 0.750000 0.500000 0.3 0.1\n"


def test_quarter_turned_photos_turn_each_way_in_turn(tmp_path):
    import cv2

    from mjlens.vision.train.turned import write_kind

    split = tmp_path / "train"
    (split / "images").mkdir(parents=True)
    photo = np.zeros((20, 40, 3), np.uint8)
    photo[:, :10] = 255  # white on the left
    for name in "abc":
        cv2.imwrite(str(split / "images" / f"{name}.png"), photo)
    images = write_kind(split, tmp_path / "out", "quarter_turned")
    white_rows = [np.nonzero(cv2.imread(str(images / f"{name}_quarter_turned.jpg"), 0).mean(1) > 128)[0].mean()
                  for name in "abc"]
    assert white_rows[0] < 10 and white_rows[1] > 30 and white_rows[2] < 10  # clockwise: the left edge goes on top


def test_the_turn_options_add_the_turned_photos_to_the_training_set(monkeypatch, tmp_path):
    import argparse

    from mjlens.vision.train import train as recipe

    seen = {}
    monkeypatch.setattr(recipe, "train", lambda *args, **options: seen.update(options) or tmp_path)
    parser = argparse.ArgumentParser()
    recipe.add_arguments(parser)
    recipe.run_from_args(parser.parse_args(["--data", str(tmp_path), "--upside-down"]))
    assert seen["turned"] == ["upside_down"]
    recipe.run_from_args(parser.parse_args(["--data", str(tmp_path), "--upside-down", "--quarter-turned"]))
    assert seen["turned"] == ["upside_down", "quarter_turned"]
    recipe.run_from_args(parser.parse_args(["--data", str(tmp_path)]))
    assert seen["turned"] == []
