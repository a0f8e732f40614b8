"""Differential test: thousands of seeded random winning hands scored here and by pymahjonggb must agree on the
total and on every fan item (mapped by name), flowers included."""

from __future__ import annotations

import pytest

from mjlens.scoring.mcr import score_hand
from mjlens.scoring.mcr.fans import BY_KEY
from mjlens.scoring.notation import format_hand
from mjlens.scoring.random_hands import random_hands

MahjongGB = pytest.importorskip("MahjongGB")
from mjlens.scoring.mcr.reference import reference_items  # noqa: E402 - after the skip

HANDS_PER_SEED = 5000
SEEDS = (1, 2, 3, 4)  # 20,000 hands, a few seconds


def _describe(hand) -> str:
    c = hand.context
    flags = [k for k in ("self_drawn", "last_tile", "kong_replacement", "robbing_kong", "last_of_kind")
             if getattr(c, k)]
    return f"{format_hand(hand)} seat={c.seat_wind} round={c.round_wind} {' '.join(flags)}"


@pytest.mark.parametrize("seed", SEEDS)
def test_same_total_and_items_as_reference(seed):
    mismatches = []
    for hand in random_hands(seed, HANDS_PER_SEED):
        reference = reference_items(hand)
        result = score_hand(hand, {"minimum": 0})
        mine = {item.key: item.count for item in result.items}
        reference_total = sum(BY_KEY[k].value * n for k, n in reference.items())
        if mine != reference or result.total != reference_total:
            mismatches.append(f"{_describe(hand)}: mine {mine} reference {reference}")
    assert not mismatches, f"{len(mismatches)} of {HANDS_PER_SEED} differ, e.g.\n" + "\n".join(mismatches[:5])


def test_split_kong_option_is_the_only_difference_it_makes():
    """With 明暗槓 switched off, hands with one concealed and one melded kong lose 5 and gain 明槓 + 暗槓."""
    seen = 0
    for hand in random_hands(9, 3000):
        kongs = [m for m in hand.melds if m.kind == "kong"]
        if len(kongs) != 2 or sum(m.concealed for m in kongs) != 1:
            continue
        league = {i.key: i.count for i in score_hand(hand, {"minimum": 0}).items}
        split = {i.key: i.count for i in score_hand(hand, {"minimum": 0, "concealed_and_melded_kong": False}).items}
        assert league.pop("concealed_kong_and_melded_kong") == 1
        assert split.pop("melded_kong") == 1 and split.pop("concealed_kong") == 1
        assert league == split
        seen += 1
    assert seen > 5
