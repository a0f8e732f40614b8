"""Targeted tests of the mcr scorer: exclusions, the best reading, the minimum, flowers, settlement, options,
flag consistency and errors."""

from __future__ import annotations

import pytest

from mjlens.scoring.engine import score
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Context
from mjlens.scoring.mcr import score_hand
from mjlens.scoring.notation import parse


def _score(text: str, options: dict | None = None, **ctx):
    return score_hand(parse(text, Context(**ctx)), options or {})


def _items(result) -> dict[str, int]:
    return {i.key: i.count for i in result.items}


def _excluded(result) -> dict[str, str]:
    return {e.key: e.by for e in result.excluded}


def test_pure_straight_hand_itemised():
    r = _score("123456789m234p5s +5s")
    assert r.valid and r.total == 21
    assert _items(r) == {"pure_straight": 1, "concealed_hand": 1, "all_chows": 1, "single_wait": 1}
    assert _excluded(r) == {"no_honors": "all_chows"}
    assert r.decomposition[-1] == ["5s", "5s"]


def test_big_four_winds_excludes_winds_pungs_and_all_pungs():
    r = _score("EEESSSWWWNNN5m +5m", seat_wind="S", round_wind="E")
    items = _items(r)
    assert "big_four_winds" in items
    for key in ("seat_wind", "prevalent_wind", "all_pungs", "pung_of_terminals_or_honors", "big_three_winds"):
        assert key not in items
    excluded = _excluded(r)
    assert excluded["seat_wind"] == excluded["prevalent_wind"] == "big_four_winds"


def test_wind_pung_is_not_counted_again_as_terminal_pung():
    r = _score("SSS111m456p789s5m +5m", seat_wind="S", round_wind="E")
    items = _items(r)
    assert items["seat_wind"] == 1
    assert items["pung_of_terminals_or_honors"] == 1  # only the 111m pung
    assert ("pung_of_terminals_or_honors", "seat_wind") in {(e.key, e.by) for e in r.excluded}


def test_big_three_winds_takes_its_three_pungs():
    r = _score("EEESSSWWW123m5p +5p", seat_wind="N", round_wind="N")
    items = _items(r)
    assert items["big_three_winds"] == 1 and "pung_of_terminals_or_honors" not in items


def test_combine_once_principle_for_chows():
    """234s + 223344p + 567p: 一般高 + 喜相逢 + 連六, not 喜相逢 twice (套算一次 / 不得相同)."""
    r = _score("234s223344567p5s +5s")
    items = _items(r)
    assert items.get("pure_double_chow") == 1
    assert items.get("mixed_double_chow") == 1
    assert items.get("short_straight") == 1


def test_discarded_winning_tile_makes_its_pung_exposed_only_when_it_cannot_sit_in_a_chow():
    pungs = _score("111m222p33s77m456s +3s")  # 3s completes the 333s pung: two concealed pungs only
    assert "two_concealed_pungs" in _items(pungs)
    chow = _score("111m222p333s45m77m +3m")  # 3m completes 345m: the three pungs stay concealed
    assert "three_concealed_pungs" in _items(chow)
    drawn = _score("111m222p33s77m456s +3s", self_drawn=True)
    assert "three_concealed_pungs" in _items(drawn)


def test_best_reading_is_kept():
    """111222333444m reads as shifted pungs or as chows: the higher one is kept (就高不就低)."""
    r = _score("111222333444m5p +5p")
    assert "four_pure_shifted_pungs" in _items(r)
    sp = _score("1122334455667m +7m")  # seven shifted pairs beats any set reading
    assert "seven_shifted_pairs" in _items(sp)


def test_edge_closed_and_single_wait_need_a_single_waiting_tile():
    assert "edge_wait" in _items(_score("12m456p789s234s55m +3m"))
    assert "closed_wait" in _items(_score("13m456p789s234s55m +2m"))
    two_sided = _items(_score("23m456p789s234s55m +4m"))
    assert not {"edge_wait", "closed_wait", "single_wait"} & set(two_sided)


def test_dead_wait_option():
    """4444m567m waits on 4m (all four held) and 7m: the League counts both, so no single wait."""
    text = "4444567m123p789s +7m"
    assert "single_wait" not in _items(_score(text, self_drawn=True))
    assert "single_wait" in _items(_score(text, {"count_dead_waits": False}, self_drawn=True))


def test_below_minimum_is_invalid_but_keeps_items():
    r = _score("[234m] [567p] 789s23s55m 1f2f3f4f5f6f7f8f +4s")
    assert not r.valid and r.error.code == "below_minimum"
    out = r.to_json()
    assert out["error"]["code"] == "below_minimum"
    assert out["total"] == r.total and any(i["key"] == "flower" for i in out["items"])
    assert r.total >= 8  # eight flowers do not lift a hand over the minimum


def test_minimum_option():
    assert _score("[234m] [567p] 789s23s55m +4s", {"minimum": 0}).valid


def test_flowers_are_items_outside_the_minimum():
    r = _score("123456789m234p5s 1f6f +5s")
    assert _items(r)["flower"] == 2
    assert r.total == 23 and r.meets_minimum


def test_settlement_self_drawn_and_discard():
    drawn = _score("123456789m234p5s +5s", self_drawn=True, seat_wind="S")
    total = drawn.total
    assert drawn.settlement == {"E": -(8 + total), "S": 3 * (8 + total), "W": -(8 + total), "N": -(8 + total)}
    discard = _score("123456789m234p5s +5s", {"discarder": "N"}, seat_wind="W")
    t = discard.total
    assert discard.settlement == {"E": -8, "S": -8, "W": 8 + t + 16, "N": -(8 + t)}
    assert sum(discard.settlement.values()) == 0


def test_missing_discarder_is_the_previous_seat_with_a_warning():
    r = _score("123456789m234p5s +5s", seat_wind="E")
    assert r.settlement["N"] == -(8 + r.total)
    assert any("discarder" in w for w in r.warnings)


@pytest.mark.parametrize("options", [
    {"nonsense": 1}, {"discarder": "X"}, {"minimum": -1}, {"minimum": True}, {"count_dead_waits": "yes"},
    {"house_rules": 3}, {"discarder": "E"},
])
def test_bad_options(options):
    with pytest.raises(HandError) as err:
        _score("123456789m234p5s +5s", options, seat_wind="E")
    assert err.value.code == "bad_option"


def test_discarder_with_self_drawn_is_bad_option():
    with pytest.raises(HandError) as err:
        _score("123456789m234p5s +5s", {"discarder": "S"}, self_drawn=True)
    assert err.value.code == "bad_option"


def test_house_rules_table():
    r = _score("(1111m) [2222p] 345s678s5m +5m", {"house_rules": {"concealed_and_melded_kong": False}})
    assert {"melded_kong", "concealed_kong"} <= set(_items(r))


def test_an_unknown_house_rule_is_named_as_one():
    # a Guangdong file ([rules], [values]) given to mcr: the message says it is a house rule, not an option
    with pytest.raises(HandError) as err:
        _score("(1111m) [2222p] 345s678s5m +5m", {"house_rules": {"rules": {"cap": 5}}})
    assert err.value.code == "bad_option" and "house rule 'rules'" in err.value.message


def test_inconsistent_flags_are_dropped_with_a_warning():
    r = _score("123456789m234p5s +5s", self_drawn=True, kong_replacement=True)
    assert "out_with_replacement_tile" not in _items(r)
    assert any("kong" in w for w in r.warnings)
    held = _score("123456789m234p5s +5s", {"discarder": "N"}, last_of_kind=True)
    assert "last_tile" not in _items(held)


def test_robbing_a_kong_cannot_be_self_drawn():
    with pytest.raises(HandError) as err:
        _score("[123m] 456p789s24s55m +3s", robbing_kong=True, self_drawn=True)
    assert err.value.code == "bad_context"


def test_three_copies_in_melds_make_the_last_of_a_kind():
    r = _score("[345m] [345m] [345m] 678p5s +5s")
    assert "last_tile" not in _items(r)  # 5s: no copies shown
    r = _score("[333m] 45m678p789s99s +3m")
    assert "last_tile" in _items(r)


def test_not_winning_and_tile_count():
    with pytest.raises(HandError) as err:
        _score("123456789m234p6s +5s")
    assert err.value.code == "not_winning"
    with pytest.raises(HandError) as err:
        _score("123456789m234p +5s")
    assert err.value.code == "tile_count"


def test_engine_unknown_winning_tile_and_errors_as_results():
    hand = parse("123456789m234p5s5s")
    r = score(hand, "mcr")
    assert r.valid and r.extra["winning_tile"] in hand.concealed
    bad = score(parse("123456789m234p6s +5s"), "mcr")
    assert not bad.valid and bad.error.code == "not_winning"
    assert score(parse("123456789m234p5s +5s"), "mcr", {"x": 1}).error.code == "bad_option"


def test_knitted_straight_with_a_melded_set():
    r = _score("147m258p369s5m [EEE] +5m", round_wind="E", seat_wind="S")
    items = _items(r)
    assert items["knitted_straight"] == 1 and items["prevalent_wind"] == 1
    assert r.decomposition[0] == ["1z", "1z", "1z"]


def test_strict_1998_option():
    """003: 清么九 "不计碰碰和、同刻、无字" read strictly also drops 三同刻; one-suit big fan drop 缺一門;
    七對 takes no all-of-a-kind fan."""
    league = _items(_score("111m111p111s999m9p +9p"))
    strict = _items(_score("111m111p111s999m9p +9p", {"strict_1998": True}))
    assert "triple_pung" in league and "triple_pung" not in strict
    assert "one_voided_suit" not in _items(_score("PPPFFFCCC123m5p +5p", {"strict_1998": True}))
    pairs = _score("1199m1199p11s99s1m +1m", {"strict_1998": True})
    assert "all_terminals" not in _items(pairs) and "seven_pairs" in _items(pairs)
    assert ("all_terminals", "seven_pairs") in {(e.key, e.by) for e in pairs.excluded}
