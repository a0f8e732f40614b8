"""Shanten: the Chinese Official distance equals pymahjonggb's MahjongShanten on 20,000 seeded random hands of 13
tiles (half dealt from a shuffled wall, half winning hands with melds and kongs, a tile taken out and up to two
swapped), and the useful tiles equal RegularShanten's where the standard shape alone is nearest. The other
systems' shapes are checked against the decomposition: a hand is at -1 exactly where it wins in shape."""

from __future__ import annotations

import random

import pytest

from mjlens.scoring.decompose import Shapes, arrangements
from mjlens.scoring.mcr.scorer import SHAPES as MCR_SHAPES
from mjlens.scoring.random_hands import random_winning_hand
from mjlens.scoring.shanten import (
    seven_pairs_pung_shanten,
    shanten,
    shanten_by_shape,
    useful_tiles,
)
from mjlens.scoring.tiles import INDEX, PLAYING_CODES, counts_of
from mjlens.scoring.wait_values import hand_groups

TAIWAN_SHAPES = Shapes(sets=5, seven_pairs=False, thirteen_orphans=False, seven_pairs_pung=True)
CANTONESE_SHAPES = Shapes(seven_pairs=True, thirteen_orphans=True)
HANDS = 10_000  # of each kind: 20,000 in all


def _dealt(rng: random.Random) -> tuple[list[str], list]:
    wall = [t for t in PLAYING_CODES for _ in range(4)]
    rng.shuffle(wall)
    return wall[:13], []


def _near_winning(rng: random.Random) -> tuple[list[str], list]:
    """A winning hand with its winning tile taken out and up to two concealed tiles swapped for others."""
    hand = random_winning_hand(rng)
    concealed = list(hand.concealed)
    held = counts_of(hand.all_tiles())
    held[INDEX[hand.winning_tile]] -= 1
    for _ in range(rng.choice((0, 1, 1, 2))):
        out = concealed.pop(rng.randrange(len(concealed)))
        held[INDEX[out]] -= 1
        new = rng.choice([t for t in PLAYING_CODES if held[INDEX[t]] < 4])
        held[INDEX[new]] += 1
        concealed.append(new)
    return concealed, list(hand.melds)


def _cases(seed: int, make, n: int):
    rng = random.Random(seed)
    for _ in range(n):
        yield make(rng)


@pytest.mark.parametrize("make", [_dealt, _near_winning], ids=["dealt", "near_winning"])
def test_mcr_shanten_and_useful_tiles_equal_the_reference(make):
    mahjong_gb = pytest.importorskip("MahjongGB")
    from mjlens.scoring.hand import Hand
    from mjlens.scoring.mcr.reference import reference_args, reference_tile

    wrong, wrong_useful, compared = [], [], 0
    for concealed, melds in _cases(20261202, make, HANDS):
        hand = Hand(tuple(concealed[:-1]), tuple(melds), concealed[-1])
        packs, standing = reference_args(hand)[:2]
        standing = standing + (reference_tile(concealed[-1]),)
        counts = counts_of(concealed)
        mine = shanten(counts, len(melds), MCR_SHAPES)
        expected = mahjong_gb.MahjongShanten(pack=packs, hand=standing)
        if mine != expected:
            wrong.append(f"{concealed} {packs}: {mine}, reference {expected}")
            continue
        shapes = shanten_by_shape(counts, len(melds), MCR_SHAPES)
        if any(v <= shapes["standard"] for k, v in shapes.items() if k != "standard"):
            continue  # another shape is as near: its tiles count too
        held = counts_of(hand.all_tiles())
        useful = sorted(reference_tile(PLAYING_CODES[t]) for t in useful_tiles(counts, len(melds), MCR_SHAPES, held))
        _, reference_useful = mahjong_gb.RegularShanten(standing)
        # a tile held four times cannot be drawn: never useful here (pymahjonggb lists it for a ready hand)
        reference_useful = sorted(t for t in reference_useful if held[_code_index(t)] < 4)
        compared += 1
        if useful != reference_useful:
            wrong_useful.append(f"{concealed} {packs}: {useful}, reference {reference_useful}")
    assert not wrong, f"{len(wrong)} of {HANDS} differ, e.g.\n" + "\n".join(wrong[:5])
    assert not wrong_useful, f"{len(wrong_useful)} of {compared} differ, e.g.\n" + "\n".join(wrong_useful[:5])
    assert compared > HANDS // 3


def _code_index(reference: str) -> int:
    from mjlens.scoring.mcr.reference import reference_tile

    return next(i for i, code in enumerate(PLAYING_CODES) if reference_tile(code) == reference)


@pytest.mark.parametrize("sets,shapes", [(4, MCR_SHAPES), (5, TAIWAN_SHAPES), (4, CANTONESE_SHAPES)],
                         ids=["mcr", "taiwan", "cantonese"])
def test_minus_one_exactly_where_the_hand_wins_in_shape(sets, shapes):
    """A winning hand is at -1; with one tile swapped it is at -1 only where the decomposition finds a win, and a
    tile drawn never moves any hand by more than one."""
    rng = random.Random(7)
    for _ in range(1500):
        hand = random_winning_hand(rng, sets=sets)
        groups = hand_groups(hand)
        counts = counts_of(hand.all_concealed())
        assert shanten(counts, len(groups), shapes) == -1 or not arrangements(tuple(counts), groups, shapes)
        counts[INDEX[hand.winning_tile]] -= 1
        before = shanten(counts, len(groups), shapes)
        held = counts_of(hand.all_tiles())
        held[INDEX[hand.winning_tile]] -= 1
        counts[rng.choice([t for t in range(34) if held[t] < 4])] += 1
        after = shanten(counts, len(groups), shapes)
        assert (after == -1) == bool(arrangements(tuple(counts), groups, shapes))
        assert after >= before - 1


def test_seven_pairs_and_a_pung():
    """嚦咕嚦咕: seven pairs and a pung in 17 tiles; four of a kind counts two pairs."""
    win = counts_of([f"{n}m" for n in "11223344556677888"])
    assert seven_pairs_pung_shanten(win) == -1
    ready = list(win)
    ready[INDEX["8m"]] -= 1  # seven pairs and a pair: waits on the third 8m
    assert seven_pairs_pung_shanten(ready) == 0
    four = counts_of([f"{n}m" for n in "1111223344556"] + ["7p", "7p", "7p"])
    assert seven_pairs_pung_shanten(four) == 0  # 1111 is two pairs: waits on 6m
