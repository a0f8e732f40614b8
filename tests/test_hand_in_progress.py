"""A hand in progress (``scoring.advice``): its waits with what each pays, its shanten, the ranked discards, and
the safety marks read from the other players' discards."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjlens.scoring.advice import advise, waits
from mjlens.scoring.engine import score
from mjlens.scoring.hand import Context, Hand
from mjlens.scoring.notation import parse
from mjlens.scoring.random_hands import random_winning_hand
from mjlens.scoring.safety import next_seat, principles
from mjlens.scoring.sighting import Sighting
from mjlens.scoring.tiles import INDEX, PLAYING_CODES, counts_of

SETS = {"mcr": 4, "taiwan": 5, "cantonese": 4}


def _one_short(rng: random.Random, rules: str, swap: bool) -> Hand:
    """A winning hand of ``rules``'s size with its winning tile taken out, and maybe one tile swapped; no
    flowers (all eight flowers win in Taiwan whatever the tiles) and a plain context."""
    hand = random_winning_hand(rng, sets=SETS[rules])
    concealed = list(hand.concealed)
    if swap:
        held = counts_of(hand.all_tiles())
        held[INDEX[hand.winning_tile]] -= 1
        held[INDEX[concealed.pop(rng.randrange(len(concealed)))]] -= 1
        concealed.append(rng.choice([t for t in PLAYING_CODES if held[INDEX[t]] < 4]))
    seat = rng.choice("ESWN")
    return Hand(tuple(concealed), hand.melds, None, (), Context(seat_wind=seat, dealer=seat == "E"))


@pytest.mark.parametrize("rules", list(SETS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), swap=st.booleans())
def test_every_wait_wins_and_no_other_tile_does(rules, seed, swap):
    """Each tile listed wins by the scorer (a score, or one below the minimum); each tile not listed does not."""
    hand = _one_short(random.Random(seed), rules, swap)
    result = waits(hand, rules)
    assert result["valid"], result
    listed = {w["tile"] for w in result["waits"]}
    assert (result["shanten"] == 0) >= bool(listed)
    held = counts_of(hand.all_tiles())
    for tile in PLAYING_CODES:
        if held[INDEX[tile]] >= 4:
            assert tile not in listed
            continue
        scored = score(replace(hand, winning_tile=tile), rules)
        wins = scored.valid or scored.error.code == "below_minimum"
        assert wins == (tile in listed), (tile, scored.to_json())


@pytest.mark.parametrize("rules", list(SETS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_each_discard_leaves_what_the_waits_of_the_rest_say(rules, seed):
    """advise's discards (whose waits come from the useful tiles) agree with waits (from the decomposition)."""
    rng = random.Random(seed)
    hand = _one_short(rng, rules, swap=True)
    held = counts_of(hand.all_tiles())
    extra = rng.choice([t for t in PLAYING_CODES if held[INDEX[t]] < 4])
    full = replace(hand, concealed=hand.concealed + (extra,))
    result = advise(full, rules)
    assert result["valid"] and len(result["discards"]) == len(set(full.concealed))
    for d in result["discards"]:
        rest = list(full.concealed)
        rest.remove(d["tile"])
        alone = waits(replace(full, concealed=tuple(rest)), rules)
        assert d["shanten"] == alone["shanten"]
        assert [w["tile"] for w in d.get("waits", [])] == [w["tile"] for w in alone["waits"]]


def test_waits_carry_both_scores_and_the_tiles_left():
    hand = parse("123m456p78s11z [555z]")
    result = waits(hand, "mcr", sighting=Sighting(seen=("9s",), discards={"S": ("6s", "6s")}))
    assert result["shanten"] == 0 and result["minimum"] == 8
    by_tile = {w["tile"]: w for w in result["waits"]}
    assert set(by_tile) == {"6s", "9s"}
    assert by_tile["6s"]["left"] == 2 and by_tile["9s"]["left"] == 3  # four less those seen
    assert by_tile["9s"]["wait"] == ["open"]
    assert by_tile["9s"]["discard"]["valid"] and by_tile["9s"]["self_drawn"]["valid"]
    assert by_tile["9s"]["self_drawn"]["total"] == by_tile["9s"]["discard"]["total"] + 1  # 自摸
    assert result["tiles_left"] == 5 and result["winning_tiles_left"] == 5


@pytest.mark.parametrize("rules,notation", [("mcr", "123m456p78s11z [555z]"), ("cantonese", "123m456p78s11z [555z]"),
                                            ("taiwan", "123m456m789p78s11z [555z]")])
def test_the_discarder_option_is_for_the_discard_win_only(rules, notation):
    result = waits(parse(notation), rules, {"discarder": "S"})
    assert result["waits"] and all(w["discard"]["valid"] and w["self_drawn"]["valid"] for w in result["waits"])


def test_a_wait_below_the_minimum_is_listed_as_such():
    (wait,) = waits(parse("123m456m789p234s9s"), "mcr")["waits"]  # 單調 9s: 8 fan self-drawn only
    assert wait["discard"]["error"]["code"] == "below_minimum" and wait["self_drawn"]["total"] == 8
    assert wait["meets_minimum"]
    result = waits(parse("[123m] 456m789p234s9s"), "mcr")  # open: below 8 either way
    (wait,) = result["waits"]
    assert wait["tile"] == "9s" and wait["wait"] == ["pair"]
    assert not wait["meets_minimum"] and wait["self_drawn"]["error"]["code"] == "below_minimum"
    assert wait["discard"]["error"]["code"] == "below_minimum" and wait["discard"]["total"] < 8
    assert result["winning_tiles_left"] == 0 and result["tiles_left"] == 3


def test_waits_of_a_hand_not_ready():
    result = waits(parse("139m147p258s1234z"), "mcr")
    assert result["valid"] and result["shanten"] > 0 and result["waits"] == []


@pytest.mark.parametrize("rules,notation,expected", [
    ("mcr", "123m456p78s11z [555z] +9s", "13"),  # a hand of 14 for the waits
    ("taiwan", "123m456p78s11z [555z]", "16"),
    ("mcr", "123m456p78s11z", "13 or 14"),  # advise: too few
])
def test_a_hand_of_the_wrong_size_says_which_size_it_expects(rules, notation, expected):
    question = waits if expected.isdigit() else advise
    result = question(parse(notation), rules)
    assert result["valid"] is False and result["error"]["code"] == "tile_count"
    assert f"takes a hand of {expected} tiles" in result["error"]["message"]


@pytest.mark.parametrize("call,code", [
    (lambda: waits({"concealed": ["1m"] * 5}, "mcr"), "too_many_copies"),
    (lambda: waits({"concealed": ["xx"]}, "mcr"), "unknown_tile"),
    (lambda: waits(parse("123m456p78s11z [555z]"), "zung_jung"), "unknown_rules"),
    (lambda: waits(parse("123m456p78s11z [555z]"), "mcr", {"nonsense": 1}), "bad_option"),
    (lambda: advise(parse("123m456p78s11z [555z]"), "cantonese", {"nonsense": 1}), "bad_option"),
    (lambda: waits(parse("123m456p78s11z [555z]"), "mcr", sighting=Sighting(seen=("5z",) * 2)), "too_many_copies"),
    (lambda: Sighting.from_json(discards={"X": []}), "bad_hand_json"),
    (lambda: Sighting.from_json(seen=["1f"]), "unknown_tile"),
])
def test_bad_input_has_the_scorers_error_codes(call, code):
    from mjlens.scoring.errors import HandError

    try:
        result = call()
    except HandError as err:
        assert err.code == code
    else:
        assert result["valid"] is False and result["error"]["code"] == code


def test_advise_ranks_the_discards_and_says_why():
    result = advise(parse("123m456m789m55p6s7s +9s"), "mcr")
    assert result["valid"] and result["shanten"] == 0 and result["wins"] is False
    first, second = result["discards"][:2]
    assert first["tile"] == "9s" and first["shanten"] == 0
    assert {w["tile"] for w in first["waits"]} == {"5s", "8s"}
    assert "ready on 5s 8s" in first["reason"]
    assert second["tile"] == "6s" and "fewer winning tiles left than discarding 9s" in second["reason"]
    shanten_order = [d["shanten"] for d in result["discards"]]
    assert shanten_order == sorted(shanten_order)


def test_a_ready_discard_has_the_same_waits_as_the_hand_without_it():
    hand = parse("1112345678999m +5m")
    result = advise(hand, "mcr")
    assert result["wins"] is True and result["shanten"] == -1
    for d in result["discards"]:
        rest = list(hand.all_concealed())
        rest.remove(d["tile"])
        alone = waits(Hand(tuple(rest)), "mcr")
        assert d["shanten"] == alone["shanten"]
        assert [w["tile"] for w in d.get("waits", [])] == [w["tile"] for w in alone["waits"]]


def test_advise_on_a_hand_one_short_gives_its_useful_tiles():
    result = advise(parse("123m456m789m5p67s9s"), "cantonese")
    assert result["shanten"] == 1 and "discards" not in result
    useful = {u["tile"] for u in result["useful"]}
    assert useful == {"5p", "9s", "5s", "8s", "6s"}  # 6s: 66s and 79s
    assert result["useful_left"] == sum(u["left"] for u in result["useful"])


def test_advise_on_seventeen_taiwan_tiles():
    result = advise(parse("123m456m789m234p55s67s +9s"), "taiwan")
    assert result["valid"] and result["tiles"] == 17 and result["minimum"] is None
    assert result["discards"][0]["tile"] == "9s" and result["discards"][0]["shanten"] == 0


def test_safety_marks_quote_the_strategy_text():
    # seat S: the next player (下家) is W
    hand = parse("1234567m11p456s5z +5z", Context(seat_wind="S"))
    assert next_seat("S") == "W"
    discards = {"W": ("1m",), "E": ("7m", "5p"), "N": ("1z", "2z", "3z")}
    result = advise(hand, "mcr", sighting=Sighting(discards=discards))
    marks = {d["tile"]: {m["rule"]: m for m in d["safety"]} for d in result["discards"]}
    assert set(marks["4m"]) >= {"next_seat_147"} and marks["4m"]["next_seat_147"]["seat"] == "W"
    assert "next_seat_258" in marks["2m"] and "next_seat_258" in marks["5m"]
    assert marks["7m"]["follow_discarded"]["seat"] == "E"
    assert "ready_five" not in marks.get("4p", {})  # 5p discarded by E, but 4p is not in this hand
    for tile_marks in marks.values():
        for m in tile_marks.values():
            assert m["quote"] == principles()[m["rule"]].quote


def test_every_quote_is_in_the_strategy_text():
    """Each mark's quote (its parts joined by '；') and the discard order stand word for word in the text."""
    from pathlib import Path

    from mjlens.scoring.advice import DISCARD_ORDER_QUOTE

    path = Path(__file__).resolve().parents[2] / "shared" / "rules" / "003_1d8a3f31bb893626.txt"
    if not path.is_file():
        pytest.skip("the rule documents are not beside the repository")
    text = path.read_text(encoding="utf-8")
    quotes = [p.quote for p in principles().values() if p.kind != "count"] + [DISCARD_ORDER_QUOTE]
    for quote in quotes:
        for part in quote.split("；"):
            assert part in text, part


def test_a_wind_never_seen_while_the_others_are():
    hand = parse("123m456m789m55p6s4z +9s")
    result = advise(hand, "mcr", sighting=Sighting(discards={"S": ("1z", "2z"), "W": ("3z",)}))
    marks = {d["tile"]: [m["rule"] for m in d["safety"]] for d in result["discards"]}
    assert "wind_unseen" in marks["4z"]


def test_a_tile_whose_every_other_copy_is_in_sight():
    hand = parse("123m456m789m55p6s4z +9s")
    result = advise(hand, "mcr", sighting=Sighting(discards={"S": ("4z", "4z"), "W": ("4z",)}))
    marks = {d["tile"]: [m["rule"] for m in d["safety"]] for d in result["discards"]}
    assert "all_copies_seen" in marks["4z"] and "follow_discarded" in marks["4z"]


def test_a_single_wait_notes_how_often_its_tile_was_seen():
    hand = parse("123m456m789p234s9s")  # 單調 9s
    assert waits(hand, "mcr")["waits"][0]["notes"] == []  # nothing said to be in sight: no note
    unseen = waits(hand, "mcr", sighting=Sighting(discards={"S": ("1z",)}))["waits"][0]["notes"]
    assert [n["rule"] for n in unseen] == ["single_wait_unseen"] and unseen[0]["kind"] == "caution"
    once = waits(hand, "mcr", sighting=Sighting(discards={"S": ("9s",)}))["waits"][0]["notes"]
    assert [n["rule"] for n in once] == ["single_wait_seen_once"]
    twice = waits(hand, "mcr", sighting=Sighting(seen=("9s", "9s")))["waits"][0]["notes"]
    assert twice == []  # the text names tiles never seen and seen once
    two_sided = waits(parse("123m456m789p23s99s"), "mcr", sighting=Sighting(seen=("5z",)))
    assert all(w["notes"] == [] for w in two_sided["waits"])  # 1s/4s: not a single wait
