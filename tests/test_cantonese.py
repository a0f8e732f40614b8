"""雞平和 scoring: every row of the 番 table (a hand that has it, one that just misses), the 爆和 cap and the
3-番 cases. Hands are in compact notation; a discard win comes from North unless a test says otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from mjlens.scoring import Context, HandError, parse
from mjlens.scoring.cantonese import catalog, score_hand
from mjlens.scoring.engine import score
from mjlens.scoring.result import ScoreResult


def cant(text: str, options: dict[str, Any] | None = None, **context: Any) -> ScoreResult:
    """Score ``text`` under cantonese with the given context keys; a discard comes from N unless told."""
    options = dict(options or {})
    ctx = Context(**context)
    discard = not (ctx.self_drawn or ctx.kong_replacement or ctx.heavenly or ctx.earthly or ctx.robbing_kong)
    if discard and "discarder" not in options and ctx.seat_wind != "N":
        options["discarder"] = "N"
    return score_hand(parse(text, ctx), options)


def keys(result: ScoreResult) -> list[str]:
    return [i.key for i in result.items]


def excluded(result: ScoreResult) -> dict[str, str]:
    return {e.key: e.by for e in result.excluded}


# (row, hand that has it, its 番, hand that just misses it, the miss's items)
TABLE_ROWS = [
    ("chicken", "123m456p789s999m5s +5s", 0, "123m456p789s234m5s +5s", ["all_chows"]),
    ("all_chows", "123m456p789s234m5s +5s", 1, "123m456p789s999m5s +5s", ["chicken"]),
    ("all_pungs", "111m222p333s444m5s +5s", 2, "111m222p333s456m5s +5s", ["chicken"]),
    ("half_flush", "123m456m789m222z5m +5m", 2, "123m456m789m222p5m +5m", ["chicken"]),
    ("full_flush", "123m456m789m234m5m +5m", 4, "123m456m789m234m2z +2z", ["half_flush", "all_chows"]),
    ("half_flush_pungs", "111m555m999m222z3z +3z", 4, "111m555m999m222z3p +3p", ["all_pungs"]),
    ("full_flush_pungs", "111m333m555m777m9m +9m", 5, "111m333m555m777m9p +9p", ["all_pungs"]),
    ("mixed_terminals", "111m999p111s222z5z +5z", 5, "111m999p111s222z5m +5m", ["all_pungs"]),
    ("little_dragons", "[555z][666z]123m456m7z +7z", 5, "[555z][666z]123m456m9p +9p", ["chicken", "dragon_pung"]),
    ("little_winds", "[111z][222z][333z]123m4z +4z", 5, "[111z][222z][333z]123p5z +5z",
     ["half_flush", "seat_wind", "round_wind"]),
    ("big_dragons", "[555z][666z][777z]123m9m +9m", 6, "[555z][666z]77z123m9m9m +9m", ["little_dragons"]),
    ("all_honours", "111z222z333z555z6z +6z", 6, "111z222z333z555z9m +9m", ["mixed_terminals"]),
    ("pure_terminals", "111m999m111p999p1s +1s", 6, "111m999m111p999p1z +1z", ["mixed_terminals"]),
    ("big_winds", "111z222z333z444z5m +5m", 6, "111z222z333z44z5m5m +5m", ["little_winds"]),
    ("nine_gates", "1112345678999m +5m", 6, "[111m]2345678999m +5m", ["full_flush"]),
    ("thirteen_orphans", "19m19p19s1234567z +1m", 6, None, None),  # a near miss does not win: see below
]


@pytest.mark.parametrize(("row", "hand", "fan", "miss", "miss_items"), TABLE_ROWS, ids=[r[0] for r in TABLE_ROWS])
def test_every_table_row_has_its_value_and_a_near_miss_lacks_it(row, hand, fan, miss, miss_items):
    got = cant(hand)
    assert row in keys(got)
    assert got.total == fan and got.extra["points"] == 2 ** fan
    if miss is not None:
        missed = cant(miss)
        assert row not in keys(missed)
        assert keys(missed) == miss_items


def test_little_dragons_pair_must_be_a_dragon():
    near = cant("[555z][666z]123m456m9p +9p")
    assert near.total == 2 and [i.count for i in near.items if i.key == "dragon_pung"] == [2]


def test_thirteen_orphans_needs_all_thirteen():
    with pytest.raises(HandError) as err:
        cant("19m19p29s1234567z +1m")
    assert err.value.code == "not_winning"


def test_half_flush_and_all_chows_add_within_the_cap():
    got = cant("123m456m789m234m1z +1z")
    assert sorted(keys(got)) == ["all_chows", "half_flush"] and got.total == 3 and got.extra["points"] == 8


def test_composites_replace_their_parts():
    got = cant("111m555m999m222z3z +3z")
    assert keys(got) == ["half_flush_pungs"]
    assert excluded(got) == {"half_flush": "half_flush_pungs", "all_pungs": "half_flush_pungs"}
    gates = cant("1112345678999m +5m")
    assert keys(gates) == ["nine_gates"] and excluded(gates)["full_flush"] == "nine_gates"


def test_beyond_cap_hands_count_their_highest_pattern_alone():
    got = cant("111z222z333z444z5z +5z")  # 大四喜 and 字一色, both 6: one counts
    assert got.total == 6 and keys(got) == ["big_winds"]
    assert excluded(got) == {"all_honours": "big_winds", "all_pungs": "all_honours",
                             "seat_wind": "big_winds", "round_wind": "big_winds"}


def test_seven_pairs_is_not_a_winning_shape_by_default():
    with pytest.raises(HandError) as err:
        cant("1122m3344p5566s7z +7z")
    assert err.value.code == "not_winning"
    got = cant("1122m3344p5566s7z +7z", {"house_rules": {"rules": {"seven_pairs": True}}})
    assert keys(got) == ["seven_pairs"] and got.total == 4


# --- additions and the 爆和 cap ------------------------------------------------------------------------------


def test_additions_one_each_for_self_draw_winds_and_each_dragon_pung():
    got = cant("[111z]123m456p789s5s +5s", self_drawn=True, seat_wind="S", round_wind="E")
    assert {i.key: i.count for i in got.items} == {"chicken": 1, "self_drawn": 1, "round_wind": 1}
    assert got.total == 2
    seat = cant("[222z]123m456p789s5s +5s", seat_wind="S", round_wind="E", options={"discarder": "E"})
    assert keys(seat) == ["chicken", "seat_wind"] and seat.total == 1
    both = cant("[111z]123m456p789s5s +5s")  # East seat in the East round: both
    assert keys(both) == ["chicken", "seat_wind", "round_wind"] and both.total == 2
    dragons = cant("[555z][666z]123m456p5s +5s")
    assert [(i.key, i.count, i.points) for i in dragons.items] == [("chicken", 1, 0), ("dragon_pung", 2, 2)]


def test_within_cap_sum_is_clipped_at_the_cap_and_says_so():
    got = cant("[777z]123m456m789m5z +5z", self_drawn=True)  # 混一色 2 + 自摸 1 + 中 1 = 4
    assert got.total == 3 and got.extra["capped_from"] == 4 and got.extra["points"] == 8
    assert sum(i.points for i in got.items) == 4
    assert any("爆和" in w and "4" in w for w in got.warnings)


def test_a_within_cap_hand_exactly_at_the_cap_is_not_capped():
    got = cant("123m456m789m234m1z +1z")
    assert got.total == 3 and "capped_from" not in got.extra and not got.warnings


def test_beyond_cap_hands_take_no_additions():
    got = cant("123m456m789m234m5m +5m", self_drawn=True)
    assert got.total == 4 and keys(got) == ["full_flush"]
    assert excluded(got)["self_drawn"] == "full_flush"
    dragons = cant("[555z][666z]123m456m7z +7z", self_drawn=True)
    assert dragons.total == 5 and keys(dragons) == ["little_dragons"]


# --- the 3-番 cases ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "context", "options", "case"),
    [
        ("[1111m]234m567p999s5p +5p", {"kong_replacement": True}, {}, "kong_replacement"),
        ("[1111m]234m567p999s5p +5p", {"kong_replacement": True}, {"kong_feeder": "W"}, "kong_replacement_liable"),
        ("123m456p789s999m5s +5s", {"last_tile": True, "self_drawn": True}, {}, "last_tile"),
        # the robbed tile completes a chow: a hand holding another copy of it could not have robbed it
        ("123m456p78s999m55s +9s", {"robbing_kong": True}, {"discarder": "S"}, "robbing_kong"),
        ("123m456p789s999m5s +5s", {}, {"discarder": "N", "other_winners": ["S", "W"]}, "three_winners"),
    ],
)
def test_three_fan_cases_raise_a_hand_under_three(hand, context, options, case):
    got = cant(hand, options, **context)
    assert got.total == 3 and got.extra["points"] == 8
    assert case in keys(got)
    assert got.extra["raised_from"] < 3
    assert sum(i.points for i in got.items) == 3


def test_three_fan_cases_leave_bigger_hands_alone():
    got = cant("[1111m]234m567m999m5m +5m", kong_replacement=True)
    assert got.total == 4 and keys(got) == ["full_flush"] and "raised_from" not in got.extra


def test_last_tile_on_a_discard_and_two_winners_are_not_three_fan_cases():
    assert cant("123m456p789s999m5s +5s", last_tile=True).total == 0
    assert cant("123m456p789s999m5s +5s", {"other_winners": ["S"]}).total == 0


def test_only_one_three_fan_case_counts():
    got = cant("[1111m]234m567p999s5p +5p", kong_replacement=True, last_tile=True)
    assert got.total == 3 and excluded(got) == {"last_tile": "kong_replacement"}


@pytest.mark.parametrize(
    ("context", "key"),
    [({"heavenly": True}, "heavenly"), ({"earthly": True, "dealer": False}, "earthly"),
     ({"human": True, "dealer": False}, "human")],
)
def test_heavenly_earthly_human_are_beyond_cap_hands(context, key):
    got = cant("123m456p789s999m5s +5s", **context)
    assert keys(got) == [key] and got.total == 6


@pytest.mark.parametrize(
    ("hand", "context"),
    [
        ("123m456p789s999m5s +5s", {"heavenly": True, "dealer": False}),
        ("123m456p789s999m5s +5s", {"earthly": True}),
        ("123m456p789s999m5s +5s", {"human": True, "dealer": False, "self_drawn": True}),
        ("[123m]456p789s999m5s +5s", {"human": True, "dealer": False}),
        ("123m456p789s999m5s +5s", {"heavenly": True, "earthly": True}),
        ("123m456p789s999m5s +5s", {"kong_replacement": True}),
        ("[1111m]234m567p999s5p +5p", {"kong_replacement": True, "robbing_kong": True}),
    ],
)
def test_impossible_contexts_are_bad_context(hand, context):
    with pytest.raises(HandError) as err:
        cant(hand, **context)
    assert err.value.code == "bad_context"


# --- result shape -------------------------------------------------------------------------------------------


def test_result_json_has_points_decomposition_and_settlement():
    out = score(parse("123m456p789s234m5s +5s"), "cantonese", {"discarder": "W"}).to_json()
    assert out["valid"] and out["unit"] == "fan" and out["points"] == 2 and out["minimum"] == 0
    assert sorted(map(tuple, out["decomposition"])) == sorted(
        [("1m", "2m", "3m"), ("2m", "3m", "4m"), ("4p", "5p", "6p"), ("7s", "8s", "9s"), ("5s", "5s")])
    assert out["settlement"] == {"E": 2, "S": 0, "W": -2, "N": 0}


def test_best_reading_is_chosen():
    got = cant("111m222m333m789m5m +5m")  # three chows 123 or three pungs: 清一色 4 either way, 清碰 impossible
    assert got.total == 4
    pungs = cant("111m222m333m999m5m +5m")  # pungs reading: 清碰 5 beats 清一色 4
    assert keys(pungs) == ["full_flush_pungs"] and pungs.total == 5


def test_tile_count_and_not_winning_are_errors():
    for text, code in [("123m456p789s234m +5s", "tile_count"), ("123m456p789s235m5s +5s", "not_winning")]:
        result = score(parse(text), "cantonese", {"discarder": "N"})
        assert not result.valid and result.error.code == code


def test_flowers_carry_no_fan_and_are_reported():
    got = cant("123m456p789s234m5s 1f +5s")
    assert got.total == 1 and any("bonus" in w for w in got.warnings)


def test_unknown_winning_tile_scores_the_best_reading():
    hand = parse("123m456m789m234m5m5m")
    result = score(hand, "cantonese", {"discarder": "N"})
    assert result.valid and result.total == 4 and result.extra["winning_tile"]


def test_catalog_lists_every_row_with_value_and_cap_side():
    rows = {r["key"]: r for r in catalog()}
    assert rows["chicken"]["value"] == 0 and rows["chicken"]["within_cap"]
    assert rows["full_flush"]["value"] == 4 and not rows["full_flush"]["within_cap"]
    assert rows["thirteen_orphans"]["value"] == 6 and rows["kong_replacement"]["value"] == 3
    assert all({"key", "name_zh", "name_en", "value", "within_cap"} <= set(r) for r in rows.values())


def test_equal_special_patterns_show_one_in_the_documented_order():
    got = cant("111m999p555z666z7z +7z")  # 小三元 5 and 混幺九 5
    assert keys(got) == ["little_dragons"] and got.total == 5
    assert excluded(got)["mixed_terminals"] == "little_dragons"
    orphans = cant("19m19p19s1234567z +1m", heavenly=True)
    assert keys(orphans) == ["thirteen_orphans"] and excluded(orphans)["heavenly"] == "thirteen_orphans"
