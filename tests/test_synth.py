"""The synthetic generator: same seed, same bytes; labels in range, valid classes, one per tile of the hand."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from mjlens.api.cli.main import main
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import assemble
from mjlens.vision.synth.art import ArtBank
from mjlens.vision.synth.generate import generate_one, write_dataset, yolo_lines
from mjlens.vision.synth.measure_layout import check, check_reading, check_structure, with_true_codes

REPO = Path(__file__).resolve().parent.parent
VENDORED_ART = REPO / "datasets" / "tile-art"


@pytest.fixture(scope="module")
def art() -> ArtBank:
    """The vendored art set (always in the repository), so the test runs on a fresh clone too."""
    return ArtBank(VENDORED_ART)


def test_same_seed_same_image_and_labels(art):
    a = generate_one(7, 3, art, size=256)
    b = generate_one(7, 3, art, size=256)
    assert a.jpeg == b.jpeg and a.labels == b.labels and a.record == b.record
    c = generate_one(8, 3, art, size=256)
    assert c.jpeg != a.jpeg


@pytest.mark.parametrize("index", [0, 1, 2])
def test_labels_are_valid_and_cover_the_hand(art, index):
    s = generate_one(11, index, art, size=256)
    assert max(s.width, s.height) == 256
    for line in yolo_lines(s).splitlines():
        cls, *xywh = line.split()
        assert 0 <= int(cls) < len(DETECTOR_CLASSES)
        cx, cy, w, h = map(float, xywh)
        assert 0 < w <= 1 and 0 < h <= 1
        assert -1e-6 <= cx - w / 2 and cx + w / 2 <= 1 + 1e-6
        assert -1e-6 <= cy - h / 2 and cy + h / 2 <= 1 + 1e-6
    hand = s.record["hand"]
    in_hand = sorted(i for g in s.record["groups"] if g["role"] != "other" for i in g["tiles"])
    if s.record["complete"]:
        size = len(hand["concealed"]) + (hand["winning_tile"] is not None) + len(hand["flowers"])
        size += sum(len(m["tiles"]) for m in hand["melds"])
        assert len(in_hand) == size
        shown = Counter(s.labels[i][0] for i in in_hand)
        expected = Counter(hand["concealed"] + hand["flowers"] + [t for m in hand["melds"] for t in m["tiles"]])
        if hand["winning_tile"]:
            expected[hand["winning_tile"]] += 1
        # only the tiles of concealed kongs may be shown face down ("back")
        hidden = expected - Counter({c: n for c, n in shown.items() if c != "back"})
        kong_codes = {m["tiles"][0] for m in hand["melds"] if m["concealed"]}
        assert set(hidden) <= kong_codes
        assert sum(hidden.values()) == shown["back"]


def test_dataset_files_and_layout_on_ground_truth(tmp_path, art):
    boxes = write_dataset(tmp_path, 2, seed=5, art_dir=VENDORED_ART, size=256)
    assert boxes > 0
    assert len(list((tmp_path / "images").glob("*.jpg"))) == 2
    assert len(list((tmp_path / "labels").glob("*.txt"))) == 2
    data = (tmp_path / "data.yaml").read_text()
    assert "nc: 43" in data and "42: 'back'" in data
    for f in (tmp_path / "hands").glob("*.json"):
        record = json.loads(f.read_text())
        dets = [Detection(t["code"], tuple(t["box"]), 1.0) for t in record["labels"]]
        layout = assemble(dets, record["width"], record["height"])
        assert len(layout.tile_group) == len(dets)
        ok, why = check(record)  # the measurement runs on what the generator writes
        assert isinstance(ok, bool) and isinstance(why, str)


def test_a_reading_counts_when_its_hand_is_the_one_laid_out():
    hand = {"concealed": ["1m", "1m"], "melds": [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False}],
            "winning_tile": None, "flowers": ["2f"]}
    record = {"hand": hand, "labels": [{"code": "5z"}] * 3 + [{"code": "1m"}] * 2,
              "groups": [{"role": "meld", "tiles": [0, 1, 2]}, {"role": "concealed", "tiles": [3, 4]}]}
    assert check_reading(record, {"hand": {**hand, "flowers": ["2f"]}, "warnings": []}) == (True, "")
    assert check_reading(record, {"hand": {**hand, "flowers": []}, "warnings": []}) == (False, "hand differs")
    assert check_reading(record, {"hand": None, "warnings": ["no tiles"]}) == (False, "no hand")
    kong = {**record, "labels": [{"code": "back"}] * 3 + [{"code": "1m"}] * 2}
    asked = {"code": "face_down_kong", "message": "a concealed kong shows four backs", "group": 0}
    assert check_reading(kong, {"hand": None, "warnings": [asked["message"]], "warning_details": [asked]})[0]
    assert not check_reading(kong, {"hand": None, "warnings": ["no hand found"], "warning_details": []})[0]
    assert not check_reading(kong, {"hand": hand, "warnings": []})[0]


def test_structure_is_judged_by_tiles_matched_to_their_boxes_whatever_their_codes():
    boxes = [[0, 0, 10, 14], [11, 0, 21, 14], [22, 0, 32, 14], [40, 0, 50, 14], [51, 0, 61, 14], [70, 0, 80, 14],
             [0, 100, 10, 114]]
    codes = ["5z"] * 3 + ["1m"] * 3 + ["back"]
    record = {"labels": [{"code": c, "box": b} for c, b in zip(codes, boxes, strict=True)],
              "groups": [{"role": "meld", "tiles": [0, 1, 2]}, {"role": "concealed", "tiles": [3, 4]},
                         {"role": "winning", "tiles": [5]}, {"role": "other", "tiles": [6]}]}
    tiles = [{"box": [b[0] + 1, b[1], b[2] + 1, b[3]]} for b in boxes]  # detected a pixel off, in the same order
    read = {"tiles": tiles, "groups": [{"role": "meld", "tiles": [0, 1, 2]}, {"role": "concealed", "tiles": [3, 4]},
                                       {"role": "winning", "tiles": [5]}, {"role": "other", "tiles": [6]}]}
    assert check_structure(record, read) == (True, "")
    # the pair wait: the tile of the row with the winning tile's code, set apart instead, is the same hand
    swapped = {**read, "groups": [read["groups"][0], {"role": "concealed", "tiles": [3, 5]},
                                  {"role": "winning", "tiles": [4]}, read["groups"][3]]}
    assert check_structure(record, swapped) == (True, "")
    no_winning = {**read, "groups": [read["groups"][0], {"role": "concealed", "tiles": [3, 4, 5]}, read["groups"][3]]}
    assert check_structure(record, no_winning) == (False, "winning tile differs")
    with_table = {**read, "groups": [*read["groups"][:3], {"role": "flowers", "tiles": []},
                                     {"role": "concealed", "tiles": [6]}]}
    assert check_structure(record, with_table) == (False, "tiles of the table in the hand")
    broken = {**read, "groups": [{"role": "concealed", "tiles": [0, 1, 2, 3, 4]}, *read["groups"][2:]]}
    assert check_structure(record, broken) == (False, "melds differ")
    found = with_true_codes([Detection("6z", tuple(tiles[0]["box"]), 0.4, (("5z", 0.3),)),
                             Detection("1m", (200, 200, 210, 214), 0.9)], record)
    assert found[0] == Detection("5z", tuple(tiles[0]["box"]), 1.0) and found[1].code == "1m"


def test_cli_rejects_bad_arguments(tmp_path, capsys):
    assert main(["synth", "--n", "0", "--out", str(tmp_path)]) == 2
    assert main(["synth", "--n", "1", "--out", str(tmp_path), "--art", str(tmp_path / "missing")]) == 2
    assert "tile art" in capsys.readouterr().err
    assert main(["synth", "--n", "1", "--out", str(tmp_path), "--sheet", "--set", "xmj_real", "--habits"]) == 2
    assert "--habits" in capsys.readouterr().err


def test_cli_keeps_an_existing_dataset_unless_forced(tmp_path, capsys):
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "x.jpg").write_bytes(b"")
    args = ["synth", "--n", "1", "--out", str(tmp_path), "--size", "128", "--art", str(VENDORED_ART)]
    assert main(args) == 2
    assert "already holds images" in capsys.readouterr().err
    assert main([*args, "--force"]) == 0
    assert len(list((tmp_path / "labels").glob("*.txt"))) == 1


def test_table_habits_keep_the_hand_and_label_other_players_tiles_as_table(art):
    from mjlens.vision.synth.scene import Habits

    habits = Habits(p_uneven=1.0, p_background=1.0)
    plain = generate_one(41, 5, art, size=256)
    shown = generate_one(41, 5, art, size=256, habits=habits)
    assert shown.record["hand"] == plain.record["hand"]  # habits draw apart: the same hand is laid out
    again = generate_one(41, 5, art, size=256, habits=habits)
    assert again.jpeg == shown.jpeg and again.record == shown.record
    backgrounds = [g for g in shown.record["groups"] if g.get("player")]
    assert backgrounds and all(g["role"] == "other" for g in backgrounds)  # labelled tiles, not the hand's


def test_stacked_kongs_lie_on_their_pungs_middle_tile_and_the_layout_reads_them(art):
    import numpy as np

    from mjlens.vision.synth.hands import HandShown, MeldShown
    from mjlens.vision.synth.scene import Habits, layout_hand

    kong = MeldShown("kong", ["6p"] * 4, sideways=2)
    shown = HandShown(["1m", "2m", "3m", "4s", "5s", "6s", "7z", "7z", "7z", "2z"], [kong], "2z", True, "right", [])
    scene = layout_hand(np.random.default_rng(3), shown, Habits(p_stacked=1.0), np.random.default_rng(4),
                        np.random.default_rng(5))
    (group,) = [g for g in scene.groups if g["role"] == "meld"]
    under, top = (scene.tiles[i] for i in group["tiles"][1:3])
    assert [scene.tiles[i].level for i in group["tiles"]] == [0, 0, 1, 0]
    assert abs(top.x - under.x) < 0.1 and abs(top.y - under.y) < 0.1
    # the claimed tile turned third of four is the row's last: it came from the right
    assert scene.hand["melds"] == [{"kind": "kong", "tiles": ["6p"] * 4, "concealed": False, "claimed": "6p",
                                    "from": "right"}]


def test_stacked_kongs_in_synthetic_photos_are_read_as_kongs(art):
    """Where a detector can report the stacked tile at all (its box and the one under it overlap no more than its
    NMS lets two boxes of a class), the layout reads the four as a kong."""
    from mjlens.vision.boxes import box_iou
    from mjlens.vision.runtime.detector import NMS_IOU
    from mjlens.vision.synth.scene import Habits

    seen = 0
    for index in range(60):
        sample = generate_one(5, index, art, size=512, habits=Habits(p_stacked=1.0))
        kongs = [g["tiles"] for g in sample.record["groups"] if g.get("kind") == "kong" and not g["concealed"]]
        pairs = [(sample.labels[kong[1]][1:], sample.labels[kong[2]][1:]) for kong in kongs]  # under, on top
        if not kongs or any(box_iou([a], [b], float)[0, 0] > NMS_IOU for a, b in pairs):
            continue
        layout = assemble([Detection(c, tuple(b), 1.0) for c, *b in sample.labels], sample.width, sample.height)
        read = [set(g["tiles"]) for g in layout.groups if g.get("kind") == "kong"]
        assert all(set(kong) in read for kong in kongs), index
        seen += 1
    assert seen >= 3


def test_piles_keep_the_hand_label_what_shows_and_never_a_tile_on_its_side(art):
    import numpy as np

    from mjlens.vision.synth.hands import TilePool
    from mjlens.vision.synth.piles import Piles, add_piles, covered_shares
    from mjlens.vision.synth.scene import Placed, Scene

    piles = Piles(heaps=(2, 2), p_on_top=0.5, p_on_side=0.3, loose_on_side=(2, 2))
    in_frame = 0
    for index in range(8):
        plain = generate_one(41, index, art, size=320)
        shown = generate_one(41, index, art, size=320, piles=piles)
        assert shown.record["hand"] == plain.record["hand"]  # piles draw apart: the same hand is laid out
        heaps = [g for g in shown.record["groups"] if g.get("pile") == "heap"]
        assert all(g["role"] == "other" for g in heaps)
        assert not any(g.get("pile") == "on_side" for g in shown.record["groups"])  # drawn, never labelled
        in_frame += bool(heaps)
    assert in_frame >= 2  # heaps lie beside the hand, in the picture in most wide and many near views
    assert generate_one(41, 7, art, size=320, piles=piles).jpeg == shown.jpeg

    scene = Scene(tiles=[Placed("1m", "1m", 0, 0, group=0)], groups=[{"role": "concealed", "tiles": [0]}])
    add_piles(np.random.default_rng(2), scene, TilePool(), piles)
    on_side = [t for t in scene.tiles if t.side]
    assert len(on_side) >= 2 and all(t.level == 0 for t in on_side)
    # a tile half under another is half covered; one alone not at all
    half = Scene(tiles=[Placed("1m", "1m", 0, 0, group=0), Placed("2m", "2m", 0.5, 0, group=0, level=1),
                        Placed("3m", "3m", 9, 9, group=0)],
                 groups=[{"role": "other", "pile": "heap", "tiles": [0, 1, 2]}])
    shares = covered_shares(half)
    assert abs(shares[0] - 0.5) < 0.08 and 2 not in shares and 1 not in shares


def test_piles_are_for_photos_of_hands(tmp_path, capsys):
    assert main(["synth", "--n", "1", "--out", str(tmp_path), "--sheet", "--set", "xmj_real", "--piles"]) == 2
    assert "--piles" in capsys.readouterr().err


def test_a_standing_hand_keeps_its_hand_and_every_tile_of_it_labelled(art):
    import numpy as np

    from mjlens.vision.synth.hands import HandShown
    from mjlens.vision.synth.scene import layout_hand, stand_row

    for index in range(4):
        plain = generate_one(43, index, art, size=320)
        standing = generate_one(43, index, art, size=320, standing=1.0)
        assert standing.record["hand"] == plain.record["hand"]
        assert generate_one(43, index, art, size=320, standing=1.0).jpeg == standing.jpeg
        if standing.record["complete"]:
            hand = [i for g in standing.record["groups"] if g["role"] != "other" for i in g["tiles"]]
            assert len(hand) == sum(len(g["tiles"]) for g in plain.record["groups"] if g["role"] != "other")
    assert generate_one(43, 0, art, size=320, standing=0.0).jpeg == generate_one(43, 0, art, size=320).jpeg

    shown = HandShown(["1m", "2m", "3m", "4s", "5s", "6s", "7z", "7z", "7z", "2z", "2z", "3p", "4p"], [], "5p", True,
                      "right", ["1f"])
    scene = layout_hand(np.random.default_rng(3), shown)
    stand_row(scene)
    roles = {g["role"]: all(scene.tiles[i].standing for i in g["tiles"]) for g in scene.groups}
    assert roles == {"concealed": True, "winning": True, "flowers": False}


def test_standing_is_a_share(tmp_path, capsys):
    assert main(["synth", "--n", "1", "--out", str(tmp_path), "--standing", "1.5"]) == 2
    assert "--standing must be a share" in capsys.readouterr().err
