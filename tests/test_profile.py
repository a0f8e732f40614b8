"""Profiles: the file (round trip, version, damage), the rule that joins a profile with the shipped classifier, the
calibration sheet's rows and its errors, and ``mjlens profile`` (the sheets are synthetic, of the vendored art)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from mjlens.api.cli.main import main
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.profile import Profile, ProfileError
from mjlens.vision.profile.calibration import (
    ADDED_TILE_CHANCE,
    SHEET_INPUTS,
    _located,
    _refuse_rows_out_of_place,
    apart,
    match_rows,
    rows_of,
)
from mjlens.vision.profile.classifier import Examples
from mjlens.vision.profile.classifier import matched_probabilities as matched_by_similarity
from mjlens.vision.profile.layout import SHEET_ROWS
from mjlens.vision.profile.store import MAX_EXAMPLES_PER_CODE, reliance_of, reliance_over_views
from mjlens.vision.runtime.classifier import QUARTER_TURNS

REPO = Path(__file__).resolve().parent.parent


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def small_profile(codes=("1m", "2m", "5z"), complete=False, trusted=0.0) -> Profile:
    features = unit(np.eye(len(codes), 8, dtype=np.float32))
    return Profile.of_examples(list(codes), features, "a" * 64, "labels", codes=list(codes) if complete else None,
                               reliance=np.full(len(DETECTOR_CLASSES), trusted, np.float32))


def matched_probabilities(probs, features, profile):
    return matched_by_similarity(probs, features @ Examples.of(profile).features.T, profile)


def shipped_reading(code: str, p: float = 0.9) -> np.ndarray:
    row = np.full(len(DETECTOR_CLASSES), (1 - p) / (len(DETECTOR_CLASSES) - 1), np.float32)
    row[DETECTOR_CLASSES.index(code)] = p
    return row


# -- the file ---------------------------------------------------------------------------------------------------

def test_round_trip_keeps_every_field(tmp_path):
    profile = small_profile(complete=True)
    loaded = Profile.load(profile.save(tmp_path / "set.npz"))
    assert loaded.codes == profile.codes and loaded.complete and loaded.example_codes == profile.example_codes
    assert loaded.classifier == profile.classifier and loaded.sources == ("labels",)
    np.testing.assert_array_equal(loaded.features, profile.features)
    np.testing.assert_array_equal(loaded.reliance, profile.reliance)
    assert loaded.summary()["version"] == 1


def test_a_newer_version_is_refused(tmp_path):
    path = small_profile().save(tmp_path / "set.npz")
    with np.load(path) as data:
        fields = dict(data)
    fields["version"] = np.int32(99)
    np.savez(path, **fields)
    with pytest.raises(ProfileError) as err:
        Profile.load(path)
    assert err.value.code == "profile_version"


@pytest.mark.parametrize("content", [b"", b"not a zip", None])
def test_damaged_or_foreign_files_are_bad_profiles(tmp_path, content):
    path = tmp_path / "set.npz"
    if content is None:
        np.savez(path, something=np.zeros(3))  # an npz, not a profile
    else:
        path.write_bytes(content)
    with pytest.raises(ProfileError) as err:
        Profile.load(path)
    assert err.value.code == "bad_profile"


def test_a_missing_file_is_a_bad_profile(tmp_path):
    with pytest.raises(ProfileError) as err:
        Profile.load(tmp_path / "absent.npz")
    assert err.value.code == "bad_profile"


def test_examples_are_capped_per_code_and_merged():
    codes = ["1m"] * (MAX_EXAMPLES_PER_CODE + 5) + ["2m"]
    profile = Profile.of_examples(codes, unit(np.random.default_rng(0).normal(size=(len(codes), 4))), "d", "labels")
    assert profile.example_codes.count("1m") == MAX_EXAMPLES_PER_CODE
    merged = profile.merged(Profile.of_examples(["3m"], unit(np.ones((1, 4), np.float32)), "d", "corrections"))
    assert set(merged.codes) == {"1m", "2m", "3m"} and merged.sources == ("labels", "corrections")
    with pytest.raises(ProfileError) as err:
        profile.merged(Profile.of_examples(["3m"], unit(np.ones((1, 4), np.float32)), "other", "labels"))
    assert err.value.code == "profile_classifier"


# -- reading with a profile ---------------------------------------------------------------------------------------

def test_a_crop_like_an_example_takes_its_code():
    profile = small_profile()
    probs = shipped_reading("9s")[None]
    out = matched_probabilities(probs, np.asarray(profile.features[1:2], np.float32), profile)
    assert DETECTOR_CLASSES[int(out[0].argmax())] == "2m"
    assert out.sum() == pytest.approx(1.0, abs=1e-4)


def test_a_reading_the_set_showed_sure_stays_the_shipped_one():
    profile = small_profile(trusted=1.0)
    out = matched_probabilities(shipped_reading("9s")[None], np.asarray(profile.features[1:2], np.float32), profile)
    assert DETECTOR_CLASSES[int(out[0].argmax())] == "9s"


def test_reliance_is_left_to_readings_the_classifier_gives_other_tiles():
    probs = np.stack([shipped_reading("3m", 0.9), shipped_reading("3m", 0.8), shipped_reading("4m", 0.95)])
    trust = reliance_of(probs, ["2m", "3m", "4m"])
    index = DETECTOR_CLASSES.index
    assert trust[index("3m")] == 0 and trust[index("4m")] == 1.0  # 0.95 less a little: full
    assert trust[index("9s")] == 1.0  # no tile of its own: 1 less the most given to others
    low = reliance_of(np.stack([shipped_reading("4m", 0.5)]), ["4m"])
    assert low[index("4m")] == pytest.approx(0.5 / 0.8, abs=1e-4)


def test_views_lower_only_the_reliance_the_layout_as_photographed_already_doubts():
    codes = ["2m", "3m", "4m"]
    photographed = np.stack([shipped_reading("2m", 0.95), shipped_reading("3m", 0.7), shipped_reading("4m", 0.95)])
    smaller = np.stack([shipped_reading("3m", 0.9), shipped_reading("3m", 0.9), shipped_reading("4m", 0.95)])
    trust = reliance_over_views([photographed, smaller], codes)
    index = DETECTOR_CLASSES.index
    alone = reliance_of(photographed, codes)
    assert alone[index("2m")] == 1.0 and 0.8 < alone[index("3m")] < 1.0
    assert trust[index("2m")] == 1.0  # read surely as photographed: a smaller 2m read 3m does not lower it
    assert trust[index("3m")] == 0.0  # doubted, and another tile's view reads 3m: left to the examples
    assert trust[index("4m")] == 1.0
    assert np.array_equal(reliance_over_views([photographed], codes), alone)


def test_a_crop_like_no_example_keeps_the_shipped_reading():
    profile = small_profile()
    far = unit(np.r_[np.zeros(7), 1.0][None].astype(np.float32))
    out = matched_probabilities(shipped_reading("9s")[None], far, profile)
    assert DETECTOR_CLASSES[int(out[0].argmax())] == "9s"


def test_a_complete_profile_reads_no_code_the_set_lacks_but_keeps_backs():
    profile = small_profile(complete=True)
    far = unit(np.r_[np.zeros(7), 1.0][None].astype(np.float32))
    out = matched_probabilities(np.stack([shipped_reading("9s", 0.6) + shipped_reading("1m", 0.3) * 0.3,
                                          shipped_reading("back", 0.95)]), np.repeat(far, 2, axis=0), profile)
    assert DETECTOR_CLASSES[int(out[0].argmax())] == "1m"
    assert out[0][DETECTOR_CLASSES.index("9s")] == 0
    assert DETECTOR_CLASSES[int(out[1].argmax())] == "back"


# -- the sheet's rows ---------------------------------------------------------------------------------------------

def grid(lengths, slant=0.05) -> list[Detection]:
    tiles = []
    for r, n in enumerate(lengths):
        for i in range(n):
            x, y = 50 + 70 * i, 60 + 120 * r + slant * 70 * i
            tiles.append(Detection("1m", (x, y, x + 60, y + 80), 0.9))
    return tiles


def test_rows_are_read_top_to_bottom_left_to_right_on_a_slant():
    tiles = grid([9, 9, 7])
    rows = rows_of(list(reversed(tiles)))
    assert [len(r) for r in rows] == [9, 9, 7]
    assert [tuple(reversed(tiles)).index(tiles[i]) for i in range(9)] == rows[0]


def test_a_box_across_two_tiles_is_dropped():
    tiles = grid([3], slant=0)
    across = Detection("1m", (80, 60, 160, 140), 0.5)
    assert apart([*tiles, across]) == tiles


class FoundAtSizes:
    """A reader whose detector finds the boxes given for each input size (``_located``'s view of it)."""

    def __init__(self, found: dict):
        self.found = found
        self.detector = self

    def raw(self, bgr, scale, input_size=None):
        return input_size, None

    def locate(self, input_size, scores, conf):
        return [box for box in self.found.get(input_size, []) if box.confidence >= conf]


def test_a_tile_found_only_at_another_size_is_added_where_surely_a_tile():
    """The first size misses the last tile of a row; the second finds it, and finds again, moved a little, the tiles
    the first found (not added twice) and a weak box on the table (not added: a tile left out leaves such a place)."""
    first, later = SHEET_INPUTS[:2]
    tiles = grid([3], slant=0)
    moved = [Detection("1m", (t.box[0] + 3, t.box[1], t.box[2] + 3, t.box[3]), 0.95) for t in tiles[:2]]
    missed = Detection("1m", tiles[2].box, ADDED_TILE_CHANCE + 0.1)
    weak = Detection("1m", (400, 60, 460, 140), ADDED_TILE_CHANCE - 0.1)
    image = SimpleNamespace(bgr=None, scale=1.0)
    reader = FoundAtSizes({first: tiles[:2], later: [*moved, missed, weak]})
    assert _located(reader, image) == [*tiles[:2], missed]


def uniform(n: int) -> np.ndarray:
    return np.full((n, len(DETECTOR_CLASSES)), 1 / len(DETECTOR_CLASSES), np.float32)


def test_rows_of_one_length_are_told_apart_by_the_classifier():
    dots = np.stack([shipped_reading(code) for code in SHEET_ROWS[1]])
    assert match_rows([9, 7], [dots, uniform(7)]) == (1, 3)
    assert match_rows([9, 9, 9, 7, 8], [uniform(9)] * 3 + [uniform(7), uniform(8)]) == (0, 1, 2, 3, 4)


@pytest.mark.parametrize(("lengths", "code"), [([9, 10], "row_length"), ([7, 9], "row_length"),
                                               ([9, 9, 9, 9], "row_length"), ([5], "row_length"),
                                               ([9, 9, 9, 7, 8, 8], "rows_unmatched")])
def test_rows_that_are_no_sheet_are_refused(lengths, code):
    with pytest.raises(ProfileError) as err:
        match_rows(lengths, [uniform(n) for n in lengths])
    assert err.value.code == code


def test_rows_read_as_another_row_of_their_length_are_refused():
    characters, dots = ([DETECTOR_CLASSES.index(c) for c in SHEET_ROWS[row]] for row in (0, 1))
    probs = np.full((18, len(DETECTOR_CLASSES)), 0.01, np.float32)
    probs[np.arange(9), dots] = probs[np.arange(9, 18), characters] = 0.9  # the dots on top, the characters below
    with pytest.raises(ProfileError) as refused:
        _refuse_rows_out_of_place([list(range(9)), list(range(9, 18))], (0, 1), probs)
    assert refused.value.code == "rows_unmatched" and "dots 1p-9p" in refused.value.message
    probs[np.arange(4), characters[:4]] = 1.0  # four of the top row read as characters, five as dots: still refused
    with pytest.raises(ProfileError):
        _refuse_rows_out_of_place([list(range(9)), list(range(9, 18))], (0, 1), probs)


def test_rows_misread_within_their_own_codes_are_kept():
    probs = np.full((9, len(DETECTOR_CLASSES)), 0.01, np.float32)
    probs[:, DETECTOR_CLASSES.index("3m")] = 0.9  # every tile read 3m: a set the classifier reads badly, not a swap
    probs[:4, DETECTOR_CLASSES.index("5p")] = 1.0  # four of them read as dots: fewer than half
    _refuse_rows_out_of_place([list(range(9))], (0,), probs)


# -- calibration photos and the command line (the shipped models, the vendored art) ----------------------------------

@pytest.fixture(scope="module")
def sheet(vendored_layout_photo) -> Path:
    return vendored_layout_photo


@pytest.fixture(scope="module")
def made(sheet, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("profile") / "set.npz"
    assert main(["profile", "create", str(sheet), "--out", str(out)]) == 0
    return out


def test_a_sheet_makes_a_complete_profile(made):
    profile = Profile.load(made)
    assert profile.complete and profile.codes == tuple(c for row in SHEET_ROWS for c in row)
    assert set(profile.example_codes) == set(profile.codes)


def test_profile_show(made, capsys):
    assert main(["profile", "show", str(made), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["complete"] and len(summary["codes"]) == 42 and summary["version"] == 1


def test_recognize_with_the_profile(made, capsys):
    assert main(["recognize", str(REPO / "examples" / "hand.jpg"), "--json", "--profile", str(made)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["tiles"]


@pytest.fixture(scope="module")
def sheet_readings(sheet):
    """``read_sheet`` of the layout as made and turned 1, 2 and 3 quarter turns clockwise (from the other sides of
    the table, no EXIF orientation), with the shipped models and the readers it needs."""
    from mjlens.vision.profile.calibration import read_sheet
    from mjlens.vision.profile.features import FeatureReader
    from mjlens.vision.reading.reader import load_tile_reader
    from mjlens.vision.runtime.decode import load_image

    reader = load_tile_reader()
    features = FeatureReader(reader.classifier)
    upright = cv2.imread(str(sheet))
    photos = [upright] + [cv2.rotate(upright, QUARTER_TURNS[turn]) for turn in (1, 2, 3)]
    return [(bgr, read_sheet(reader, load_image(cv2.imencode(".png", bgr)[1].tobytes(), target_side=reader.decode_side),
                             features)) for bgr in photos], features


@pytest.mark.parametrize("turn", [1, 2, 3])
def test_a_layout_photographed_from_another_side_is_read_the_right_way_up(sheet_readings, turn):
    """Turned half round a layout's rows run the other way, turned a quarter its tiles lie on their side: each tile
    still gets the code of its place, its box in the photo as given."""
    readings, _ = sheet_readings
    upright, turned = readings[0][1], readings[turn][1]
    height, width = readings[turn][0].shape[:2]
    as_laid = [((t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2, t.code) for t in upright.tiles]
    assert len(as_laid) == len(turned.tiles) == 42
    for tile in turned.tiles:  # its centre in the upright photo, and the tile read there
        x, y = (tile.box[0] + tile.box[2]) / 2, (tile.box[1] + tile.box[3]) / 2
        assert 0 < x < width and 0 < y < height
        x, y = {1: (y, width - x), 2: (width - x, height - y), 3: (height - y, x)}[turn]
        assert min(as_laid, key=lambda t: (t[0] - x) ** 2 + (t[1] - y) ** 2)[2] == tile.code


def test_a_layout_photographed_at_a_low_angle_is_read_as_it_lies(sheet, sheet_readings):
    """Foreshortened, a layout's upright tiles are wider than tall as tiles on their side are: read as they lie."""
    from mjlens.vision.profile.calibration import on_their_side, read_sheet, stood_up
    from mjlens.vision.reading.reader import load_tile_reader
    from mjlens.vision.runtime.decode import load_image

    upright = cv2.imread(str(sheet))
    low = cv2.resize(upright, (upright.shape[1], upright.shape[0] // 2), interpolation=cv2.INTER_AREA)
    reader = load_tile_reader()
    reading = read_sheet(reader, load_image(cv2.imencode(".png", low)[1].tobytes(), target_side=reader.decode_side),
                         sheet_readings[1])
    assert reading.codes == sheet_readings[0][0][1].codes
    boxes = [t.box for t in reading.tiles]
    assert on_their_side(boxes)
    assert stood_up(low, boxes, [t.code for t in reading.tiles])[0] is low


def test_a_layout_photographed_from_a_side_learns_its_tiles_upright_from_its_tiles_too(sheet_readings):
    """A layout's tiles sent back as read (the preview's), in the photo taken from a side, are learnt upright."""
    from mjlens.vision.profile.sources import profile_from_layout_tiles
    from mjlens.vision.runtime.decode import DecodedImage

    readings, features = sheet_readings
    profiles = [profile_from_layout_tiles(DecodedImage(bgr, bgr.shape[1], bgr.shape[0], "png"),
                                          [(t.code, t.box) for t in reading.tiles], features)
                for bgr, reading in (readings[0], readings[1])]
    assert profiles[0].codes == profiles[1].codes and len(profiles[0].features) == len(profiles[1].features)
    tiles = len(readings[0][1].tiles)
    upright = unit(profiles[0].features.astype(np.float32))[:tiles]  # each tile as it lies in the upright photo
    # the sideways photo's first examples: each tile as it lies there stood up, and turned half round, at two heights
    sideways = unit(profiles[1].features.astype(np.float32))[:4 * tiles].reshape(4, tiles, -1)
    likeness = np.einsum("td,ktd->kt", upright, sideways).max(axis=0)
    assert np.median(likeness) > 0.9


def edited(sheet: Path, tmp_path: Path, change) -> Path:
    image = cv2.imread(str(sheet))
    labels = [line.split() for line in (sheet.parent.parent / "labels" / f"{sheet.stem}.txt").read_text().splitlines()]
    h, w = image.shape[:2]
    boxes = []
    for _, cx, cy, bw, bh in ((c, *map(float, rest)) for c, *rest in labels):
        boxes.append((int((cx - bw / 2) * w), int((cy - bh / 2) * h), int((cx + bw / 2) * w), int((cy + bh / 2) * h)))
    out = tmp_path / "edited.jpg"
    cv2.imwrite(str(out), change(image, boxes))
    return out


def hide_tile(image, boxes):
    x1, y1, x2, y2 = boxes[4]  # 5m: its row then holds eight tiles
    image[y1 - 4:y2 + 4, x1 - 4:x2 + 4] = np.median(image[:20, :20].reshape(-1, 3), axis=0)  # the table's colour
    return image


def lay_twice(image, boxes):
    """5m laid again where 6m lies: a code laid twice, another missing."""
    x1, y1, x2, y2 = boxes[4]
    tile = image[y1:y2, x1:x2].copy()
    image[boxes[5][1]:boxes[5][1] + tile.shape[0], boxes[5][0]:boxes[5][0] + tile.shape[1]] = tile
    return image


def swap_rows(image, boxes):
    """The characters laid where the dots belong, and the dots where the characters belong."""
    swapped = image.copy()
    for upper, lower in zip(boxes[:9], boxes[9:18], strict=True):
        for source, target in ((upper, lower), (lower, upper)):
            tile = image[source[1]:source[3], source[0]:source[2]]
            swapped[target[1]:target[3], target[0]:target[2]] = cv2.resize(tile, (target[2] - target[0],
                                                                                   target[3] - target[1]))
    return swapped


def shrink(image, boxes):
    """The sheet far away: its tiles a few pixels tall, in a photo of the same size."""
    small = cv2.resize(image, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA)
    canvas = np.full_like(image, 100)
    canvas[:small.shape[0], :small.shape[1]] = small
    return canvas


@pytest.mark.parametrize(("change", "code"), [
    (hide_tile, "row_length"),
    (lay_twice, "code_missing"),
    (swap_rows, "rows_unmatched"),
    (lambda image, boxes: np.full_like(image, 120), "no_tiles"),
    (shrink, "tiles_unreadable"),
    (lambda image, boxes: cv2.GaussianBlur(image, (0, 0), 12), "tiles_unreadable"),
])
def test_bad_sheets_are_refused_and_nothing_is_written(sheet, tmp_path, capsys, change, code):
    photo = edited(sheet, tmp_path, change)
    out = tmp_path / "set.npz"
    assert main(["profile", "create", str(photo), "--out", str(out)]) == 2
    assert f": {code}: " in capsys.readouterr().err
    assert not out.exists()


def test_profile_from_labels_and_corrections(sheet, tmp_path, capsys):
    folder = sheet.parent.parent
    reading = {"image": str(sheet), "tiles": [{"code": "1m", "box": [0, 0, 40, 50]}]}
    corrections = tmp_path / "corrections.jsonl"
    corrections.write_text(json.dumps(reading) + "\n")
    out = tmp_path / "set.npz"
    assert main(["profile", "create", "--from-labels", str(folder), "--from-corrections", str(corrections),
                 "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["sources"] == ["labels", "corrections"] and not summary["complete"]


@pytest.mark.parametrize("content", [b"\xff\xd8\xff\xe0 a photo, not JSON lines", None])
def test_corrections_that_are_no_text_or_no_file_say_so(tmp_path, capsys, content):
    corrections = tmp_path / "corrections.jsonl"
    if content is not None:
        corrections.write_bytes(content)
    out = tmp_path / "set.npz"
    assert main(["profile", "create", "--from-corrections", str(corrections), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "bad_labels" in err and ("is not text" if content else "cannot read") in err
    assert "codec" not in err and not out.exists()


@pytest.mark.parametrize("args", [["profile", "create", "--out", "x.npz"],
                                  ["recognize", str(REPO / "examples" / "hand.jpg"), "--profile", "absent.npz"]])
def test_command_line_errors_exit_2(args, capsys):
    assert main(args) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("good", [True, False])
def test_the_service_reads_with_its_default_profile_or_says_why_not(made, good):
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from mjlens.api.service.app import create_app
    from mjlens.api.service.settings import Settings

    app = create_app(Settings(profile=made if good else REPO / "README.md"))
    with TestClient(app) as client:
        ready = client.get("/readyz")
        assert ready.status_code == (200 if good else 503)
        if not good:
            assert "bad_profile" in ready.json()["error"]["message"]


def test_a_red_five_in_corrections_teaches_its_five(sheet, tmp_path, capsys):
    reading = {"image": str(sheet), "tiles": [{"code": "0p", "box": [0, 0, 40, 50]},
                                              {"code": "1m", "box": [40, 0, 80, 50]}]}
    corrections = tmp_path / "corrections.jsonl"
    corrections.write_text(json.dumps([reading]) + "\n")  # as mjlens recognize --json prints it
    out = tmp_path / "set.npz"
    assert main(["profile", "create", "--from-corrections", str(corrections), "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["codes"] == ["1m", "5p"]


def test_a_profile_that_trusts_every_reading_is_known_to_change_none():
    probs = np.random.default_rng(1).dirichlet(np.ones(len(DETECTOR_CLASSES)), size=5).astype(np.float32)
    features = unit(np.random.default_rng(2).normal(size=(5, 8)).astype(np.float32))
    inert = small_profile(trusted=1.0)
    assert inert.changes_no_reading()
    np.testing.assert_allclose(matched_probabilities(probs, features, inert), probs, atol=1e-6)
    assert not small_profile(trusted=0.5).changes_no_reading()
    assert not small_profile(complete=True, trusted=1.0).changes_no_reading()  # rules out the codes it lacks
    whole = [c for c in DETECTOR_CLASSES if c != "back"]
    assert Profile.of_examples(whole, np.eye(len(whole), dtype=np.float32), "a" * 64, "sheet",
                               codes=whole).changes_no_reading()


@pytest.mark.parametrize("inert", [True, False])
def test_profile_create_says_when_the_profile_changes_no_reading(sheet, tmp_path, capsys, monkeypatch, inert):
    monkeypatch.setattr(Profile, "changes_no_reading", lambda self: inert)
    reading = {"image": str(sheet), "tiles": [{"code": "1m", "box": [0, 0, 40, 50]}]}
    corrections = tmp_path / "corrections.jsonl"
    corrections.write_text(json.dumps(reading) + "\n")
    assert main(["profile", "create", "--from-corrections", str(corrections), "--out", str(tmp_path / "p.npz")]) == 0
    assert ("changes no reading" in capsys.readouterr().err) == inert
