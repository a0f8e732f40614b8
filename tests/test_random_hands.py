"""The seeded hand generator: reproducible, legal, winning, and varied."""

from __future__ import annotations

import random
from collections import Counter

from mjlens.scoring.decompose import Shapes, arrangements, meld_group
from mjlens.scoring.hand import validate_size, validate_structure
from mjlens.scoring.random_hands import random_hands, random_winning_hand
from mjlens.scoring.tiles import INDEX, counts_of


def _arrangements(hand, sets):
    melds = tuple(meld_group(m.kind, min(INDEX[t] for t in m.tiles), m.concealed) for m in hand.melds)
    shapes = Shapes(sets=sets, knitted=sets == 4)
    return arrangements(tuple(counts_of(hand.all_concealed())), melds, shapes)


def test_same_seed_same_hands():
    assert list(random_hands(42, 50)) == list(random_hands(42, 50))
    assert list(random_hands(42, 50)) != list(random_hands(43, 50))


def test_hands_are_legal_and_winning():
    for sets in (4, 5):
        for hand in random_hands(7, 400, sets=sets):
            validate_structure(hand)
            validate_size(hand, (3 * sets + 2,), "test")
            assert hand.winning_tile is not None
            assert _arrangements(hand, sets), hand


def test_flags_are_consistent():
    for hand in random_hands(8, 2000):
        c = hand.context
        held = hand.concealed.count(hand.winning_tile)
        if c.kong_replacement:
            assert c.self_drawn and any(m.kind == "kong" for m in hand.melds)
        if c.robbing_kong:
            assert not c.self_drawn and held == 0
            assert all(hand.winning_tile not in m.tiles for m in hand.melds)
        if c.last_of_kind:
            assert held == 0


def test_variety():
    hands = list(random_hands(9, 3000))
    shapes = Counter()
    for h in hands:
        shapes[_arrangements(h, 4)[-1].shape] += 1
    assert {"standard", "seven_pairs", "thirteen_orphans", "honors_and_knitted", "knitted_straight"} <= set(shapes)
    assert any(h.flowers for h in hands)
    assert any(m.concealed for h in hands for m in h.melds)
    assert {h.context.seat_wind for h in hands} == {"E", "S", "W", "N"}
    for flag in ("self_drawn", "last_tile", "kong_replacement", "robbing_kong", "last_of_kind"):
        assert any(getattr(h.context, flag) for h in hands), flag


def test_generator_takes_a_random_instance():
    rng = random.Random(5)
    first = random_winning_hand(rng)
    assert first == random_winning_hand(random.Random(5))
