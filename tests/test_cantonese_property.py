"""Property tests: whatever comes in, the 雞平和 scorer gives a ScoreResult or a HandError, never another exception;
and what it gives is consistent (points = 2^番, the cap holds, settlements sum to zero)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjlens.scoring import Context, Hand, HandError, parse
from mjlens.scoring.cantonese import score_hand
from mjlens.scoring.engine import score
from mjlens.scoring.result import ScoreResult
from mjlens.scoring.tiles import ALL_CODES, PLAYING_CODES, WIND_LETTERS

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

contexts = st.builds(
    Context,
    self_drawn=st.booleans(),
    seat_wind=st.sampled_from(WIND_LETTERS),
    round_wind=st.sampled_from(WIND_LETTERS),
    dealer=st.booleans(),
    last_tile=st.booleans(),
    kong_replacement=st.booleans(),
    robbing_kong=st.booleans(),
    heavenly=st.booleans(),
)
options = st.fixed_dictionaries(
    {},
    optional={
        "discarder": st.sampled_from([*WIND_LETTERS, "X", 3]),
        "other_winners": st.lists(st.sampled_from(WIND_LETTERS), max_size=3),
        "liable": st.sampled_from(WIND_LETTERS),
        "house_rules": st.fixed_dictionaries({}, optional={
            "rules": st.fixed_dictionaries({}, optional={"cap": st.integers(-1, 15), "minimum": st.integers(0, 4),
                                                         "seven_pairs": st.booleans()}),
            "values": st.dictionaries(st.sampled_from(["full_flush", "all_chows", "kong_replacement", "zz"]),
                                      st.integers(-1, 14), max_size=2),
        }),
    },
)


def check(result: ScoreResult) -> None:
    assert isinstance(result, ScoreResult)
    if result.valid:
        cap = result.extra["cap"]
        assert result.extra["points"] == 2 ** result.total
        assert set(result.settlement) == set(WIND_LETTERS) and sum(result.settlement.values()) == 0
        if "capped_from" in result.extra:
            assert result.total == cap < result.extra["capped_from"]
        assert result.total >= result.minimum


@FAST
@given(tiles=st.lists(st.sampled_from(PLAYING_CODES), min_size=14, max_size=14), ctx=contexts, opts=options)
def test_random_fourteen_tile_multisets_never_crash(tiles, ctx, opts):
    hand = Hand(tuple(tiles[:13]), (), tiles[13], (), ctx)
    try:
        result = score_hand(hand, opts)
    except HandError as err:
        assert err.code and err.message
        return
    check(result)


@FAST
@given(tiles=st.lists(st.sampled_from(PLAYING_CODES[:9]), min_size=14, max_size=14), opts=options)
def test_random_one_suit_hands_win_often_and_stay_consistent(tiles, opts):
    """One-suit multisets win far more often than random ones, so the valid path gets exercised."""
    result = score(Hand(tuple(tiles[:13]), (), tiles[13]), "cantonese", opts)
    check(result)


@FAST
@given(text=st.text(alphabet=st.sampled_from(list("0123456789mpszf+[]() ESWNPFC")), max_size=40), ctx=contexts)
def test_random_notation_strings_never_crash(text, ctx):
    try:
        hand = parse(text, ctx)
    except HandError:
        return
    check(score(hand, "cantonese", {"discarder": "N"} if ctx.seat_wind != "N" else {}))


@FAST
@given(data=st.fixed_dictionaries({
    "concealed": st.lists(st.sampled_from([*ALL_CODES, "xx"]), max_size=14),
    "winning_tile": st.one_of(st.none(), st.sampled_from(PLAYING_CODES)),
}), opts=options)
def test_random_hand_json_never_crashes(data, opts):
    check(score(data, "cantonese", opts))
