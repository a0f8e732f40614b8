"""Guangdong 雞平和: the classic hands players check first, valued by hand from the rules README's table and
the Guangdong section of rule document 003, then compared with the scorer (not read off the code).

The winner sits South; a discard comes from East unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any

from mjlens.scoring import Context, parse
from mjlens.scoring.cantonese import score_hand, settle_together
from mjlens.scoring.engine import score
from mjlens.scoring.hand import Hand
from mjlens.scoring.result import ScoreResult


def cant(text: str, options: dict[str, Any] | None = None, **ctx: Any) -> ScoreResult:
    context = Context(**{"seat_wind": "S", "dealer": False, **ctx})
    return score_hand(parse(text, context), options or {})


def items(result: ScoreResult) -> dict[str, int]:
    return {i.key: i.points for i in result.items}


EAST = {"discarder": "E"}


def test_chicken_hand_is_zero_fan_one_point() -> None:
    # 003: "鸡和 什么牌都可以和，可吃碰杠"; README: 0 番, points = 2^番 = 1.
    result = cant("123m456p789s[111m]5s +5s", EAST)
    assert items(result) == {"chicken": 0}
    assert result.total == 0 and result.extra["points"] == 1
    assert result.settlement == {"E": -1, "S": 1, "W": 0, "N": 0}


def test_all_chows_one_fan() -> None:
    # 平和 "全部都是顺子没有刻子": 1 番, 2 points.
    result = cant("123m456p789s234m5s +5s", EAST)
    assert items(result) == {"all_chows": 1} and result.extra["points"] == 2


def test_all_pungs_two_fan() -> None:
    # 碰碰和 "全部是刻子没有順子": 2 番.
    assert items(cant("111m[222p]333s444m5s +5s", EAST)) == {"all_pungs": 2}


def test_half_flush_with_additions_is_clipped_at_the_cap() -> None:
    # 混一色 2 + 自摸 1 + 箭刻 1 = 4, "爆和内牌型加附加牌型不能冲破爆和的上限": 3 番, 8 points from each of three.
    result = cant("123m456m789m[777z]5z +5z", self_drawn=True)
    assert items(result) == {"half_flush": 2, "self_drawn": 1, "dragon_pung": 1}
    assert result.total == 3 and result.extra["capped_from"] == 4
    assert result.settlement == {"E": -8, "S": 24, "W": -8, "N": -8}


def test_full_flush_is_beyond_the_cap_and_takes_no_additions() -> None:
    # 清一色 4 "爆和以外"; "在爆和以内自摸+1番爆和以外不加番": self-drawn it stays 4.
    result = cant("123m456m789m234m5m +5m", self_drawn=True)
    assert items(result) == {"full_flush": 4}
    assert result.total == 4 and result.extra["points"] == 16


def test_three_fan_cases_raise_a_small_hand_to_three() -> None:
    # 003: 杠上开花 / 海底捞月 / 抢杠: "不满3番牌型，按照3番满计算".
    kong = cant("123m456p789s(1111s)5s +5s", self_drawn=True, kong_replacement=True)
    assert kong.total == 3 and items(kong) == {"chicken": 0, "self_drawn": 1, "kong_replacement": 2}
    last = cant("123m456p789s[234m]5s +5s", self_drawn=True, last_tile=True)
    assert last.total == 3 and items(last)["last_tile"] == 1
    robbed = cant("123m456p78s[234m]55s +9s", EAST, robbing_kong=True)  # 平和 1 + 自摸 ("當自摸") 1 + 搶杠 1
    assert robbed.total == 3
    # "抢杠和等同杠开，当自摸被抢杠者包三家": the robbed player pays three shares.
    assert robbed.settlement == {"E": -24, "S": 24, "W": 0, "N": 0}
    # a hand already at 4 番 stays as it is: "大于3番的牌型，按照实际牌型计算"
    assert cant("234m456m789m(1111m)5m +5m", self_drawn=True, kong_replacement=True).total == 4


def test_one_discard_three_winners() -> None:
    # "允许一炮多响"; 一炮三响: "点炮者包三家和牌者不满3番牌型，按照3番满计算". East pays each winner.
    a = cant("123m456p789s[234m]5s +5s", {"discarder": "E", "other_winners": ["W", "N"]})
    b = cant("123m456m789m[777z]5z +5z", {"discarder": "E", "other_winners": ["S", "N"]}, seat_wind="W")
    c = cant("111m[222p]333s444m5s +5s", {"discarder": "E", "other_winners": ["S", "W"]}, seat_wind="N")
    assert [r.total for r in (a, b, c)] == [3, 3, 3]
    assert settle_together([a, b, c]) == {"E": -24, "S": 8, "W": 8, "N": 8}
    # two winners only: no 3-番 case
    two = cant("123m456p789s[234m]5s +5s", {"discarder": "E", "other_winners": ["W"]})
    assert two.total == 1


def test_twelve_tiles_down_liable_self_draw() -> None:
    # 包自摸: "十二张落地 ... 该打出者A必须承担包自摸的责任": East pays the whole self-drawn amount.
    result = cant("[123m][456p][789s][234m]5s +5s", {"liable": "E"}, self_drawn=True)
    assert result.total == 2  # 平和 1 + 自摸 1
    assert result.settlement == {"E": -12, "S": 12, "W": 0, "N": 0}


def test_big_three_dragons_liable_feeder() -> None:
    # 003: "大三元：玩家已碰出红中、白板、发财任意2款．若有人打絀余下一款者，那人则需承担包自摸的责任".
    result = cant("[555z][666z][777z] 123m9m +9m", {"liable": "W"}, self_drawn=True)
    assert items(result) == {"big_dragons": 6}
    assert result.settlement == {"E": 0, "S": 3 * 64, "W": -3 * 64, "N": 0}
    assert not result.warnings


def test_a_hand_built_in_code_with_a_bonus_tile_in_hand_is_an_error_not_a_crash() -> None:
    # engine.score never raises; a Hand object skips Hand.from_json's checks, so the scorer checks structure.
    hand = Hand(("1f", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m"), (), "9m")
    result = score(hand, "cantonese")
    assert not result.valid and result.error.code == "unknown_tile"


def test_a_hand_built_in_code_with_a_fifth_copy_is_too_many_copies() -> None:
    hand = Hand(("1m",) * 5 + ("2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"), (), "9m")
    result = score(hand, "cantonese")
    assert not result.valid and result.error.code == "too_many_copies"


def test_robbing_a_kong_of_a_tile_the_hand_holds_is_not_counted() -> None:
    # The robbed tile is the fourth copy of a pung another player is making a kong: a hand holding another copy
    # cannot have robbed it. Scored as an ordinary discard win (no 3-番 case, the discarder pays once).
    result = cant("123m345p789s[234m]5p +5p", EAST, robbing_kong=True)  # 345p already holds a 5p
    assert "robbing_kong" not in items(result)
    assert any("搶杠 not counted" in w for w in result.warnings)
    assert result.settlement == {"E": -result.extra["points"], "S": result.extra["points"], "W": 0, "N": 0}
