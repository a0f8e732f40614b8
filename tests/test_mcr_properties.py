"""Property tests: whatever text or tiles come in, the mcr engine answers with a ScoreResult, and the parser
with a Hand or a HandError; never another exception."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjlens.scoring.engine import score
from mjlens.scoring.errors import ERROR_CODES, HandError
from mjlens.scoring.hand import Context, Hand, Meld
from mjlens.scoring.notation import parse
from mjlens.scoring.random_hands import random_winning_hand
from mjlens.scoring.result import ScoreResult
from mjlens.scoring.tiles import BONUS_CODES, INDEX, PLAYING_CODES, WIND_LETTERS

NOTATION_ALPHABET = "0123456789mpszfESWNPFC[]()+ "


def _check(result) -> None:
    assert isinstance(result, ScoreResult)
    if not result.valid:
        assert result.error is not None and result.error.code in ERROR_CODES
    else:
        assert result.total == sum(i.points for i in result.items)
        assert result.total >= 8 and sum(result.settlement.values()) == 0
    result.to_json()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=NOTATION_ALPHABET, max_size=40))
def test_random_notation_never_crashes(text):
    try:
        hand = parse(text)
    except HandError as err:
        assert err.code in ERROR_CODES
        return
    _check(score(hand, "mcr"))


contexts = st.builds(
    Context, self_drawn=st.booleans(), seat_wind=st.sampled_from(WIND_LETTERS),
    round_wind=st.sampled_from(WIND_LETTERS), last_tile=st.booleans(), kong_replacement=st.booleans(),
    robbing_kong=st.booleans(), last_of_kind=st.booleans(),
)


@st.composite
def tile_hands(draw):
    """14 tiles drawn from the 136 (so never a fifth copy); maybe the first three or four as a declared meld
    when they make one; a winning tile or none; bonus tiles; any context."""
    picks = draw(st.lists(st.integers(0, 135), unique=True, min_size=13, max_size=15))
    tiles = [PLAYING_CODES[i // 4] for i in picks]
    melds = []
    kind = draw(st.sampled_from(["none", "pung", "kong", "chow"]))
    size = 4 if kind == "kong" else 3
    head = sorted(tiles[:size], key=lambda t: INDEX[t])
    if kind in ("pung", "kong") and len(set(head)) == 1:
        melds.append(Meld(kind, tuple(head), concealed=kind == "kong" and draw(st.booleans())))
        tiles = tiles[size:]
    elif kind == "chow" and [INDEX[t] - INDEX[head[0]] for t in head] == [0, 1, 2] and head[0][1] != "z":
        melds.append(Meld("chow", tuple(head)))
        tiles = tiles[size:]
    winning = tiles.pop() if draw(st.booleans()) else None
    flowers = tuple(draw(st.lists(st.sampled_from(BONUS_CODES), unique=True, max_size=3)))
    return Hand(tuple(tiles), tuple(melds), winning, flowers, draw(contexts))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tile_hands(), st.sampled_from([{}, {"discarder": "S"}, {"minimum": 0}, {"bogus": 1}]))
def test_random_tiles_never_crash(hand, options):
    _check(score(hand, "mcr", options))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(PLAYING_CODES), min_size=14, max_size=14))
def test_hand_json_input_never_crashes(tiles):
    _check(score({"concealed": tiles[:13], "winning_tile": tiles[13], "context": {"self_drawn": True}}, "mcr"))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_random_winning_hands_score_or_fall_below_minimum(seed, split_kongs):
    hand = random_winning_hand(random.Random(seed))
    result = score(hand, "mcr", {"concealed_and_melded_kong": not split_kongs})
    _check(result)
    assert result.valid or result.error.code == "below_minimum"
