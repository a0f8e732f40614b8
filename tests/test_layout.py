"""The layout step on constructed detections: rows, gaps, melds, flowers, the winning tile, and what it refuses."""

from __future__ import annotations

import math

import pytest

from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import assemble

W, H = 40.0, 54.0  # an upright tile's box: face plus a little body


class Table:
    """Lays tiles left to right in rows, like a photo taken from the player's seat; can turn the whole table."""

    def __init__(self, angle_deg: float = 0.0, scale: float = 1.0):
        self.dets: list[tuple[str, float, float, bool]] = []  # code, centre x, centre y, sideways
        self.angle, self.scale = math.radians(angle_deg), scale

    def row(self, x: float, y: float, *groups: str | list[str], gap: float = 0.8) -> list[list[int]]:
        """Groups of codes ("123m" style is not parsed: lists of codes; a code ending in '~' lies sideways)."""
        out = []
        for g in groups:
            codes = g if isinstance(g, list) else [g]
            idx = []
            for code in codes:
                sideways = code.endswith("~")
                code = code.rstrip("~")
                length = H if sideways else W
                cy = y + (H - W) / 2 if sideways else y  # bottom edges in line
                self.dets.append((code, x + length / 2, cy, sideways))
                idx.append(len(self.dets) - 1)
                x += length + 1.0
            x += gap * W
            out.append(idx)
        return out

    def detections(self) -> list[Detection]:
        out = []
        c, s = math.cos(self.angle), math.sin(self.angle)
        for code, x, y, sideways in self.dets:
            w, h = (H, W) if sideways else (W, H)
            cx, cy = x * c - y * s + 600, x * s + y * c + 400
            # the box of the turned tile: its rotated rectangle's bounds
            bw, bh = abs(w * c) + abs(h * s), abs(w * s) + abs(h * c)
            k = self.scale
            box = ((cx - bw / 2) * k, (cy - bh / 2) * k, (cx + bw / 2) * k, (cy + bh / 2) * k)
            out.append(Detection(code, box, 0.9))
        return out


def split(text: str) -> list[str]:
    """'123m55z' -> ['1m', '2m', '3m', '5z', '5z'] (suits after their digits)."""
    out, digits = [], ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        else:
            out.extend(f"{d}{ch}" for d in digits)
            digits = ""
    return out


def roles(layout) -> dict[str, list[list[int]]]:
    out: dict[str, list[list[int]]] = {}
    for g in layout.groups:
        out.setdefault(g["role"], []).append(g["tiles"])
    return out


def test_concealed_row_with_winning_tile_set_apart():
    t = Table()
    (row, win) = t.row(0, 0, split("123m456p789s1122z"), ["2z"], gap=1.0)
    layout = assemble(t.detections(), 1600, 900)
    assert roles(layout)["concealed"] == [row]
    assert roles(layout)["winning"] == [win]
    assert layout.hand.winning_tile == "2z"
    assert sorted(layout.hand.concealed) == sorted(split("123m456p789s1122z"))
    assert not layout.hand.melds
    assert [layout.tile_group[i] is not None for i in range(len(t.dets))] == [True] * 14


@pytest.mark.parametrize(
    "meld, kind, claimed, source",
    [
        (["3p", "4p~", "5p"], "chow", "4p", "across"),
        (["7z~", "7z", "7z"], "pung", "7z", "left"),
        (["9s", "9s", "9s", "9s~"], "kong", "9s", "right"),
        (["2m", "3m", "4m"], "chow", None, None),
    ],
)
def test_every_meld_kind_set_apart(meld, kind, claimed, source):
    t = Table()
    concealed = split("11m234p567s22z")  # with the winning tile apart: 10 + 1 + 3
    (row, win, m1) = t.row(0, 0, concealed, ["1m"], ["5s", "5s", "5s"], gap=1.0)
    (m2,) = t.row(40, 120, meld)
    layout = assemble(t.detections(), 1600, 900)
    melds = [g for g in layout.groups if g["role"] == "meld"]
    assert sorted(sorted(g["tiles"]) for g in melds) == sorted([m1, m2])
    found = next(m for m in layout.hand.melds if m.kind == kind and m.tiles[0] == meld[0].rstrip("~"))
    assert found.concealed is False
    assert found.claimed == claimed
    assert found.source == source
    assert layout.hand.winning_tile == "1m"


def test_concealed_kong_with_two_backs_reads_its_face():
    t = Table()
    (row, win, kong) = t.row(0, 0, split("123m456p789s1z"), ["1z"], ["back", "6z", "6z", "back"])
    layout = assemble(t.detections(), 1600, 900)
    (meld,) = layout.hand.melds
    assert (meld.kind, meld.tiles, meld.concealed) == ("kong", ("6z",) * 4, True)
    group = next(g for g in layout.groups if g["role"] == "meld")
    assert group["kind"] == "kong" and group["concealed"] is True and sorted(group["tiles"]) == kong


def test_concealed_kong_of_four_backs_is_not_guessed():
    t = Table()
    (_, _, kong) = t.row(0, 0, split("123m456p789s1z"), ["1z"], ["back"] * 4)
    layout = assemble(t.detections(), 1600, 900)
    assert layout.hand is None
    g = next(k for k, g in enumerate(layout.groups) if g["role"] == "meld")
    assert {k: v for k, v in layout.groups[g].items() if k != "sure"} == {
        "role": "meld", "kind": "kong", "concealed": True, "face_down": True, "tiles": kong}
    (notice,) = layout.notices
    assert notice["code"] == "face_down_kong" and notice["group"] == g and notice["message"] in layout.warnings
    assert "four backs" in notice["message"] and layout.to_json()["warning_details"] == [notice]


def test_concealed_kong_of_four_backs_takes_the_tile_given():
    t = Table()
    (row, win, kong) = t.row(0, 0, split("123m456p789s1z"), ["1z"], ["back"] * 4)
    layout = assemble(t.detections(), 1600, 900, kongs=["7z"])
    (meld,) = layout.hand.melds
    assert (meld.kind, meld.tiles, meld.concealed) == ("kong", ("7z",) * 4, True)
    group = next(g for g in layout.groups if g["role"] == "meld")
    assert group["face_down"] is True and group["tile"] == "7z" and group["tiles"] == kong
    assert layout.notices == [] and "back" not in layout.hand.all_tiles()


def test_two_kongs_of_four_backs_take_the_tiles_in_the_order_of_their_groups():
    t = Table()
    t.row(0, 0, split("123m456p1z"), ["1z"], ["back"] * 4, ["back"] * 4)
    asked = assemble(t.detections(), 1600, 900)
    assert [n["code"] for n in asked.notices] == ["face_down_kong"] * 2
    first, second = (n["group"] for n in asked.notices)
    assert first < second
    one = assemble(t.detections(), 1600, 900, kongs=["2s"])
    assert one.hand is None and [n["group"] for n in one.notices] == [second]
    assert one.groups[first]["tile"] == "2s" and "tile" not in one.groups[second]
    both = assemble(t.detections(), 1600, 900, kongs=["2s", "6z"])
    assert sorted(m.tiles[0] for m in both.hand.melds) == ["2s", "6z"]
    assert [both.groups[n["group"]]["tile"] for n in asked.notices] == ["2s", "6z"]


def test_a_kong_tile_given_where_none_is_asked_is_said_unused():
    t = Table()
    t.row(0, 0, split("123m456p789s1z"), ["1z"], ["back", "6z", "6z", "back"])
    layout = assemble(t.detections(), 1600, 900, kongs=["3m"])
    assert layout.hand.melds[0].tiles == ("6z",) * 4  # the face shown decides, not the answer
    assert [n["code"] for n in layout.notices] == ["kong_answer_unused"] and "3m" in layout.notices[0]["message"]


def test_a_kong_tile_that_is_no_playing_tile_is_refused():
    t = Table()
    t.row(0, 0, split("123m456p789s1z"), ["1z"], ["back"] * 4)
    for bad in ("back", "1f", "9z"):
        with pytest.raises(ValueError):
            assemble(t.detections(), 1600, 900, kongs=[bad])


def test_flowers_by_class_wherever_they_lie():
    t = Table()
    (row, win) = t.row(0, 0, split("123m456p789s1122z"), ["2z"])
    (f1,) = t.row(-300, -10, ["1f"])
    (f2,) = t.row(100, 140, ["6f", "7f"])
    layout = assemble(t.detections(), 1600, 900)
    assert sorted(roles(layout)["flowers"][0]) == sorted(f1 + f2)
    assert layout.hand.flowers == ("1f", "6f", "7f")
    assert layout.hand.winning_tile == "2z"


@pytest.mark.parametrize("angle", [-35.0, 20.0, 90.0, 150.0])
def test_diagonal_and_turned_rows(angle):
    t = Table(angle)
    (row, win, meld) = t.row(0, 0, split("123m456p78s22z"), ["9s"], ["5z", "5z", "5z"], gap=1.0)
    layout = assemble(t.detections(), 2000, 2000)
    assert roles(layout)["concealed"] == [row] or sorted(roles(layout)["concealed"][0]) == sorted(row)
    assert layout.hand.winning_tile == "9s"
    assert [(m.kind, m.tiles) for m in layout.hand.melds] == [("pung", ("5z",) * 3)]


def test_no_tile_set_apart_leaves_the_winning_tile_open():
    t = Table()
    t.row(0, 0, split("123m456p789s11222z"))
    layout = assemble(t.detections(), 1600, 900)
    assert "winning" not in roles(layout)
    assert layout.hand.winning_tile is None
    assert len(layout.hand.concealed) == 14
    assert any("winning tile" in w for w in layout.warnings)


def test_five_copies_give_no_hand_and_say_why():
    t = Table()
    t.row(0, 0, split("11111m456p789s22z"), ["2z"])
    layout = assemble(t.detections(), 1600, 900)
    assert layout.hand is None
    assert any("more than four" in w for w in layout.warnings)


def test_discards_far_from_the_hand_are_other():
    t = Table()
    (row, win) = t.row(0, 0, split("123m456p789s1122z"), ["2z"])
    discards = t.row(60, -400, split("19m5p3s"), gap=0.05)
    wall = t.row(0, 500, ["back"] * 10, gap=0.05)
    layout = assemble(t.detections(), 1600, 1400)
    others = sorted(i for g in layout.groups if g["role"] == "other" for i in g["tiles"])
    assert others == sorted(discards[0] + wall[0])
    assert layout.in_hand() == sorted(set(range(len(t.dets))) - set(others))
    assert layout.hand.winning_tile == "2z" and len(layout.hand.concealed) == 13


def test_any_photo_size_reads_the_same():
    small, big = Table(scale=0.3), Table(scale=4.0)
    for t in (small, big):
        t.row(0, 0, split("123m456p78s22z"), ["9s"], ["1m", "1m", "1m"])
    a = assemble(small.detections(), 480, 270)
    b = assemble(big.detections(), 6400, 3600)
    assert a.hand == b.hand and a.groups == b.groups


def test_no_detections():
    layout = assemble([], 640, 480)
    assert layout.hand is None and layout.groups == [] and layout.warnings


def test_a_tile_found_twice_is_read_once():
    t = Table()
    t.row(0, 0, split("123m456p789s1122z"), ["2z"])
    dets = t.detections()
    x1, y1, x2, y2 = dets[3].box
    twice = [*dets, Detection("4p", (x1 + 2, y1 + 1, x2 + 2, y2 + 1), 0.4)]
    layout = assemble(twice, 1600, 900)
    assert layout.tile_group[-1] is None
    assert layout.hand.winning_tile == "2z" and len(layout.hand.concealed) == 13
    assert any("two boxes" in w for w in layout.warnings)


def test_hand_beside_a_bigger_pile_turned_another_way():
    hand = Table(8.0)
    (row, win, meld) = hand.row(0, 0, split("123m456p78s22z"), ["9s"], ["5z", "5z", "5z"], gap=1.0)
    pile = Table(-50.0)
    for r in range(4):  # four rows of six, tight, far above the hand
        pile.row(-500 + 20 * r, -300 + 56 * r, split("135m246p"), gap=0.0)
    dets = hand.detections() + pile.detections()
    layout = assemble(dets, 2000, 1600)
    assert layout.hand is not None and layout.hand.winning_tile == "9s"
    assert [(m.kind, m.tiles) for m in layout.hand.melds] == [("pung", ("5z",) * 3)]
    others = {i for g in layout.groups if g["role"] == "other" for i in g["tiles"]}
    assert others == set(range(len(hand.dets), len(dets)))


def test_a_misread_meld_tile_is_read_as_its_runner_up_and_said_so():
    t = Table()
    t.row(0, 0, split("11m234p567s22z"), ["1m"], ["5s", "5s", "5s"], gap=1.0)
    (meld,) = t.row(40, 120, ["3p", "4p", "6p"])
    dets = t.detections()
    odd = dets[meld[2]]
    dets[meld[2]] = Detection("6p", odd.box, 0.6, (("5p", 0.35), ("9p", 0.02)))
    layout = assemble(dets, 1600, 900)
    assert ("chow", ("3p", "4p", "5p")) in [(m.kind, m.tiles) for m in layout.hand.melds]
    assert any("6p as 5p" in w for w in layout.warnings)
    # the page marks it for a look: read through a runner-up, it is less sure than the meld read as it lies
    sure = {tuple(g["tiles"]): g["sure"] for g in layout.groups if g["role"] == "meld"}
    assert sure[tuple(meld)] <= 0.5 < min(v for k, v in sure.items() if k != tuple(meld))


def test_a_group_that_is_no_meld_is_not_forced_into_one():
    t = Table()
    t.row(0, 0, split("11m234p567s22z"), ["1m"], ["5s", "5s", "5s"], gap=1.0)
    t.row(40, 120, ["3p", "4p", "7p"])  # no runner-up readings to fall back on
    layout = assemble(t.detections(), 1600, 900)
    assert all(m.tiles != ("3p", "4p", "7p") for m in (layout.hand.melds if layout.hand else ()))
    assert any("not a meld" in w or "left out" in w for w in layout.warnings)


def test_a_short_row_is_the_hand_not_two_stray_tiles_far_off():
    t = Table()
    (row,) = t.row(0, 0, split("345s888s222s111z"))  # 12 tiles: the photo cuts off the pair
    strays = t.row(200, -400, ["7s"], ["5p"], gap=0.4)
    layout = assemble(t.detections(), 1600, 1400)
    assert roles(layout)["concealed"] == [row]
    assert sorted(i for tiles in roles(layout)["other"] for i in tiles) == sorted(strays[0] + strays[1])


def test_flowers_lying_in_the_row_take_a_place_in_it_not_a_gap():
    t = Table()
    (pung, flowers, rest) = t.row(0, 0, ["2z"] * 3, ["6f", "1f"], split("123p77z456789p"), gap=0.02)
    layout = assemble(t.detections(), 1600, 900)
    assert sorted(roles(layout)["concealed"][0]) == sorted(pung + rest)
    assert roles(layout)["flowers"] == [flowers]
    assert not layout.hand.melds and layout.hand.flowers == ("1f", "6f")


def test_an_uneven_touch_inside_the_row_makes_no_meld_of_its_first_tiles():
    t = Table()
    (pung,) = t.row(0, 0, ["2z"] * 3, gap=0.38)  # three like tiles pushed a little apart from the rest of the row
    (rest, win) = t.row(3 * (W + 1) + 0.38 * W, 0, split("123m456p789s1z"), ["1z"], gap=1.0)
    layout = assemble(t.detections(), 1600, 900)
    assert sorted(roles(layout)["concealed"][0]) == sorted(pung + rest)
    assert roles(layout)["winning"] == [win]
    assert not layout.hand.melds and layout.hand.winning_tile == "1z"


def test_a_winning_tile_set_apart_by_little_is_judged_against_the_row_not_its_uneven_touch():
    t = Table()
    codes = split("123m456p789s1122z")
    (head,) = t.row(0, 0, codes[:12], gap=8 / W)  # an uneven touch before the row's last tile...
    (last,) = t.row(12 * (W + 1) + 8, 0, codes[12:], gap=17 / W)  # ... the winning tile a little farther
    (win,) = t.row(13 * (W + 1) + 8 + 17, 0, ["2z"])
    layout = assemble(t.detections(), 1600, 900)
    assert roles(layout)["winning"] == [win]
    assert sorted(roles(layout)["concealed"][0]) == sorted(head + last)


def test_a_pair_wait_set_apart_by_little_in_a_turned_photo():
    t = Table(35.0)
    t.row(0, 0, ["1m", "2m", "3m"], ["5z"] * 3, ["7p"] * 3, ["4s", "5s", "6s"], gap=1.0)  # four melds
    x = 4 * 3 * (W + 1) + 4 * W
    t.row(x, 0, ["7z"], gap=0.36)
    t.row(x + W + 1 + 0.36 * W, 0, ["7z"])
    layout = assemble(t.detections(), 2000, 2000)
    assert len(layout.hand.melds) == 4 and layout.hand.winning_tile == "7z"
    assert layout.hand.concealed == ("7z",)


def test_a_hand_broken_by_missed_tiles_is_still_the_hand_not_a_pair_far_off():
    t = Table()
    pieces = t.row(0, 0, ["6s"], ["8s"], ["9s"] * 3, ["3z"], ["2p", "3p", "4p"], gap=0.9)  # tiles missed between
    (far,) = t.row(300, -500, ["5s", "5s"])  # another player's tiles
    layout = assemble(t.detections(), 1600, 1400)
    assert sorted(i for tiles in roles(layout)["other"] for i in tiles) == sorted(far)
    assert set(layout.in_hand()) == {i for piece in pieces for i in piece}


def test_another_players_row_and_meld_far_off_and_turned_are_not_the_hand():
    hand = Table()
    (row, win) = hand.row(0, 0, split("123m456p789s1122z"), ["2z"])
    other = Table(90.0, scale=1.0)
    other.row(-700, -400, ["back"] * 12, gap=0.05)
    other.row(-700, -320, ["6m"] * 3, gap=0.6)
    dets = hand.detections() + other.detections()
    layout = assemble(dets, 2400, 1600)
    assert layout.hand.winning_tile == "2z" and len(layout.hand.concealed) == 13
    assert set(layout.in_hand()) == set(range(len(hand.dets)))


def test_a_face_down_tile_at_the_row_s_end_is_never_the_winning_tile():
    t = Table()
    codes = split("123m456p789s1122z")
    t.row(0, 0, codes[:12], gap=8 / W)
    t.row(12 * (W + 1) + 8, 0, codes[12:], gap=17 / W)
    t.row(13 * (W + 1) + 8 + 17, 0, ["back"])  # set apart as the winning tile is in the test above
    layout = assemble(t.detections(), 1600, 900)
    assert "winning" not in roles(layout)
    assert layout.hand is None and any("face-down" in w for w in layout.warnings)


def test_a_tile_pushed_a_little_off_the_row_s_end_is_the_row_s_and_the_one_beyond_it_the_winning_tile():
    t = Table()
    codes = split("123m456p789s1122z")
    (head,) = t.row(0, 0, codes[:12], gap=0.38)  # an uneven touch before the row's last tile...
    (last, win) = t.row(12 * (W + 1) + 0.38 * W, 0, codes[12:], ["2z"], gap=1.0)  # ... the winning tile well apart
    layout = assemble(t.detections(), 1600, 900)
    assert roles(layout)["winning"] == [win]
    assert sorted(roles(layout)["concealed"][0]) == sorted(head + last)
    assert not any("not a meld" in w for w in layout.warnings)


def test_four_backs_of_a_longer_face_down_row_are_no_concealed_kong():
    t = Table()
    (row, win) = t.row(0, 0, split("123m456p789s1122z"), ["2z"])
    t.row(100, -125, ["back"] * 4, ["back"] * 8, gap=0.5)  # another player's row, its boxes broken in two
    layout = assemble(t.detections(), 1600, 900)
    assert layout.hand is not None and not layout.hand.melds and layout.hand.winning_tile == "2z"
    assert set(layout.in_hand()) == set(row + win)


def _stack(t: Table, under: int, lift: float, along: float = 0.0) -> int:
    """Lay a tile of its code on tile ``under``, its face ``lift`` tile widths farther up the photo and ``along``
    to the right (the raise of a tile's thickness as the camera sees it, away from the point below it); its
    index."""
    code, x, y, _ = t.dets[under]
    t.dets.append((code, x + along * W, y - lift * W, False))
    return len(t.dets) - 1


@pytest.mark.parametrize("angle", [0.0, 25.0, 180.0])
# (0.25, 0): the boxes overlap as much as a tile found twice; (0.08, 0.2), (0, 0.3): a camera off to one side
# (0.95, 0): seen from low, raised by most of a tile
@pytest.mark.parametrize("lift, along", [(0.25, 0.0), (0.35, 0.0), (0.6, 0.0), (0.95, 0.0), (0.08, 0.2), (0.0, 0.3)])
def test_a_kong_with_its_fourth_tile_stacked_on_the_pung(angle, lift, along):
    t = Table(angle)
    (row, win, pung) = t.row(0, 0, split("123m456p789s1z"), ["1z"], ["5z"] * 3)
    top = _stack(t, pung[1], lift, along)
    layout = assemble(t.detections(), 1600, 900)
    (meld,) = layout.hand.melds
    assert (meld.kind, meld.tiles, meld.concealed) == ("kong", ("5z",) * 4, False)
    group = next(g for g in layout.groups if g["role"] == "meld")
    assert {k: group[k] for k in ("role", "kind", "concealed")} == {"role": "meld", "kind": "kong", "concealed": False}
    assert sorted(group["tiles"]) == sorted([*pung, top]) and group["tiles"][1:3] == [pung[1], top]
    assert layout.hand.winning_tile == "1z" and sorted(layout.hand.concealed) == sorted(split("123m456p789s1z"))
    assert not any("two boxes" in w for w in layout.warnings)


def test_a_stacked_kong_keeps_its_claimed_tile_turned_sideways():
    t = Table()
    (row, win, pung) = t.row(0, 0, split("123m456p789s1z"), ["1z"], ["5z", "5z", "5z~"])
    _stack(t, pung[1], 0.35)
    (meld,) = assemble(t.detections(), 1600, 900).hand.melds
    assert (meld.kind, meld.claimed, meld.source) == ("kong", "5z", "right")


def test_a_tile_lying_on_a_tile_of_the_concealed_row_makes_no_kong():
    t = Table()
    (row, win) = t.row(0, 0, split("123m456p789s1122z"), ["2z"])
    _stack(t, row[4], 0.35)
    layout = assemble(t.detections(), 1600, 900)
    assert layout.hand is None or not any(m.kind == "kong" for m in layout.hand.melds)
    assert not any(g.get("kind") == "kong" for g in layout.groups)


def test_a_row_behind_a_pung_lends_it_no_fourth_tile():
    t = Table()
    (row, win, pung) = t.row(0, 0, split("123m456p789s1z"), ["1z"], ["5z"] * 3)
    _, x, _, _ = t.dets[pung[0]]
    t.row(x - 2 * (W + 1), -0.95 * W, ["3s", "4s", "5z", "6s", "7s"], gap=0.0)  # another player's row, close behind
    layout = assemble(t.detections(), 1600, 900)
    assert [(m.kind, m.tiles) for m in layout.hand.melds] == [("pung", ("5z",) * 3)]


def test_two_tiles_of_a_code_close_together_off_the_hand_are_read_as_before():
    t = Table()
    t.row(0, 0, split("123m456p789s1122z"), ["2z"])
    ((discard, _, _),) = t.row(0, 300, ["7s", "3p", "9m"])  # discards, and on one another of its code
    plain = assemble(t.detections(), 1600, 900)
    _stack(t, discard, 0.35)
    layout = assemble(t.detections(), 1600, 900)
    assert layout.hand == plain.hand and layout.tile_group[-1] is not None


def _sure(layout, role: str) -> list[float]:
    return [g["sure"] for g in layout.groups if g["role"] == role]


def test_a_meld_set_apart_narrowly_is_less_sure_than_one_set_well_apart():
    wide, narrow = Table(), Table()
    wide.row(0, 0, split("123m456p789s1z"), ["1z"], ["5z"] * 3, gap=1.5)
    narrow.row(0, 0, split("123m456p789s1z"), ["1z"], gap=1.5)
    narrow.row(narrow.dets[-1][1] + W * 1.1, 0, ["5z"] * 3)  # a little over half a tile beyond touching
    (plain,), (close,) = _sure(assemble(wide.detections(), 1600, 900), "meld"), _sure(
        assemble(narrow.detections(), 1600, 900), "meld")
    assert plain == 1.0 and close < 0.5
    assert _sure(assemble(wide.detections(), 1600, 900), "concealed") == [1.0]


@pytest.mark.parametrize("apart", [14, 20, 26])  # pixels beyond touching, a tile being 40 wide
def test_a_winning_tile_set_apart_by_little_is_unsure(apart):
    codes = split("123m456p789s1122z")
    t = Table()
    t.row(0, 0, codes, gap=apart / W)
    t.row(13 * (W + 1) + apart, 0, ["2z"])
    little = assemble(t.detections(), 1600, 900)
    far = Table()
    far.row(0, 0, codes, ["2z"], gap=1.2)
    assert little.hand.winning_tile == "2z" and _sure(little, "winning")[0] <= 0.5
    assert _sure(assemble(far.detections(), 1600, 900), "winning") == [1.0]


def test_groups_of_a_recognition_say_how_sure_they_are():
    t = Table()
    t.row(0, 0, split("123m456p789s1z"), ["1z"], ["5z"] * 3, gap=1.5)
    groups = assemble(t.detections(), 1600, 900).to_json()["groups"]
    assert all(0 < g["sure"] <= 1 for g in groups if g["role"] in ("concealed", "winning", "meld"))
