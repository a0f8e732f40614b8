"""One hand per fan: the fan is there, and every item agrees with pymahjonggb (the reference)."""

from __future__ import annotations

import pytest

from mjlens.scoring.hand import Context
from mjlens.scoring.mcr import catalog, score_hand
from mjlens.scoring.mcr.fans import FANS
from mjlens.scoring.notation import parse

MahjongGB = pytest.importorskip("MahjongGB")
from mjlens.scoring.mcr.reference import reference_items  # noqa: E402 - after the skip

SD = {"self_drawn": True}
#: fan key -> (hand in compact notation, context)
GALLERY: dict[str, tuple[str, dict]] = {
    "big_four_winds": ("EEESSSWWWNNN5m +5m", {}),
    "big_three_dragons": ("PPPFFFCCC123m5p +5p", {}),
    "all_green": ("234234666s88sFF +F", {}),
    "nine_gates": ("1112345678999m +5m", {}),
    "four_kongs": ("[1111m] [2222p] (3333s) [EEEE] 5m +5m", {}),
    "seven_shifted_pairs": ("1122334455667m +7m", {}),
    "thirteen_orphans": ("19m19p19s1234567z +1m", {}),
    "all_terminals": ("111999m111999p9s +9s", {}),
    "little_four_winds": ("EEESSSWWWN123m +N", {}),
    "little_three_dragons": ("PPPFFFC123m789p +C", {}),
    "all_honors": ("EEESSSPPPFFFC +C", {}),
    "four_concealed_pungs": ("111m222p333s444s5m +5m", {}),
    "pure_terminal_chows": ("1122337788995m +5m", {}),
    "quadruple_chow": ("123123123123m5p +5p", {}),
    "four_pure_shifted_pungs": ("111222333444m5p +5p", {}),
    "four_pure_shifted_chows": ("123234345456m5p +5p", {}),
    "three_kongs": ("[1111m] [2222p] [3333s] 456m5p +5p", {}),
    "all_terminals_and_honors": ("111m999pEEEPPP1s +1s", {}),
    "seven_pairs": ("1133m5577p99sEEF +F", {}),
    "greater_honors_and_knitted_tiles": ("147m258p3sESWNPF +C", {}),
    "all_even_pungs": ("222m444p666s888m2p +2p", {}),
    "full_flush": ("123345567789m9m +9m", {}),
    "pure_triple_chow": ("[123m] [123m] 123m456p5s +5s", {}),
    "pure_shifted_pungs": ("111222333m456p5s +5s", {}),
    "upper_tiles": ("789m789p789s88m99p +9p", {}),
    "middle_tiles": ("456m456p456s55m66p +6p", {}),
    "lower_tiles": ("123m123p123s22m33p +3p", {}),
    "pure_straight": ("123456789m234p5s +5s", {}),
    "three_suited_terminal_chows": ("123789m123789p5s +5s", {}),
    "pure_shifted_chows": ("123234345m789p5s +5s", {}),
    "all_five": ("345m456p555s567m5p +5p", {}),
    "triple_pung": ("111m111p111s234m5p +5p", {}),
    "three_concealed_pungs": ("111m222p333s456m5p +5p", {}),
    "lesser_honors_and_knitted_tiles": ("147m258p369sESWP +F", {}),
    "knitted_straight": ("147m258p369s234m5p +5p", {}),
    "upper_four": ("678m678p678s99m66p +6p", {}),
    "lower_four": ("234m234p234s11m44p +4p", {}),
    "big_three_winds": ("EEESSSWWW123m5p +5p", {"seat_wind": "N", "round_wind": "N"}),
    "mixed_straight": ("123m456p789s234m5p +5p", {}),
    "reversible_tiles": ("123345p888999sP +P", {}),
    "mixed_triple_chow": ("234m234p234s678m5p +5p", {}),
    "mixed_shifted_pungs": ("111m222p333s456m5p +5p", {}),
    "chicken_hand": ("[234m] [567p] [789s] 34mEE +5m", {"seat_wind": "S"}),
    "last_tile_draw": ("[123m] 456p789s234s5m +5m", {"self_drawn": True, "last_tile": True}),
    "last_tile_claim": ("[123m] 456p789s234s5m +5m", {"last_tile": True}),
    "out_with_replacement_tile": ("[1111m] 456p789s234s5m +5m", {"self_drawn": True, "kong_replacement": True}),
    "robbing_the_kong": ("[123m] 456p789s24s55m +3s", {"robbing_kong": True}),
    "all_pungs": ("[111m] [222p] 333s444sE +E", {}),
    "half_flush": ("123456789mEEE5m +5m", {}),
    "mixed_shifted_chows": ("123m234p345s678m5p +5p", {}),
    "all_types": ("123m456p789sEEEP +P", {}),
    "melded_hand": ("[123m] [456p] [789s] [EEE] 5m +5m", {}),
    "two_concealed_kongs": ("(1111m) (2222p) 345s678s5m +5m", {}),
    "two_dragons_pungs": ("PPPFFF123m456p5s +5s", {}),
    "concealed_kong_and_melded_kong": ("(1111m) [2222p] 345s678s5m +5m", {}),
    "outside_hand": ("123789m123p999sE +E", {}),
    "fully_concealed_hand": ("123m456p789s234s5m +5m", SD),
    "two_melded_kongs": ("[1111m] [2222p] 345s678s5m +5m", {}),
    "last_tile": ("[123m] 456p789s24s55m +3s", {"last_of_kind": True}),
    "dragon_pung": ("PPP123m456p789s5m +5m", {}),
    "prevalent_wind": ("WWW123m456p789s5m +5m", {"round_wind": "W"}),
    "seat_wind": ("SSS123m456p789s5m +5m", {"seat_wind": "S"}),
    "concealed_hand": ("123m456p789s234s5m +5m", {}),
    "all_chows": ("123m456p789s234s5m +5m", {}),
    "tile_hog": ("123345m678p789s3m +3m", {}),
    "double_pung": ("222m222p456s789m5p +5p", {}),
    "two_concealed_pungs": ("222m333p456s789m5p +5p", {}),
    "concealed_kong": ("(2222m) 456p456s789m5p +5p", {}),
    "all_simples": ("234m456p678s345m6p +6p", {}),
    "pure_double_chow": ("123123m456p789s5p +5p", {}),
    "mixed_double_chow": ("123m123p789s456m5s +5s", {}),
    "short_straight": ("123456m789p234s5s +5s", {}),
    "two_terminal_chows": ("123789m456p234s5s +5s", {}),
    "pung_of_terminals_or_honors": ("111m456p789s234m5p +5p", {}),
    "melded_kong": ("[1111m] 456p789s234s5m +5m", {}),
    "one_voided_suit": ("123m456m789p234p5p +5p", {}),
    "no_honors": ("111m456p789s234s5m +5m", {}),
    "edge_wait": ("12m456p789s234s55m +3m", {}),
    "closed_wait": ("13m456p789s234s55m +2m", {}),
    "single_wait": ("123m456p789s234s5m +5m", {}),
    "self_drawn": ("[123m] 456p789s234s5m +5m", SD),
    "flower": ("123m456p789s234s5m 1f5f +5m", {}),
}


def _hand(text: str, ctx: dict):
    return parse(text, Context(**ctx))


def test_gallery_covers_every_fan():
    assert set(GALLERY) == {f.key for f in FANS}


@pytest.mark.parametrize("key", sorted(GALLERY))
def test_fan_is_found_and_matches_reference(key):
    text, ctx = GALLERY[key]
    hand = _hand(text, ctx)
    result = score_hand(hand, {})
    mine = {i.key: i.count for i in result.items}
    assert key in mine, (text, mine)
    assert mine == reference_items(hand), text
    assert result.total == sum(i.points for i in result.items)


def test_catalog_lists_the_81_fan_and_the_league_kong_fan():
    rows = catalog()
    assert len(rows) == 82
    assert {r["value"] for r in rows} == {88, 64, 48, 32, 24, 16, 12, 8, 6, 5, 4, 2, 1}
    by_key = {r["key"]: r for r in rows}
    assert by_key["pure_straight"] == {"key": "pure_straight", "name_zh": "清龍", "name_en": "Pure Straight",
                                       "value": 16, "excludes": []}
    assert "seat_wind" in by_key["big_four_winds"]["excludes"]
