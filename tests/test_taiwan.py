"""Taiwan 16-tile scorer: for every item 1-36 a hand that has it and one that just misses it, flowers,
flower wins, the exclusions, and bad input."""

from __future__ import annotations

from typing import Any

import pytest

from mjlens.scoring import engine
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Context
from mjlens.scoring.notation import parse
from mjlens.scoring.taiwan import catalog
from mjlens.scoring.taiwan.detect import DETECTORS
from mjlens.scoring.taiwan.options import parse_options

PINGHU = "123m456m789m234p55p67s +8s"  # five chows, two-sided wait, no honours: 平胡 on a discard


def score(text: str, options: dict[str, Any] | None = None, **ctx: Any) -> dict:
    """Score compact notation under the taiwan rules; the discarder defaults to S (not the dealer)."""
    opts = dict(options or {})
    if not ctx.get("self_drawn") and "discarder" not in opts and ctx.get("seat_wind", "E") != "S":
        opts["discarder"] = "S"
    return engine.score(parse(text, Context(**ctx)), "taiwan", opts).to_json()


def keys(result: dict) -> dict[str, int]:
    assert result["valid"], result.get("error")
    return {i["key"]: i["points"] for i in result["items"]}


def excluded(result: dict) -> dict[str, str]:
    return {e["key"]: e["by"] for e in result["excluded"]}


# (item key, hand, context, options, expected points) that has the item ...
HITS = [
    ("seat_wind", "123m456m789m234p222z5p +5p", {"seat_wind": "S", "dealer": False}, {}, 1),
    ("round_wind", "123m456m789m234p222z5p +5p", {"round_wind": "S"}, {}, 1),
    ("dragon_pung", "123m456m789m555z666z5p +5p", {}, {}, 2),
    ("concealed", PINGHU, {}, {}, 1),
    ("concealed_self_drawn", PINGHU, {"self_drawn": True}, {}, 2),
    ("all_melded", "[123m][456m][789m][234p][678s] 5p +5p", {}, {}, 2),
    ("half_melded", "[123m][456m][789m][234p][678s] 5p +5p", {"self_drawn": True}, {}, 1),
    ("all_chows", PINGHU, {}, {}, 2),
    ("all_pungs", "[111m][222p] 333s444m999p5s +5s", {}, {}, 4),
    ("dealer", PINGHU, {}, {}, 1),
    ("dealer_streak", PINGHU, {"dealer_streak": 2}, {}, 4),
    ("single_wait", "123m456m789m234p55p79s +8s", {}, {}, 1),
    ("robbing_kong", PINGHU, {"robbing_kong": True}, {}, 1),
    ("all_honours", "[111z][222z][333z][555z] 666z7z +7z", {}, {}, 16),
    ("all_honours_overlap", "[111z][222z][333z][555z] 666z7z +7z", {}, {}, -4),
    ("full_flush", "123m456m789m123m456m9m +9m", {}, {}, 12),
    ("half_flush", "123m456m789m123m111z9m +9m", {}, {}, 4),
    ("three_concealed_pungs", "111m222p456m789p33s44s +4s", {"self_drawn": True}, {}, 2),
    ("four_concealed_pungs", "111m222p333s444m567p9s +9s", {}, {}, 5),
    ("five_concealed_pungs", "111m222p333s444m777p9s +9s", {}, {}, 13),
    ("big_four_winds", "[111z][222z][333z][444z] 123m5m +5m", {}, {}, 16),
    ("little_four_winds", "[111z][222z][333z] 123m456m4z +4z", {}, {}, 8),
    ("big_three_dragons", "[555z][666z][777z] 123m456m9m +9m", {}, {}, 8),
    ("little_three_dragons", "[555z][666z] 123m456m789m7z +7z", {}, {}, 4),
    ("self_drawn", "[123m] 456m789m234p55p67s +8s", {"self_drawn": True}, {}, 1),
    ("kong_replacement", "[1111m] 456m789m234p55p67s +8s", {"self_drawn": True, "kong_replacement": True}, {}, 1),
    ("last_tile", PINGHU, {"self_drawn": True, "last_tile": True}, {}, 1),
    ("seat_flower", "123m456m789m234p55p67s 1f5f +8s", {}, {}, 2),
    ("flower_kong", "123m456m789m234p55p67s 1f2f3f4f +8s", {}, {}, 2),
    ("all_flowers", "123m456m789m234p55p67s 1f2f3f4f5f6f7f8f +8s", {}, {}, 8),
    ("eight_immortals", "123m456m789m234p55p3s9s 1f2f3f4f5f6f7f8f +2s", {}, {}, 8),
    ("seven_rob_one", "123m456m789m234p55p3s9s 1f2f3f4f5f6f7f +2s", {}, {"bonus_win": "seven_rob_one"}, 8),
    ("heavenly_ready", PINGHU, {"dealer": False, "seat_wind": "W"}, {"ready": "heavenly"}, 8),
    ("earthly_ready", PINGHU, {"declared_ready": True}, {}, 4),
    ("heavenly", PINGHU, {"heavenly": True, "self_drawn": True}, {}, 16),
    ("earthly", PINGHU, {"earthly": True, "dealer": False, "seat_wind": "W"}, {}, 16),
    ("human", PINGHU, {"human": True, "declared_ready": True}, {}, 8),
    ("seven_pairs_pung", "1133557799m22p4p666s +4p", {}, {}, 8),
]

# ... and one that just misses it (the item is neither counted nor set aside).
MISSES = [
    ("seat_wind", "123m456m789m234p222z5p +5p", {"seat_wind": "W", "dealer": False}, {}),
    ("round_wind", "123m456m789m234p222z5p +5p", {"round_wind": "W"}, {}),
    ("dragon_pung", "123m456m789m444z888p5p +5p", {}, {}),
    ("concealed", "[123m] 456m789m234p55p67s +8s", {}, {}),
    ("concealed_self_drawn", "[123m] 456m789m234p55p67s +8s", {"self_drawn": True}, {}),
    ("all_melded", "[123m][456m][789m][234p][678s] 5p +5p", {"self_drawn": True}, {}),
    ("half_melded", "[123m][456m][789m][234p] 678s5p +5p", {"self_drawn": True}, {}),
    ("all_chows", PINGHU, {"self_drawn": True}, {}),
    ("all_pungs", "[111m][222p] 333s456m999p5s +5s", {}, {}),
    ("dealer", PINGHU, {"dealer": False, "seat_wind": "W"}, {"dealer_seat": "E", "discarder": "S"}),
    ("dealer_streak", PINGHU, {"dealer_streak": 0}, {}),
    ("single_wait", PINGHU, {}, {}),
    ("robbing_kong", PINGHU, {}, {}),
    ("all_honours", "[111z][222z][333m][555z] 666z7z +7z", {}, {}),
    ("all_honours_overlap", "[555z][666z][777z] 123m456m9m +9m", {}, {}),
    ("full_flush", "123m456m789m123p456m9m +9m", {}, {}),
    ("half_flush", "123m456m789m123p111z9m +9m", {}, {}),
    ("three_concealed_pungs", "111m222p456m789p33s44s +4s", {}, {}),
    ("four_concealed_pungs", "[444m] 111m222p333s567p9s +9s", {}, {}),
    ("five_concealed_pungs", "111m222p333s444m77p99s +7p", {}, {}),
    ("big_four_winds", "[111z][222z][333z][444m] 123m5m +5m", {}, {}),
    ("little_four_winds", "[111z][222z][333z] 123m456m5m +5m", {}, {}),
    ("big_three_dragons", "[555z][666z] 789m123m456m9m +9m", {}, {}),
    ("little_three_dragons", "[555z][666z] 123m456m789m9m +9m", {}, {}),
    ("self_drawn", "[123m] 456m789m234p55p67s +8s", {}, {}),
    ("kong_replacement", "[1111m] 456m789m234p55p67s +8s", {"self_drawn": True}, {}),
    ("last_tile", PINGHU, {"last_tile": True}, {}),
    ("seat_flower", "123m456m789m234p55p67s 2f6f +8s", {}, {}),
    ("flower_kong", "123m456m789m234p55p67s 1f2f3f5f6f7f +8s", {}, {}),
    ("all_flowers", "123m456m789m234p55p67s 1f2f3f4f5f6f7f +8s", {}, {}),
    ("eight_immortals", "123m456m789m234p55p67s 1f2f3f4f5f6f7f8f +8s", {}, {}),
    ("seven_rob_one", "123m456m789m234p55p67s 1f2f3f4f5f6f7f +8s", {}, {}),
    ("heavenly_ready", PINGHU, {"dealer": False, "seat_wind": "W"}, {}),
    ("earthly_ready", PINGHU, {"declared_ready": False}, {}),
    ("heavenly", PINGHU, {"self_drawn": True}, {}),
    ("earthly", PINGHU, {"dealer": False, "seat_wind": "W"}, {}),
    ("human", PINGHU, {"declared_ready": True}, {}),
    ("seven_pairs_pung", "112233m445566p789s7s +7s", {}, {}),
]


@pytest.mark.parametrize(("key", "hand", "ctx", "opts", "points"), HITS, ids=[h[0] for h in HITS])
def test_item_hit(key: str, hand: str, ctx: dict, opts: dict, points: int) -> None:
    assert keys(score(hand, opts, **ctx)).get(key) == points


@pytest.mark.parametrize(("key", "hand", "ctx", "opts"), MISSES, ids=[m[0] for m in MISSES])
def test_item_miss(key: str, hand: str, ctx: dict, opts: dict) -> None:
    result = score(hand, opts, **ctx)
    assert key not in keys(result)
    assert key not in excluded(result)


def test_every_item_is_tested_both_ways() -> None:
    table = {item["key"] for item in catalog()}
    assert table == {h[0] for h in HITS} == {m[0] for m in MISSES}
    assert table - {"dealer", "dealer_streak"} == set(DETECTORS)
    numbers = {item["no"] for item in catalog()}
    assert numbers == set(range(1, 37)) - {27, 28}  # 27/28 say how a flower win happens; 29/30 score it


def test_catalog_entries_are_complete() -> None:
    for item in catalog():
        assert {"key", "name_zh", "name_en", "value"} <= set(item)
        assert isinstance(item["value"], int)


# -- exact totals of whole hands ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "ctx", "expected"),
    [
        # 門清 1 + 平胡 2 + 作莊 1
        (PINGHU, {}, {"concealed": 1, "all_chows": 2, "dealer": 1}),
        # 門清一摸三: 門清 1 + 不求 2 (自摸 set aside), no 平胡 when self-drawn
        (PINGHU, {"self_drawn": True}, {"concealed": 1, "concealed_self_drawn": 2, "dealer": 1}),
        # 全求 2 + 獨聽 1
        ("[123m][456m][789m][234p][678s] 5p +5p", {}, {"all_melded": 2, "single_wait": 1, "dealer": 1}),
        # 半求 1 + 獨聽 1 + 自摸 1
        ("[123m][456m][789m][234p][678s] 5p +5p", {"self_drawn": True},
         {"half_melded": 1, "single_wait": 1, "self_drawn": 1, "dealer": 1}),
        # 五暗坎 self-drawn: 13 + 不求 2, without 門清 and 對對胡
        ("111m222p333s444m777p9s +9s", {"self_drawn": True},
         {"five_concealed_pungs": 13, "concealed_self_drawn": 2, "single_wait": 1, "dealer": 1}),
        # 字一色 16 + 大四喜 16 - 4, 獨聽 1; winds and 對對胡 not counted
        ("[111z][222z][333z][444z] 555z6z +6z", {},
         {"all_honours": 16, "big_four_winds": 16, "all_honours_overlap": -4, "dragon_pung": 1, "single_wait": 1,
          "dealer": 1}),
        # 小四喜 keeps the seat and round wind
        ("[111z][222z][333z] 123m456m4z +4z", {},
         {"little_four_winds": 8, "seat_wind": 1, "round_wind": 1, "half_flush": 4, "single_wait": 1, "dealer": 1}),
        # 天胡 16: no 門清一摸三, no 獨聽
        ("123m456m789m234p55p79s +8s", {"heavenly": True, "self_drawn": True}, {"heavenly": 16, "dealer": 1}),
    ],
)
def test_whole_hand_items(hand: str, ctx: dict, expected: dict[str, int]) -> None:
    result = score(hand, **ctx)
    assert keys(result) == expected
    assert result["total"] == sum(expected.values())


def test_exclusions_name_the_item_that_excludes() -> None:
    result = score("[111z][222z][333z][444z] 555z6z +6z")
    assert excluded(result) == {"all_pungs": "all_honours", "seat_wind": "big_four_winds",
                                "round_wind": "big_four_winds"}
    assert excluded(score("111m222p333s444m777p9s +9s", self_drawn=True)) == {
        "three_concealed_pungs": "five_concealed_pungs", "four_concealed_pungs": "five_concealed_pungs",
        "concealed": "five_concealed_pungs", "all_pungs": "five_concealed_pungs",
        "self_drawn": "concealed_self_drawn"}
    assert excluded(score("[555z][666z][777z] 123m456m9m +9m")) == {"dragon_pung": "big_three_dragons"}


def test_ready_hands_drop_concealed_but_add_self_draw() -> None:
    heavenly_ready = score(PINGHU, {"ready": "heavenly"}, dealer=False, seat_wind="W", self_drawn=True)
    assert keys(heavenly_ready) == {"heavenly_ready": 8, "concealed_self_drawn": 2}
    earthly = score(PINGHU, {"ready": "heavenly"}, dealer=False, seat_wind="W", earthly=True)
    assert excluded(earthly)["heavenly_ready"] == "earthly"
    human = score(PINGHU, human=True, declared_ready=True, self_drawn=True)
    assert keys(human) == {"human": 8, "concealed_self_drawn": 2, "dealer": 1}
    assert excluded(human)["earthly_ready"] == "human"


def test_concealed_pung_completed_by_a_discard_is_not_concealed() -> None:
    # 33s 44s waiting on either: on a discard of 4s only 111m and 222p are 暗坎
    assert "three_concealed_pungs" not in keys(score("111m222p456m789p33s44s +4s"))
    # the winning tile is placed where it scores best: 1112 3m + 1m reads as 111m 123m with the 1m in the chow
    result = score("11123m222p333p456s99s +1m")
    assert keys(result)["three_concealed_pungs"] == 2
    assert ["1m", "2m", "3m"] in result["decomposition"] and ["1m", "1m", "1m"] in result["decomposition"]


def test_seven_pairs_pung_keeps_valued_pung_and_flush() -> None:
    result = score("1133557799m22m4m555z +4m")
    assert keys(result)["seven_pairs_pung"] == 8
    assert keys(result)["dragon_pung"] == 1
    assert keys(result)["half_flush"] == 4
    assert excluded(result)["concealed"] == "seven_pairs_pung"
    off = score("1133557799m22p4p666s +4p", {"seven_pairs_pung": False})
    assert off["error"]["code"] == "not_winning"


# -- flowers and flower wins ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flowers", "seat", "expected"),
    [
        ("1f", "E", {"seat_flower": 1}),
        ("5f", "E", {"seat_flower": 1}),
        ("1f5f", "E", {"seat_flower": 2}),
        ("2f6f", "S", {"seat_flower": 2}),
        ("3f", "E", {}),
        ("1f2f3f4f", "E", {"flower_kong": 2}),
        ("1f2f3f4f6f", "S", {"flower_kong": 2, "seat_flower": 1}),
        ("1f2f3f4f5f6f7f8f", "E", {"all_flowers": 8}),
    ],
)
def test_flower_items(flowers: str, seat: str, expected: dict[str, int]) -> None:
    ctx = {"seat_wind": seat, "dealer": seat == "E"}
    options = {"discarder": "W"}
    got = {k: v for k, v in keys(score(f"{PINGHU[:-4]} {flowers} +8s", options, **ctx)).items()
           if k in ("seat_flower", "flower_kong", "all_flowers")}
    assert got == expected
    assert "all_chows" not in keys(score(f"{PINGHU[:-4]} {flowers} +8s", options, **ctx))  # 平胡: 無花


def test_eight_immortals_wins_without_a_hand_and_three_pay() -> None:
    result = score("123m456m789m234p55p3s9s 1f2f3f4f5f6f7f8f +2s", dealer=False, seat_wind="S")
    assert keys(result) == {"eight_immortals": 8}
    assert result["decomposition"] == []
    assert result["settlement"] == {"E": -(100 + 9 * 20), "S": 2 * 260 + 280, "W": -260, "N": -260}
    assert any("flower win" in w for w in result["warnings"])


def test_eight_immortals_on_a_winning_hand_adds_to_it() -> None:
    # 002 item 29: "如補得之牌恰為杠上開花, 牌面台數照算加計八仙過海8台": the replacement tile completed the hand,
    # so 槓上開花 1 and the self-draw (門清一摸三 here) count with 八仙過海, whether or not the context says so.
    expected = {"concealed": 1, "concealed_self_drawn": 2, "kong_replacement": 1, "eight_immortals": 8, "dealer": 1}
    for ctx in ({"self_drawn": True}, {}, {"self_drawn": True, "kong_replacement": True}):
        result = score(f"{PINGHU[:-4]} 1f2f3f4f5f6f7f8f +8s", {"bonus_win": "eight_immortals"}, **ctx)
        assert keys(result) == expected, ctx
        assert excluded(result)["all_flowers"] == "eight_immortals"
    # 天胡 on the first draw after being dealt all eight (item 28) is not a replacement win
    heavenly = score(f"{PINGHU[:-4]} 1f2f3f4f5f6f7f8f +8s", {"bonus_win": "eight_immortals"}, heavenly=True)
    assert "kong_replacement" not in keys(heavenly)


def test_seven_rob_one_on_a_winning_hand_is_a_replacement_win_paid_by_the_robbed() -> None:
    # item 30: "如補得之牌恰為杠上開花, 牌面台數照算加計七搶一8台 ..., 仍視同被搶花者放銃".
    result = score(f"{PINGHU[:-4]} 1f2f3f4f5f6f7f +8s", {"bonus_win": "seven_rob_one", "discarder": "W"},
                   dealer=False, seat_wind="S")
    assert keys(result) == {"concealed": 1, "concealed_self_drawn": 2, "kong_replacement": 1, "seven_rob_one": 8}
    assert result["settlement"] == {"E": 0, "S": 100 + 12 * 20, "W": -(100 + 12 * 20), "N": 0}


def test_seven_rob_one_the_robbed_player_pays_alone() -> None:
    result = score("123m456m789m234p55p3s9s 1f2f3f4f5f6f7f +2s", {"bonus_win": "seven_rob_one", "discarder": "W"},
                   dealer=False, seat_wind="S")
    assert keys(result) == {"seven_rob_one": 8}
    assert result["settlement"] == {"E": 0, "S": 260, "W": -260, "N": 0}
    assert any("8f" in w for w in result["warnings"])
    # robbing from the dealer: 作莊 counts on that payment
    from_dealer = score("123m456m789m234p55p3s9s 1f2f3f4f5f6f7f +2s",
                        {"bonus_win": "seven_rob_one", "discarder": "E"}, dealer=False, seat_wind="S")
    assert keys(from_dealer) == {"seven_rob_one": 8, "dealer": 1}


@pytest.mark.parametrize(
    ("text", "options", "code"),
    [
        ("123m456m789m234p55p3s9s 1f2f3f4f5f6f +2s", {"bonus_win": "seven_rob_one"}, "bad_option"),
        ("123m456m789m234p55p3s9s 1f2f3f4f5f6f7f +2s", {}, "not_winning"),
        (PINGHU, {"bonus_win": "eight_immortals"}, "bad_option"),
        (PINGHU, {"bonus_win": "nine_dragons"}, "bad_option"),
    ],
)
def test_flower_win_errors(text: str, options: dict, code: str) -> None:
    assert score(text, options)["error"]["code"] == code


# -- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ctx", "options", "code"),
    [
        ("123m456m789m234p55p6s +8s", {}, {}, "tile_count"),  # 16 tiles
        ("123m456m789m234p55p667s +8s", {}, {}, "tile_count"),  # 18 tiles
        ("123m456m789m234p55p68s +1z", {}, {}, "not_winning"),
        (PINGHU, {}, {"colour": "red"}, "bad_option"),
        (PINGHU, {}, {"stakes": "100-20"}, "bad_option"),
        (PINGHU, {}, {"stakes": {"base": -1, "per_tai": 20}}, "bad_option"),
        (PINGHU, {}, {"discarder": "X"}, "bad_option"),
        (PINGHU, {}, {"discarder": "E"}, "bad_option"),  # the winner
        (PINGHU, {}, {"dealer_seat": "S"}, "bad_option"),  # the winner is dealer
        (PINGHU, {"dealer": False}, {"dealer_seat": "E"}, "bad_option"),
        (PINGHU, {}, {"values": {"nope": 1}}, "bad_option"),
        (PINGHU, {}, {"ready": "heavenly"}, "bad_option"),  # 天聽 is for non-dealers
        (PINGHU, {"declared_ready": False}, {"ready": "earthly"}, "bad_option"),
        (PINGHU, {}, {"seven_pairs_pung": "yes"}, "bad_option"),
        (PINGHU, {"heavenly": True, "dealer": False, "seat_wind": "S"}, {}, "bad_context"),
        (PINGHU, {"earthly": True}, {}, "bad_context"),  # the dealer cannot have 地胡
        (PINGHU, {"heavenly": True, "human": True}, {}, "bad_context"),
        (PINGHU, {"robbing_kong": True, "self_drawn": True}, {}, "bad_context"),
        ("[123m] 456m789m234p55p67s +8s", {"declared_ready": True}, {}, "bad_context"),
        ("[123m] 456m789m234p55p67s +8s", {"human": True}, {}, "bad_context"),
    ],
)
def test_bad_input_codes(text: str, ctx: dict, options: dict, code: str) -> None:
    result = score(text, options, **ctx)
    assert result["valid"] is False
    assert result["error"]["code"] == code


def test_five_copies_is_too_many() -> None:
    hand = {"concealed": ["1m"] * 5 + ["2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "5z"],
            "winning_tile": "1z", "melds": []}
    result = engine.score(hand, "taiwan").to_json()
    assert result["error"]["code"] == "too_many_copies"


def test_unknown_winning_tile_takes_the_best_reading() -> None:
    hand = parse("123m456m789m234p55p678s")
    result = engine.score(hand, "taiwan", {"discarder": "S"})
    assert result.valid and result.unit == "tai"
    assert any("winning tile unknown" in w for w in result.warnings)


def test_kong_replacement_without_self_drawn_is_counted_self_drawn() -> None:
    result = score("[1111m] 456m789m234p55p67s +8s", kong_replacement=True)
    assert keys(result) == {"kong_replacement": 1, "self_drawn": 1, "dealer": 1}
    assert any("self-drawn" in w for w in result["warnings"])


def test_an_unknown_house_rule_is_named_as_one() -> None:
    with pytest.raises(HandError) as err:
        parse_options({"house_rules": {"rules": {"cap": 5}}})
    assert err.value.code == "bad_option" and "house rule(s): rules" in err.value.message


def test_house_values_replace_the_table() -> None:
    result = score(PINGHU, {"values": {"all_chows": 3}, "house_rules": {"values": {"all_chows": 5}}})
    assert keys(result)["all_chows"] == 3
    result = score(PINGHU, {"house_rules": {"values": {"all_chows": 5}, "stakes": "50/10"}})
    assert keys(result)["all_chows"] == 5
    assert result["settlement_detail"]["stakes"] == {"base": 50, "per_tai": 10}
