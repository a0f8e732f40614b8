"""Taiwan 16-tile: the classic hands players check first, each valued by hand from rule document 002
(items 1-36 and the counting principle) and the rules README, then compared with the scorer.

Every expectation below is the sum worked out from the rule text quoted beside it, not read off the code.
The winner sits South and is not the dealer (East) unless a test says otherwise, so 作莊 shows only where
the dealer pays; a discard comes from East (the dealer) or West as stated.
"""

from __future__ import annotations

from typing import Any

import pytest

from mjlens.scoring import engine
from mjlens.scoring.hand import Context
from mjlens.scoring.notation import parse

SOUTH = {"seat_wind": "S", "dealer": False}


def score(text: str, options: dict[str, Any] | None = None, **ctx: Any) -> dict:
    result = engine.score(parse(text, Context(**{**SOUTH, **ctx})), "taiwan", options or {}).to_json()
    assert result["valid"], result.get("error")
    return result


def items(result: dict) -> dict[str, int]:
    return {i["key"]: i["points"] for i in result["items"]}


WEST = {"discarder": "W"}  # a non-dealer discards: no 作莊


def test_concealed_self_draw_is_men_qing_yi_mo_san() -> None:
    # 002 item 4: "不求.自摸 2台 ... 與門清合稱 門清一摸三": 門清 1 + 不求 2 = 3, no separate 自摸.
    result = score("123m456m789m234p55p67s +8s", self_drawn=True)
    assert items(result) == {"concealed": 1, "concealed_self_drawn": 2}
    assert result["total"] == 3


def test_all_chows_concealed_and_open() -> None:
    # item 7: 平胡 2 "有將、無花、無字、無坎、非獨聽、非自摸. 允許門清加1台".
    assert items(score("123m456m789m234p55p67s +8s", WEST)) == {"concealed": 1, "all_chows": 2}
    assert items(score("[123m] 456m789m234p55p67s +8s", WEST)) == {"all_chows": 2}


@pytest.mark.parametrize(("text", "ctx", "why"), [
    ("123m456m789m234p55p79s +8s", {}, "獨聽 (closed wait)"),
    ("123m456m789m234p55p67s +8s", {"self_drawn": True}, "自摸"),
    ("123m456m789m234p11z67s +8s", {}, "字 (an honour pair)"),
    ("123m456m789m234p55p67s 2f +8s", {}, "花"),
    ("123m456m789m222p55p67s +8s", {}, "坎 (a pung)"),
])
def test_all_chows_misses(text: str, ctx: dict, why: str) -> None:
    assert "all_chows" not in items(score(text, WEST, **ctx)), why


def test_all_melded_with_single_wait_is_three() -> None:
    # item 5: 全求 2 "加計獨聽1台, 共3台".
    result = score("[123m][456m][789m][234p][678s] 5p +5p", WEST)
    assert items(result) == {"all_melded": 2, "single_wait": 1}


def test_half_melded_with_single_wait_and_self_draw_is_three() -> None:
    # item 6: 半求 1 "含獨聽.自摸共3台".
    result = score("[123m][456m][789m][234p][678s] 5p +5p", self_drawn=True)
    assert items(result) == {"half_melded": 1, "single_wait": 1, "self_drawn": 1}


def test_three_concealed_pungs_not_when_a_discard_completes_the_third() -> None:
    # item 16: 三暗坎 counts "配得或摸得之坎子": a pung finished by another player's discard is not one.
    on_discard = score("111m222p[333s][456m]55s77s +7s", WEST)
    assert "three_concealed_pungs" not in items(on_discard)
    drawn = score("111m222p[333s][456m]55s77s +7s", self_drawn=True)
    assert items(drawn) == {"three_concealed_pungs": 2, "self_drawn": 1}
    # three in hand, the discard completing a fourth: still three concealed
    assert items(score("111m222p333s[456m]55s77s +7s", WEST)) == {"three_concealed_pungs": 2}


def test_five_concealed_pungs() -> None:
    # item 18: 五暗坎 13 "不計門清.對對胡; 如為自摸, 加計不求"; the honour pair is a single wait (獨聽 1).
    drawn = score("111m222m333p444p555s1z +1z", self_drawn=True)
    assert items(drawn) == {"five_concealed_pungs": 13, "concealed_self_drawn": 2, "single_wait": 1}
    on_discard = score("111m222m333p444p555s1z +1z", WEST)
    assert items(on_discard) == {"five_concealed_pungs": 13, "single_wait": 1}
    # the fifth pung completed by a discard: 四暗坎 5 + 對對胡 4 + 門清 1
    shanpon = score("111m222m333p444p55s66s +6s", WEST)
    assert items(shanpon) == {"four_concealed_pungs": 5, "all_pungs": 4, "concealed": 1}


def test_big_and_little_three_dragons() -> None:
    # items 21, 22: 大三元 8, 小三元 4, "箭字坎不另計台"; three dragon pungs in hand are also 三暗坎.
    big = score("555z666z777z123m456m1p +1p", WEST)
    assert items(big) == {"big_three_dragons": 8, "concealed": 1, "single_wait": 1, "three_concealed_pungs": 2}
    little = score("[555z][666z] 123m456m789m7z +7z", WEST)
    assert items(little) == {"little_three_dragons": 4, "single_wait": 1, "half_flush": 4}  # 萬 and honours


def test_little_four_winds_keeps_the_wind_tai_big_four_winds_does_not() -> None:
    # item 20: 小四喜 8 "合圈序加1台, 合開門序加1台"; item 19: 大四喜 16 "圈序與開門序不另計台".
    little = score("[111z][222z][333z] 123m456m4z +4z", WEST)  # E round pung, S seat pung
    assert items(little) == {"little_four_winds": 8, "round_wind": 1, "seat_wind": 1, "half_flush": 4,
                             "single_wait": 1}
    big = score("[111z][222z][333z][444z] 123m5m +5m", WEST)
    assert items(big) == {"big_four_winds": 16, "half_flush": 4, "single_wait": 1}


def test_all_honours_with_a_dragon_hand_less_four() -> None:
    # item 13: 字一色 16, "不計對對胡", with 大/小四喜 or 大/小三元 "累計台數後減除4台".
    result = score("555z666z777z111z2z [444z] +2z", WEST)  # round E: 東 pung is 圈風; seat S: 南 is the pair
    assert items(result) == {"all_honours": 16, "all_honours_overlap": -4, "big_three_dragons": 8,
                             "round_wind": 1, "four_concealed_pungs": 5, "single_wait": 1}
    assert result["total"] == 27


def test_full_flush() -> None:
    # item 14: 清一色 12; with 門清 and 平胡 on a two-sided wait.
    assert items(score("123m456m789m234m55m67m +8m", WEST)) == {"full_flush": 12, "concealed": 1, "all_chows": 2}


def test_flowers_own_seat_and_flower_kong() -> None:
    # item 26: 花牌 "合開門序1台", "持同色花杠改計2台", "持滿花(8花牌)改計8台". South owns 2f and 6f.
    assert items(score("[123m] 456m789m234p55p67s 2f6f1f +8s", WEST)) == {"seat_flower": 2}
    assert items(score("[123m] 456m789m234p55p67s 1f2f3f4f6f +8s", WEST)) == {"flower_kong": 2, "seat_flower": 1}
    assert items(score("[123m] 456m789m234p55p67s 1f2f3f4f5f6f7f8f +8s", WEST)) == {"all_flowers": 8}


def test_robbing_a_kong() -> None:
    # item 12: 搶槓 1, a win on another player's tile (門清 still counts).
    result = score("123m456m789m234p55p67s +8s", WEST, robbing_kong=True)
    assert items(result) == {"concealed": 1, "all_chows": 2, "robbing_kong": 1}


def test_robbing_a_kong_of_a_tile_the_hand_holds_is_not_counted() -> None:
    # The robbed tile is the fourth copy of a pung on the table: a hand holding another copy cannot rob it.
    result = score("[123m] 456m789m234p88s67s +8s", WEST, robbing_kong=True)
    assert "robbing_kong" not in items(result)
    assert any("搶槓 not counted" in w for w in result["warnings"])


def test_last_tile_and_kong_replacement_add_self_draw() -> None:
    # item 25: 海底撈月 1 "加計自摸1台"; item 24: 槓上開花 1 "加計自摸1台".
    assert items(score("[123m] 456m789m234p55p67s +8s", self_drawn=True, last_tile=True)) == {
        "self_drawn": 1, "last_tile": 1}
    assert items(score("(1111m) 456m789m234p55p67s +8s", self_drawn=True, kong_replacement=True)) == {
        "concealed": 1, "concealed_self_drawn": 2, "kong_replacement": 1}


def test_a_win_on_the_last_discard_is_not_an_item() -> None:
    # 河底撈魚 is not among 002's 36 items: nothing is counted for it, and a warning says so.
    result = score("[123m] 456m789m234p55p67s +8s", WEST, last_tile=True)
    assert items(result) == {"all_chows": 2}
    assert any("河底" in w for w in result["warnings"])


def test_settlement_with_dealer_streak() -> None:
    # item 10: 連N拉N 2N; 作莊 1; each payer 底 100 + 台 x 20.
    dealer = score("123m456m789m234p55p67s +8s", seat_wind="E", dealer=True, self_drawn=True, dealer_streak=2)
    assert dealer["total"] == 3 + 1 + 4
    assert dealer["settlement"] == {"E": 3 * 260, "S": -260, "W": -260, "N": -260}
    # a non-dealer self-draws: the dealer pays 作莊 and 連2拉2 on top, the two others the hand alone
    south = score("123m456m789m234p55p67s +8s", self_drawn=True, dealer_streak=2)
    assert south["settlement"] == {"E": -(100 + 8 * 20), "S": 260 + 2 * 160, "W": -160, "N": -160}
    # the dealer discards to a non-dealer: that one payment involves the dealer
    fed = score("123m456m789m234p55p67s +8s", {"discarder": "E"}, dealer_streak=2)
    assert fed["total"] == 3 + 1 + 4 and fed["settlement"]["E"] == -(100 + 8 * 20)


def test_single_wait_when_the_other_tile_is_held_four_times() -> None:
    # item 11: 獨聽 "只聽一洞": 23m waits on 1m or 4m, but with all four 4m in a kong only 1m is left.
    assert items(score("23m456p789p123s11s[4444m] +1m", WEST)) == {"single_wait": 1}
    assert items(score("23m456p789p123s11s[444m] +1m", WEST)) == {}


def test_seven_pairs_and_a_pung() -> None:
    # item 36: 嚦咕嚦咕 8 "必須門清" (門清 not added), a valued pung adds (南 is South's seat wind),
    # and the lone 8m is the only tile that completes it (獨聽 1).
    result = score("1122m3344p5566s222z8m +8m", WEST)
    assert items(result) == {"seven_pairs_pung": 8, "seat_wind": 1, "single_wait": 1}
