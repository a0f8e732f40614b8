"""Property tests: whatever tiles, contexts, options or strings come in, the Taiwan scorer answers with a
ScoreResult (valid, or invalid with a registered error code) and never another exception; valid results
keep their sums straight."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjlens.scoring import engine
from mjlens.scoring.errors import ERROR_CODES, HandError
from mjlens.scoring.notation import parse
from mjlens.scoring.result import ScoreResult
from mjlens.scoring.tiles import BONUS_CODES, PLAYING_CODES, WIND_LETTERS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

contexts = st.fixed_dictionaries({}, optional={
    "self_drawn": st.booleans(), "seat_wind": st.sampled_from(WIND_LETTERS),
    "round_wind": st.sampled_from(WIND_LETTERS),
    "dealer": st.booleans(), "dealer_streak": st.integers(0, 5), "last_tile": st.booleans(),
    "kong_replacement": st.booleans(), "robbing_kong": st.booleans(), "heavenly": st.booleans(),
    "earthly": st.booleans(), "human": st.booleans(), "declared_ready": st.none() | st.booleans(),
})
options = st.fixed_dictionaries({}, optional={
    "discarder": st.sampled_from(WIND_LETTERS), "dealer_seat": st.sampled_from(WIND_LETTERS),
    "stakes": st.sampled_from(["100/20", "30/10", {"base": 5, "per_tai": 1}]),
    "seven_pairs_pung": st.booleans(), "bonus_win": st.sampled_from([None, "eight_immortals", "seven_rob_one"]),
    "ready": st.sampled_from([None, "heavenly", "earthly"]),
})
flowers = st.lists(st.sampled_from(BONUS_CODES), unique=True, max_size=8)

SUITED = [c for c in PLAYING_CODES if c[1] != "z"]
SETS = ([[c] * 3 for c in PLAYING_CODES]
        + [[f"{n + i}{s[1]}" for i in range(3)] for s in SUITED for n in [int(s[0])] if n <= 7])


@st.composite
def winning_hands(draw: st.DrawFn) -> dict[str, Any]:
    """Five sets and a pair (some sets laid open as melds); where that would need a fifth copy of a tile,
    17 random tiles instead (marked ``shape: False``)."""
    sets = draw(st.lists(st.sampled_from(SETS), min_size=5, max_size=5))
    pair = draw(st.sampled_from(PLAYING_CODES))
    tiles = [t for s in sets for t in s] + [pair, pair]
    if max(Counter(tiles).values()) > 4:
        tiles = draw(st.lists(st.sampled_from(PLAYING_CODES), min_size=17, max_size=17))
        sets = []
    n_open = draw(st.integers(0, len(sets)))
    melds = [{"kind": "pung" if len(set(s)) == 1 else "chow", "tiles": s} for s in sets[:n_open]]
    concealed = [t for s in sets[n_open:] for t in s] + [pair, pair] if sets else tiles
    winning = draw(st.sampled_from(concealed))
    concealed = list(concealed)
    concealed.remove(winning)
    return {"concealed": concealed, "melds": melds, "winning_tile": winning, "shape": bool(sets)}


def check(result: ScoreResult) -> None:
    assert isinstance(result, ScoreResult)
    if not result.valid:
        assert result.error is not None and result.error.code in ERROR_CODES
        return
    assert result.unit == "tai"
    assert result.total == sum(i.points for i in result.items)
    assert set(result.settlement) == set(WIND_LETTERS)
    assert sum(result.settlement.values()) == 0
    detail = result.extra["settlement_detail"]
    for p in detail["payers"]:
        assert p["pays"] == detail["stakes"]["base"] + p["tai"] * detail["stakes"]["per_tai"]
    assert all(i.count > 0 for i in result.items)


@SETTINGS
@given(tiles=st.lists(st.sampled_from(PLAYING_CODES), min_size=17, max_size=17), ctx=contexts, opts=options,
       bonus=flowers, known=st.booleans())
def test_random_17_tiles(tiles: list[str], ctx: dict, opts: dict, bonus: list[str], known: bool) -> None:
    hand = {"concealed": tiles[:-1] if known else tiles, "winning_tile": tiles[-1] if known else None,
            "flowers": bonus, "context": ctx}
    check(engine.score(hand, "taiwan", opts))


@SETTINGS
@given(hand=winning_hands(), ctx=contexts, opts=options, bonus=flowers)
def test_random_winning_shapes(hand: dict, ctx: dict, opts: dict, bonus: list[str]) -> None:
    hand.pop("shape")
    result = engine.score({**hand, "flowers": bonus, "context": ctx}, "taiwan", opts)
    check(result)


@SETTINGS
@given(hand=winning_hands())
def test_plain_winning_shapes_always_win(hand: dict) -> None:
    if not hand.pop("shape"):
        return
    result = engine.score(hand, "taiwan", {"discarder": "S"})
    assert result.valid, result.error
    check(result)


@SETTINGS
@given(text=st.text(max_size=40) | st.text(alphabet="0123456789mpszf[]()+ ESWNPFC", max_size=40))
def test_random_strings(text: str) -> None:
    try:
        hand = parse(text)
    except HandError as err:
        assert err.code in ERROR_CODES
        return
    check(engine.score(hand, "taiwan", {}))


@SETTINGS
@given(opts=st.dictionaries(st.text(max_size=12), st.none() | st.integers() | st.text(max_size=8), max_size=3))
def test_random_options(opts: dict) -> None:
    result = engine.score(parse("123m456m789m234p55p67s +8s"), "taiwan", opts)
    check(result)
    assert result.valid or result.error.code == "bad_option"
