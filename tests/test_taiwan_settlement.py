"""Taiwan settlement: 底 + 台 × 台值 per payer, 作莊 and 連N拉N only on payments that involve the dealer."""

from __future__ import annotations

from typing import Any

import pytest

from mjlens.scoring import engine
from mjlens.scoring.hand import Context
from mjlens.scoring.notation import parse

PINGHU = "123m456m789m234p55p67s +8s"  # 門清 1 + 平胡 2 on a discard; 門清 1 + 不求 2 self-drawn


def score(text: str, options: dict[str, Any] | None = None, **ctx: Any) -> dict:
    return engine.score(parse(text, Context(**ctx)), "taiwan", options or {}).to_json()


def payer_tai(result: dict) -> dict[str, int]:
    return {p["seat"]: p["tai"] for p in result["settlement_detail"]["payers"]}


def test_dealer_wins_self_drawn_with_a_streak() -> None:
    result = score(PINGHU, self_drawn=True, dealer_streak=2)
    items = {i["key"]: (i["count"], i["points"]) for i in result["items"]}
    assert items["dealer"] == (1, 1)
    assert items["dealer_streak"] == (2, 4)
    assert next(i["name_zh"] for i in result["items"] if i["key"] == "dealer_streak") == "連2拉2"
    assert result["total"] == 3 + 1 + 4
    assert payer_tai(result) == {"S": 8, "W": 8, "N": 8}
    assert result["settlement"] == {"E": 3 * 260, "S": -260, "W": -260, "N": -260}


def test_non_dealer_wins_on_the_dealers_discard() -> None:
    result = score(PINGHU, {"discarder": "E"}, seat_wind="S", dealer=False, dealer_streak=1)
    assert result["total"] == 3 + 1 + 2
    assert {i["key"] for i in result["items"]} == {"concealed", "all_chows", "dealer", "dealer_streak"}
    assert result["settlement"] == {"E": -220, "S": 220, "W": 0, "N": 0}
    assert result["settlement_detail"]["dealer"] == "E"


def test_non_dealer_wins_on_a_non_dealers_discard() -> None:
    result = score(PINGHU, {"discarder": "W"}, seat_wind="S", dealer=False, dealer_streak=3)
    assert result["total"] == 3
    assert "dealer" not in {i["key"] for i in result["items"]}
    assert result["settlement"] == {"E": 0, "S": 160, "W": -160, "N": 0}


def test_non_dealer_self_drawn_the_dealer_pays_more() -> None:
    result = score(PINGHU, seat_wind="S", dealer=False, dealer_streak=1, self_drawn=True)
    assert result["total"] == 3  # the 台 a non-dealer payer owes
    assert payer_tai(result) == {"E": 6, "W": 3, "N": 3}
    assert result["settlement"] == {"E": -220, "S": 540, "W": -160, "N": -160}
    assert any("作莊" in w for w in result["warnings"])


def test_dealer_seat_option_moves_the_dealer() -> None:
    result = score(PINGHU, {"dealer_seat": "W"}, seat_wind="S", dealer=False, self_drawn=True)
    assert payer_tai(result) == {"E": 3, "W": 4, "N": 3}


def test_missing_discarder_is_the_previous_seat_with_a_warning() -> None:
    result = score(PINGHU, seat_wind="S", dealer=False)
    assert result["settlement"] == {"E": -(100 + 4 * 20), "S": 180, "W": 0, "N": 0}
    assert any("'discarder' not given" in w for w in result["warnings"])


def test_winner_east_not_dealer_assumes_north_dealer() -> None:
    result = score(PINGHU, {"discarder": "N"}, dealer=False)
    assert result["settlement_detail"]["dealer"] == "N"
    assert any("dealer is N" in w for w in result["warnings"])


@pytest.mark.parametrize(
    ("stakes", "base", "per_tai"),
    [("100/20", 100, 20), ("50/10", 50, 10), (" 300 / 100 ", 300, 100), ({"base": 0, "per_tai": 5}, 0, 5)],
)
def test_stakes(stakes: Any, base: int, per_tai: int) -> None:
    result = score(PINGHU, {"stakes": stakes, "discarder": "S"})
    assert result["settlement"]["S"] == -(base + 4 * per_tai)
    assert result["settlement_detail"]["stakes"] == {"base": base, "per_tai": per_tai}


def test_robbing_kong_the_kong_player_pays() -> None:
    result = score(PINGHU, {"discarder": "W"}, robbing_kong=True)
    assert result["settlement"] == {"E": 200, "S": 0, "W": -200, "N": 0}


def test_settlement_has_four_seats_summing_to_zero() -> None:
    for ctx in ({}, {"self_drawn": True}, {"seat_wind": "N", "dealer": False, "self_drawn": True}):
        result = score(PINGHU, **ctx)
        assert set(result["settlement"]) == {"E", "S", "W", "N"}
        assert sum(result["settlement"].values()) == 0
