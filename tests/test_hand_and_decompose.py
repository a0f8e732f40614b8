import pytest

from mjlens.scoring import Hand, HandError
from mjlens.scoring.decompose import SEVEN_PAIRS, STANDARD, THIRTEEN_ORPHANS, Group, Shapes, arrangements
from mjlens.scoring.tiles import PLAYING_CODES, counts_of
from mjlens.scoring.waits import CLOSED, EDGE, OPEN, PAIR, wait_kind, waiting_tiles


def readings(text: str, **shapes):
    return arrangements(tuple(counts_of(text.split())), (), Shapes(**shapes))


def test_hand_json_round_trip():
    data = {"concealed": ["1m", "2m"], "melds": [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False,
            "from": "across"}], "winning_tile": "3m", "flowers": ["1f"], "context": {"self_drawn": True}}
    hand = Hand.from_json(data)
    assert hand.context.self_drawn and hand.melds[0].source == "across"
    assert Hand.from_json(hand.to_json()) == hand


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ([], "bad_hand_json"),
        ({"concealed": "1m"}, "bad_hand_json"),
        ({"concealed": ["1x"]}, "unknown_tile"),
        ({"concealed": ["1m"], "context": {"windy": True}}, "bad_context"),
        ({"concealed": ["1m"], "context": {"seat_wind": "X"}}, "bad_context"),
        ({"concealed": ["1m"], "context": {"self_drawn": "yes"}}, "bad_context"),
        ({"concealed": ["1m"], "context": []}, "bad_context"),
        ({"concealed": ["1m"], "melds": [{"kind": "pung", "tiles": ["1m", "2m", "3m"]}]}, "bad_meld"),
        ({"concealed": ["1m"], "melds": [{"kind": "trio", "tiles": ["1m"] * 3}]}, "bad_meld"),
        ({"concealed": ["1m"] * 3, "melds": [{"kind": "pung", "tiles": ["1m"] * 3}]}, "too_many_copies"),
        ({"concealed": ["1f"]}, "unknown_tile"),
        ({"concealed": ["1m"], "extra": 1}, "bad_hand_json"),
    ],
)
def test_bad_hand_json_has_a_stable_code(data, code):
    with pytest.raises(HandError) as err:
        Hand.from_json(data)
    assert err.value.code == code


def test_every_standard_reading_is_found():
    found = {tuple(map(tuple, a.to_json())) for a in readings("1m 1m 1m 2m 2m 2m 3m 3m 3m 4m 4m 5m 5m 5m")}
    assert len(found) == 3


def test_special_shapes():
    assert {a.shape for a in readings("1m 1m 2m 2m 3m 3m 4m 4m 5m 5m 6m 6m 7m 7m")} == {STANDARD, SEVEN_PAIRS}
    orphans = "1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z 7z"
    assert [a.shape for a in readings(orphans)] == [THIRTEEN_ORPHANS]
    assert readings(orphans, thirteen_orphans=False) == []
    knitted = readings("1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z 5z", knitted=True)
    assert [a.shape for a in knitted] == ["honors_and_knitted"]
    straight = readings("1m 4m 7m 2p 5p 8p 3s 6s 9s 5s 5s 5s 1z 1z", knitted=True)
    assert [a.shape for a in straight] == ["knitted_straight"]


def test_seven_pairs_and_a_pung_for_taiwan():
    tiles = "1m 1m 2m 2m 3p 3p 5p 5p 7s 7s 9s 9s 1z 1z 5z 5z 5z"
    shapes = [a.shape for a in readings(tiles, sets=5, seven_pairs=False, thirteen_orphans=False,
                                        seven_pairs_pung=True)]
    assert shapes == ["seven_pairs_pung"]


def test_nine_gates_waits_on_all_nine():
    counts = tuple(counts_of("1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 9m 9m".split()))
    assert [PLAYING_CODES[i] for i in waiting_tiles(counts, (), Shapes())] == [f"{n}m" for n in range(1, 10)]


def test_wait_kinds():
    assert wait_kind(Group("chow", 0), 2) == EDGE
    assert wait_kind(Group("chow", 6), 6) == EDGE
    assert wait_kind(Group("chow", 3), 4) == CLOSED
    assert wait_kind(Group("chow", 3), 5) == OPEN
    assert wait_kind(Group("pair", 3), 3) == PAIR
