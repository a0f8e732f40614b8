"""雞平和 settlement: self-drawn, discard, 一炮多響, the 包 liabilities, and bad settlement options."""

from __future__ import annotations

import pytest
from test_cantonese import cant

from mjlens.scoring import HandError
from mjlens.scoring.cantonese import settle_together

CHICKEN = "123m456p789s999m5s +5s"  # 0 番


def zero_sum(settlement: dict[str, int]) -> bool:
    return set(settlement) == {"E", "S", "W", "N"} and sum(settlement.values()) == 0


def test_self_drawn_each_of_the_three_others_pays_points():
    got = cant(CHICKEN, self_drawn=True, seat_wind="W")  # 自摸 1 番 = 2 points
    assert got.settlement == {"E": -2, "S": -2, "W": 6, "N": -2}


def test_discard_the_discarder_alone_pays():
    got = cant("123m456p789s234m5s +5s", {"discarder": "E"}, seat_wind="S")
    assert got.settlement == {"E": -2, "S": 2, "W": 0, "N": 0} and not got.warnings


def test_missing_discarder_is_the_previous_seat_with_a_warning():
    got = cant(CHICKEN, {}, seat_wind="N")  # the helper adds no discarder for North
    assert got.settlement == {"E": 0, "S": 0, "W": -1, "N": 1}
    assert any("assumed W" in w for w in got.warnings)


def test_house_rule_multipliers():
    double = cant(CHICKEN, {"discarder": "S", "house_rules": {"settlement": {"discard_multiplier": 3}}})
    assert double.settlement == {"E": 3, "S": -3, "W": 0, "N": 0}
    drawn = cant(CHICKEN, {"house_rules": {"settlement": {"self_drawn_multiplier": 2}}}, self_drawn=True)
    assert drawn.settlement == {"E": 12, "S": -4, "W": -4, "N": -4}


def test_twelve_tiles_down_liable_player_pays_for_all():
    hand = "[123m][456p][789s][999m]5s +5s"  # 十二張落地, single wait, self-drawn
    got = cant(hand, {"liable": "S"}, self_drawn=True)
    assert got.settlement == {"E": 6, "S": -6, "W": 0, "N": 0} and got.extra["pays_all"] == "S"
    assert not any("包自摸" in w for w in got.warnings)


def test_liable_without_the_shape_warns_but_settles():
    got = cant(CHICKEN, {"liable": "S"}, self_drawn=True)
    assert got.settlement["S"] == -6 and any("包自摸" in w for w in got.warnings)


def test_big_winds_feeder_pays_for_all_without_a_warning():
    got = cant("[111z][222z][333z]444z5m +5m", {"liable": "W"}, self_drawn=True)
    assert got.total == 6 and got.settlement == {"E": 192, "S": 0, "W": -192, "N": 0} and not got.warnings


def test_kong_feeder_pays_for_all_three():
    got = cant("[1111m]234m567p999s5p +5p", {"kong_feeder": "N"}, kong_replacement=True)
    assert got.total == 3 and got.settlement == {"E": 24, "S": 0, "W": 0, "N": -24}


def test_kong_feeder_needs_an_exposed_kong():
    with pytest.raises(HandError) as err:
        cant("(1111m)234m567p999s5p +5p", {"kong_feeder": "N"}, kong_replacement=True)
    assert err.value.code == "bad_option"


def test_robbed_player_pays_for_all_three():
    got = cant("123m456p78s999m55s +9s", {"discarder": "W"}, robbing_kong=True)  # 雞和 won on the robbed 9s
    assert got.total == 3 and got.settlement == {"E": 24, "S": 0, "W": -24, "N": 0}
    assert "self_drawn" in [i.key for i in got.items]


def test_one_discard_several_winners_settled_together():
    winners = {"E": "123m456p789s234m5s +5s", "S": CHICKEN, "W": "123m456m789m234m5m +5m"}
    results = []
    for seat, hand in winners.items():
        others = [s for s in winners if s != seat]
        results.append(cant(hand, {"discarder": "N", "other_winners": others}, seat_wind=seat))
    assert [r.total for r in results] == [3, 3, 4]  # 一炮三響 raises the two small hands to 3
    total = settle_together(results)
    assert total == {"E": 8, "S": 8, "W": 16, "N": -32} and zero_sum(total)


def test_two_winners_on_one_discard_keep_their_own_value():
    a = cant(CHICKEN, {"discarder": "W", "other_winners": ["S"]}, seat_wind="E")
    b = cant("123m456p789s234m5s +5s", {"discarder": "W", "other_winners": ["E"]}, seat_wind="S")
    assert settle_together([a, b]) == {"E": 1, "S": 2, "W": -3, "N": 0}


@pytest.mark.parametrize(
    ("options", "context"),
    [
        ({"discarder": "X"}, {}),
        ({"discarder": "E"}, {}),  # the winner (East)
        ({"discarder": "S"}, {"self_drawn": True}),
        ({"liable": "S"}, {}),
        ({"liable": "E"}, {"self_drawn": True}),
        ({"liable": "S", "kong_feeder": "W"}, {"kong_replacement": True}),
        ({"kong_feeder": "S"}, {"self_drawn": True}),
        ({"other_winners": ["S", "W", "N"]}, {}),
        ({"other_winners": ["S", "S"]}, {}),
        ({"other_winners": ["N"]}, {}),  # the discarder
        ({"other_winners": "SW"}, {}),
        ({"other_winners": [1]}, {}),
        ({"other_winners": ["S"]}, {"self_drawn": True}),
        ({"stakes": "100/20"}, {}),
        ({"colour": "red"}, {}),
    ],
)
def test_bad_settlement_options_are_bad_option(options, context):
    hand = "[1111m]234m567p999s5p +5p" if context.get("kong_replacement") else CHICKEN
    with pytest.raises(HandError) as err:
        cant(hand, options, **context)
    assert err.value.code == "bad_option" and err.value.message


@pytest.mark.parametrize("seat", ["E", "S", "W", "N"])
@pytest.mark.parametrize("drawn", [True, False])
def test_settlements_always_sum_to_zero(seat, drawn):
    got = cant("[777z]123m456m789m5z +5z", seat_wind=seat, self_drawn=drawn)
    assert zero_sum(got.settlement) and got.settlement[seat] > 0
