"""Who is dealer (CONVENTIONS §2): ``dealer`` defaults to ``seat_wind == "E"``, an explicit value wins, and one
given against the seat adds a warning. Checked in the hand model, in every rule system, the command line and the
HTTP API; the page's Dealer box is checked in tests/test_web_e2e.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from api_fakes import FakeRecognizer, sample_photo

from mjlens.api.cli.main import main
from mjlens.scoring.engine import score
from mjlens.scoring.hand import Context, Hand, context_from_json
from mjlens.scoring.notation import parse

TAIWAN = "123m456m789m234p55p67s +8s"
MCR = "123m456p78s11z [555z] 1f +9s"
#: a concealed hand with no melds, so 天和 (heavenly) may be claimed under the Guangdong rules
CANTONESE = "123m456p789s999m5s +5s"


@pytest.mark.parametrize(("given", "dealer", "mismatch"), [
    ({}, True, False),
    ({"seat_wind": "E"}, True, False),
    ({"seat_wind": "S"}, False, False),
    ({"seat_wind": "N"}, False, False),
    ({"seat_wind": "S", "dealer": True}, True, True),
    ({"seat_wind": "E", "dealer": False}, False, True),
    ({"dealer": False}, False, True),
    ({"seat_wind": "W", "dealer": False}, False, False),
    ({"seat_wind": "W", "dealer": None}, False, False),
])
def test_dealer_follows_the_seat_unless_given(given: dict[str, Any], dealer: bool, mismatch: bool) -> None:
    for context in (context_from_json(given), Context(**given)):
        assert context.dealer is dealer
        assert (context.dealer_mismatch() is not None) is mismatch


def test_a_seat_laid_over_a_context_decides_the_dealer_only_where_none_was_given() -> None:
    derived = Context()
    assert context_from_json({**derived.given_json(), "seat_wind": "S"}).dealer is False
    given = Context(dealer=True)
    assert context_from_json({**given.given_json(), "seat_wind": "S"}).dealer is True
    assert "dealer_given" not in derived.to_json() and derived.to_json()["dealer"] is True


def _warned(result) -> bool:
    return any("the dealer sits East" in w for w in result.warnings)


def test_mcr_warns_where_the_dealer_contradicts_the_seat() -> None:
    assert score(parse(MCR, Context(seat_wind="S")), "mcr").valid
    assert not _warned(score(parse(MCR, Context(seat_wind="S")), "mcr"))
    contradicted = score(parse(MCR, Context(seat_wind="S", dealer=True)), "mcr")
    assert contradicted.valid and _warned(contradicted)


def test_taiwan_south_seat_is_not_dealer() -> None:
    # W discards to S: neither is dealer, so no 作莊 (E, the dealer, would pay it on a discard of its own)
    south = score(parse(TAIWAN, Context(seat_wind="S")), "taiwan", {"discarder": "W"})
    assert "dealer" not in [i.key for i in south.items]
    assert south.extra["settlement_detail"]["dealer"] == "E" and not _warned(south)
    east = score(parse(TAIWAN, Context(seat_wind="E")), "taiwan", {"discarder": "S"})
    assert "dealer" in [i.key for i in east.items]
    assert east.total == south.total + 1  # 作莊 is one 台


def test_taiwan_explicit_dealer_wins_with_a_warning() -> None:
    result = score(parse(TAIWAN, Context(seat_wind="S", dealer=True)), "taiwan", {"discarder": "W"})
    assert "dealer" in [i.key for i in result.items] and _warned(result)


def test_cantonese_heavenly_needs_the_dealer_and_the_seat_says_who_it_is() -> None:
    east = score(parse(CANTONESE, Context(heavenly=True, self_drawn=True)), "cantonese")
    assert east.valid, east.error
    south = score(parse(CANTONESE, Context(heavenly=True, self_drawn=True, seat_wind="S")), "cantonese")
    assert not south.valid and south.error.code == "bad_context"
    given = score(parse(CANTONESE, Context(heavenly=True, self_drawn=True, seat_wind="S", dealer=True)), "cantonese")
    assert given.valid and _warned(given)


def test_riichi_south_seat_is_paid_as_a_non_dealer() -> None:
    pytest.importorskip("mahjong")
    hand = "123m456p789s23m55p +1m"
    east = score(parse(hand, Context(seat_wind="E")), "riichi", {"discarder": "W"})
    south = score(parse(hand, Context(seat_wind="S")), "riichi", {"discarder": "W"})
    assert east.valid and south.valid and east.total == south.total
    assert east.extra["points"]["total"] > south.extra["points"]["total"]  # a dealer's win pays half as much again
    given = score(parse(hand, Context(seat_wind="S", dealer=True)), "riichi", {"discarder": "W"})
    assert given.extra["points"]["total"] == east.extra["points"]["total"] and _warned(given)


# -- the command line --------------------------------------------------------------------------------------------
def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict | None, str]:
    code = main(["score", *argv, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_cli_south_seat_is_not_dealer(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = _cli(capsys, TAIWAN, "--rules", "taiwan", "--seat", "S")
    assert code == 0 and result["settlement_detail"]["dealer"] == "E"
    code, result, _ = _cli(capsys, TAIWAN, "--rules", "taiwan", "--seat", "S", "--option", "discarder=W")
    assert code == 0 and "dealer" not in [i["key"] for i in result["items"]]
    code, result, _ = _cli(capsys, TAIWAN, "--rules", "taiwan", "--seat", "S", "--dealer", "--option", "discarder=W")
    assert code == 0 and "dealer" in [i["key"] for i in result["items"]]
    assert any("the dealer sits East" in w for w in result["warnings"])


def test_cli_seat_over_a_hand_json_without_dealer(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(parse(TAIWAN).to_json() | {"context": {"seat_wind": "E"}}), encoding="utf-8")
    code, result, _ = _cli(capsys, "--hand-json", str(path), "--rules", "taiwan", "--seat", "S", "--option",
                           "discarder=W")
    assert code == 0 and "dealer" not in [i["key"] for i in result["items"]]
    path.write_text(json.dumps(parse(TAIWAN).to_json() | {"context": {"dealer": True}}), encoding="utf-8")
    code, result, _ = _cli(capsys, "--hand-json", str(path), "--rules", "taiwan", "--seat", "S", "--option",
                           "discarder=W")
    assert code == 0 and "dealer" in [i["key"] for i in result["items"]]


def test_cli_refuses_dealer_and_not_dealer_together(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", TAIWAN, "--rules", "taiwan", "--dealer", "--not-dealer"])
    assert exit_.value.code == 2
    assert "--not-dealer" in capsys.readouterr().err


# -- the HTTP API ------------------------------------------------------------------------------------------------
class TaiwanRecognizer(FakeRecognizer):
    """The fake reader of tests/api_fakes.py, reading a 17-tile Taiwan hand."""

    def recognize(self, data: bytes, name: str) -> dict[str, Any]:
        recognition = super().recognize(data, name)
        hand = parse(TAIWAN)
        return {**recognition, "tiles": [], "groups": [],
                "hand": {"concealed": list(hand.concealed), "melds": [], "winning_tile": hand.winning_tile,
                         "flowers": []}}


@pytest.fixture
def taiwan_client():
    from fastapi.testclient import TestClient

    from mjlens.api.service.app import create_app
    from mjlens.api.service.settings import Settings

    with TestClient(create_app(Settings(model="no-such-model.onnx"), recognizer=TaiwanRecognizer())) as client:
        yield client


def _items(body: dict) -> list[str]:
    return [item["key"] for item in body["items"]]


def test_api_photo_score_south_seat_is_not_dealer(taiwan_client) -> None:
    def photo(**fields: str) -> dict:
        response = taiwan_client.post("/v1/photo-score", files={"image": ("hand.jpg", sample_photo(), "image/jpeg")},
                                      data={"rules": "taiwan", "options": '{"discarder": "W"}', **fields})
        assert response.status_code == 200, response.text
        return response.json()["score"]

    assert "dealer" not in _items(photo(seat_wind="S"))
    assert "dealer" in _items(photo())
    given = photo(seat_wind="S", dealer="true")
    assert "dealer" in _items(given) and any("the dealer sits East" in w for w in given["warnings"])


def test_api_score_south_seat_is_not_dealer(taiwan_client) -> None:
    hand = Hand.from_json(parse(TAIWAN).to_json()).to_json() | {"context": {"seat_wind": "S"}}
    response = taiwan_client.post("/v1/score", json={"rules": "taiwan", "hand": hand, "options": {"discarder": "W"}})
    assert response.status_code == 200, response.text
    assert "dealer" not in _items(response.json())
