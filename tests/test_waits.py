"""The fast single-wait check in scoring.waits agrees with the full wait search it replaces in the scorers."""

from __future__ import annotations

import pytest

from mjlens.scoring.decompose import Shapes, meld_group
from mjlens.scoring.random_hands import random_hands
from mjlens.scoring.tiles import INDEX, counts_of
from mjlens.scoring.waits import (
    candidate_tiles,
    is_seven_pairs_pung,
    is_standard_complete,
    only_one_wait,
    waiting_tiles,
)


def _counts(text: str) -> list[int]:
    """'123m55p' -> counts."""
    tiles, digits = [], []
    for ch in text:
        if ch.isdigit():
            digits.append(ch)
        else:
            tiles += [d + ch for d in digits]
            digits = []
    return counts_of(tiles)


@pytest.mark.parametrize(("standing", "win", "single"), [
    ("123m456m789m111p5p", "5p", True),  # 單釣
    ("123m456m789m234p5p", "5p", False),  # 2345p: 2p or 5p
    ("123m456m789m234p55p13s", "2s", True),  # 卡張
    ("123m456m789m234p55p12s", "3s", True),  # 邊張
    ("123m456m789m234p55p23s", "1s", False),  # 兩面
    ("123m456m789m55p77s", "5p", False),  # 對碰
    ("1112345678999m", "5m", False),  # 九蓮: every tile of the suit
])
def test_only_one_wait_classic_waits(standing: str, win: str, single: bool) -> None:
    c = _counts(standing)
    assert only_one_wait(c, INDEX[win], c) is single


def test_a_tile_held_four_times_is_not_a_wait() -> None:
    # 23m waits on 1m or 4m; with all four 4m held elsewhere (in melds), only 1m remains.
    standing = _counts("23m456p789p123s11s")
    held = list(standing)
    held[INDEX["4m"]] = 4
    assert not only_one_wait(standing, INDEX["1m"], standing)
    assert only_one_wait(standing, INDEX["1m"], held)


def test_seven_pairs_and_a_pung_adds_its_waits_only_when_allowed() -> None:
    assert is_seven_pairs_pung(_counts("1122m3344p556677s777z"))
    assert not is_seven_pairs_pung(_counts("1122m3344p556677s7777z"))
    # Six pairs, a pung and a lone 1s: only 1s completes (seven pairs and a pung).
    standing = _counts("1122m3344p5566s1s777z")
    assert sum(standing) == 16 and not is_seven_pairs_pung(standing)
    completes = [t for t in candidate_tiles(standing)
                 if is_seven_pairs_pung([n + (i == t) for i, n in enumerate(standing)])]
    assert completes == [INDEX["1s"]]
    assert only_one_wait(standing, INDEX["1s"], standing, seven_pairs_pung=True)
    # 16 tiles, eight pairs: any pair's third tile makes the pung, so the wait is not single.
    standing = _counts("1122m3344p556677s77z")
    assert len([t for t in candidate_tiles(standing)
                if is_seven_pairs_pung([n + (i == t) for i, n in enumerate(standing)])]) == 8
    assert not only_one_wait(standing, INDEX["7z"], standing, seven_pairs_pung=True)
    assert only_one_wait(standing, INDEX["7z"], standing, seven_pairs_pung=False)


def test_is_standard_complete() -> None:
    assert is_standard_complete(_counts("123m456m789m234p55p"))
    assert is_standard_complete(_counts("111222333m55p"))
    assert not is_standard_complete(_counts("123m456m789m234p56p"))
    assert not is_standard_complete(_counts("123m55p55s"))


@pytest.mark.parametrize("sets", [4, 5])
def test_only_one_wait_matches_the_full_search_on_random_hands(sets: int) -> None:
    shape = Shapes(sets=sets, seven_pairs=False, thirteen_orphans=False, seven_pairs_pung=sets == 5)
    checked = 0
    for hand in random_hands(11, 600, sets=sets, special=0.0):
        groups = tuple(meld_group(m.kind, min(INDEX[t] for t in m.tiles), m.concealed) for m in hand.melds)
        standing = counts_of(hand.concealed)
        held = counts_of(hand.all_tiles())
        win = INDEX[hand.winning_tile]
        minus_win = list(held)
        minus_win[win] -= 1
        waits = waiting_tiles(tuple(standing), groups, shape, tuple(minus_win))
        if win not in waits:
            continue
        fast = only_one_wait(standing, win, held, seven_pairs_pung=shape.seven_pairs_pung and not groups)
        assert fast is (len(waits) == 1), hand.to_json()
        checked += 1
    assert checked > 500
