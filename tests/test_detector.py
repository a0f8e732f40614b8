"""The ONNX detector runtime: decoding (threshold, NMS, cross-class merge, alternatives), class names from the
model's metadata, letterbox geometry, and a tiny constant-output ONNX model run end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.boxes import box_iou
from mjlens.vision.runtime.detector import Detector, ModelError, class_names_from_metadata, decode

INDEX = {c: i for i, c in enumerate(DETECTOR_CLASSES)}


def anchor(x1: float, y1: float, x2: float, y2: float, **scores: float) -> np.ndarray:
    """One anchor row: cx, cy, w, h, then a score per class (keyword names: tile codes with a leading ``t``)."""
    row = np.zeros(4 + len(DETECTOR_CLASSES), dtype=np.float32)
    row[:4] = ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)
    for name, score in scores.items():
        row[4 + INDEX[name[1:]]] = score
    return row


def split(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Anchor rows -> (x1 y1 x2 y2 boxes, scores), as ``Detector.raw`` returns them."""
    a = np.stack(rows)
    boxes = np.stack([a[:, 0] - a[:, 2] / 2, a[:, 1] - a[:, 3] / 2, a[:, 0] + a[:, 2] / 2, a[:, 1] + a[:, 3] / 2], 1)
    return boxes, a[:, 4:]


def tiny_model(path: Path, rows: list[np.ndarray], names: list[str] | None = None, size: int | None = 64) -> Path:
    """An ONNX 'detector' whose output is the given anchors whatever the photo: enough to test the runtime.
    ``size`` None: a dynamic input (height and width left to the runtime), as the shipped detector is exported."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    output = np.stack(rows).T[None].astype(np.float32)  # 1 x (4 + classes) x anchors, as ultralytics exports
    node = helper.make_node("Constant", [], ["output0"], value=numpy_helper.from_array(output))
    graph = helper.make_graph(
        [node], "tiny", [helper.make_tensor_value_info("images", TensorProto.FLOAT,
                                                       [1, 3, size or "height", size or "width"])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(output.shape))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    if names is not None:
        entry = model.metadata_props.add()
        entry.key, entry.value = "names", str(dict(enumerate(names)))
    onnx.save(model, str(path))
    return path


def test_box_iou():
    iou = box_iou(np.array([[0, 0, 10, 10]]), np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]]))
    assert iou[0].tolist() == pytest.approx([1.0, 1 / 3, 0.0])


def test_threshold_and_same_class_suppression():
    boxes, scores = split([
        anchor(0, 0, 20, 30, t5p=0.9),
        anchor(1, 0, 21, 30, t5p=0.8),  # the same tile seen by a neighbouring anchor
        anchor(30, 0, 50, 30, t1z=0.6),
        anchor(60, 0, 80, 30, t2z=0.2),  # below the threshold
    ])
    found = decode(boxes, scores, DETECTOR_CLASSES, conf=0.3)
    assert [(d.code, round(d.confidence, 2)) for d in found] == [("5p", 0.9), ("1z", 0.6)]
    assert found[0].box == pytest.approx((0, 0, 20, 30))


def test_two_readings_of_one_tile_merge_into_alternatives():
    boxes, scores = split([
        anchor(0, 0, 20, 30, t5p=0.7, t6p=0.1),
        anchor(0, 1, 20, 31, t6p=0.5),  # another class on the same spot: survives per-class NMS
        anchor(40, 0, 60, 30, t9s=0.8),
    ])
    merged = decode(boxes, scores, DETECTOR_CLASSES, conf=0.3)
    assert [d.code for d in merged] == ["9s", "5p"]
    assert merged[1].alternatives[0][0] == "6p" and merged[1].alternatives[0][1] == pytest.approx(0.5)
    unmerged = decode(boxes, scores, DETECTOR_CLASSES, conf=0.3, merge_iou=None)
    assert sorted(d.code for d in unmerged) == ["5p", "6p", "9s"]  # what the mAP evaluation sees


def test_a_box_lying_inside_a_better_tile_is_a_piece_of_it():
    boxes, scores = split([
        anchor(0, 0, 20, 30, t5p=0.9),
        anchor(2, 14, 20, 30, t3s=0.6),  # the lower half of the same tile, read as another tile: IoU only 0.53
        anchor(18, 0, 38, 30, t1z=0.7),  # the next tile, touching the first: a tile of its own
    ])
    assert [d.code for d in decode(boxes, scores, DETECTOR_CLASSES, conf=0.3)] == ["5p", "1z"]
    assert len(decode(boxes, scores, DETECTOR_CLASSES, conf=0.3, merge_iou=None)) == 3  # mAP candidates keep it


def test_a_box_clipped_to_nothing_is_no_tile():
    boxes, scores = split([anchor(0, 0, 20, 30, t5p=0.9), anchor(50, 10, 70, 40, t1z=0.8)])
    boxes[1, [0, 2]] = 40.0  # clipped at the photo's right edge: no width left
    assert [d.code for d in decode(boxes, scores, DETECTOR_CLASSES, conf=0.3)] == ["5p"]


def test_alternatives_are_ranked_and_floored():
    boxes, scores = split([anchor(0, 0, 20, 30, t1m=0.9, t7m=0.3, t4m=0.2, t2m=0.1, t3m=0.05, t8m=0.001)])
    (found,) = decode(boxes, scores, DETECTOR_CLASSES, conf=0.3, top_k=3)
    assert [c for c, _ in found.alternatives] == ["7m", "4m", "2m"]
    (bare,) = decode(boxes, scores, DETECTOR_CLASSES, conf=0.3, top_k=0)
    assert bare.alternatives == ()


def test_nothing_above_the_threshold():
    boxes, scores = split([anchor(0, 0, 20, 30, t5p=0.1)])
    assert decode(boxes, scores, DETECTOR_CLASSES, conf=0.3) == []


def test_class_names_from_metadata():
    assert class_names_from_metadata({}, 43) == DETECTOR_CLASSES
    peer = {"names": "{0: '1m', 1: 'chun', 2: 'haku', 3: 'hatsu', 4: 'tou'}"}
    assert class_names_from_metadata(peer, 5) == ("1m", "7z", "5z", "6z", "1z")
    with pytest.raises(ModelError) as info:
        class_names_from_metadata({"names": "{0: 'cat'}"}, 1)
    assert info.value.code == "model_invalid"
    with pytest.raises(ModelError):
        class_names_from_metadata({"names": "{0: '1m'}"}, 2)


def test_missing_model_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MJLENS_MODEL", str(tmp_path / "absent.onnx"))
    with pytest.raises(ModelError) as info:
        Detector()
    assert info.value.code == "model_missing" and "MJLENS_MODEL" in info.value.message
    (tmp_path / "junk.onnx").write_bytes(b"not onnx")
    with pytest.raises(ModelError) as info:
        Detector(tmp_path / "junk.onnx")
    assert info.value.code == "model_invalid"


def test_tiny_model_end_to_end_maps_boxes_back_to_the_photo(tmp_path):
    # In the 64x64 input, a 128x64 photo is scaled by 0.5 and padded 16 px above and below.
    rows = [anchor(8, 20, 18, 36, t3s=0.9, t2s=0.2), anchor(40, 20, 50, 36, t7z=0.8)]
    detector = Detector(tiny_model(tmp_path / "tiny.onnx", rows, list(DETECTOR_CLASSES)), conf=0.3, threads=1)
    assert detector.fixed_shape == (64, 64) and detector.names == DETECTOR_CLASSES
    photo = np.zeros((64, 128, 3), dtype=np.uint8)
    found = detector.detect(photo)
    assert [d.code for d in found] == ["3s", "7z"]
    assert found[0].box == pytest.approx((16, 8, 36, 40))
    assert found[0].alternatives[0][0] == "2s"
    reduced = detector.detect(photo, pixel_scale=0.5)  # the same photo decoded at half size
    assert reduced[0].box == pytest.approx((32, 16, 72, 80))
    candidates, operating = detector.detect_for_eval(photo)
    assert [d.code for d in operating] == ["3s", "7z"] and len(candidates) == 2


def test_letterbox_keeps_the_aspect_and_pads_grey(tmp_path):
    detector = Detector(tiny_model(tmp_path / "tiny.onnx", [anchor(0, 0, 1, 1, t1m=0.1)]), threads=1)
    blob, box = detector.letterbox(np.full((32, 64, 3), 255, dtype=np.uint8))
    assert blob.shape == (1, 3, 64, 64) and blob.dtype == np.float32
    assert box.ratio == 1.0 and (box.pad_x, box.pad_y) == (0, 16)
    assert blob[0, :, 0, 0] == pytest.approx([114 / 255] * 3) and blob[0, :, 32, 32] == pytest.approx([1.0] * 3)


def test_a_dynamic_input_is_the_least_stride_multiple_that_holds_the_photo(tmp_path):
    detector = Detector(tiny_model(tmp_path / "tiny.onnx", [anchor(0, 0, 1, 1, t1m=0.1)], size=None), threads=1,
                        input_size=448)
    assert detector.input_shape_for(891, 321) == (448, 192)  # 448 / 891 * 891 rounds a hair above 448
    assert detector.input_shape_for(640, 640) == (448, 448)
    assert detector.input_shape_for(100, 450, input_size=768) == (192, 768)


def test_a_reading_around_a_rectangle_runs_the_stride_aligned_part_of_the_input_holding_it(tmp_path):
    rows = [anchor(8, 20, 18, 36, t3s=0.9)]  # where the tiny model puts its one box, in the input it is given
    detector = Detector(tiny_model(tmp_path / "tiny.onnx", rows, size=None), threads=1, input_size=256)
    shapes = []
    run = detector.session.run

    def spied(outputs, feeds):
        shapes.append(feeds[detector.input_name].shape)
        return run(outputs, feeds)

    detector.session.run = spied
    photo = np.zeros((128, 256, 3), np.uint8)  # ratio 1 at 256: the input is the photo, 128 x 256
    whole, _ = detector.raw(photo)
    assert shapes[-1] == (1, 3, 128, 256) and whole[0] == pytest.approx((8, 20, 18, 36))
    part, _ = detector.raw(photo, around=(70, 40, 120, 70))  # widened to the grid: x 64-128, y 32-96
    assert shapes[-1] == (1, 3, 64, 64)
    assert part[0] == pytest.approx((8 + 64, 20 + 32, 18 + 64, 36 + 32))  # the part's boxes, in the photo's pixels
    reduced, _ = detector.raw(np.zeros((64, 128, 3), np.uint8), pixel_scale=0.5, around=(70, 40, 120, 70))
    assert shapes[-1] == (1, 3, 64, 64) and reduced[0] == pytest.approx(part[0])  # decoded at half size, same part
    tiny, _ = detector.raw(photo, around=(70, 40, 71, 41))  # one grid cell at least
    assert shapes[-1] == (1, 3, 32, 32) and tiny[0] == pytest.approx((8 + 64, 20 + 32, 18 + 64, 36 + 32))
    outside, _ = detector.raw(photo, around=(300, 200, 400, 300))  # nothing of the input: the whole of it
    assert shapes[-1] == (1, 3, 128, 256)
