"""The HTTP endpoints for a hand in progress: ``POST /v1/waits`` and ``POST /v1/advise`` (CONVENTIONS §7), and
what ``/v1/photo-score`` and ``mjlens photo`` add when the photo's hand does not win: its waits when it is one
tile short, advice when it holds a tile too many."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from mjlens.scoring.advice import advise, waits
from mjlens.scoring.engine import rule_module
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand
from mjlens.scoring.result import ScoreResult
from mjlens.scoring.rule_shapes import rule_facts
from mjlens.scoring.sighting import Sighting

from .errors import REQUEST_ERROR_CODES, ApiError
from .lang import JSONResponse

_EXAMPLE = {
    "rules": "mcr",
    "hand": {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z"],
             "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"], "concealed": False}], "winning_tile": None},
    "seen": ["9s"],
    "discards": {"S": ["6s", "1m"], "W": ["3z"]},
}


class HandQuestion(BaseModel):
    """A hand in progress (Hand JSON, ``winning_tile`` null or left out), the rules, and what is in sight."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE]})

    rules: str = Field(description="mcr, taiwan or cantonese")
    hand: dict[str, Any] = Field(description="Hand JSON: 13 tiles (16 Taiwan) for waits; that or one more to advise")
    options: dict[str, Any] = Field(default_factory=dict, description="scoring options and house rules")
    seen: list[Any] = Field(default_factory=list, description="other tiles in sight (other players' melds...)")
    discards: dict[str, Any] = Field(default_factory=dict, description="each seat's discards: {\"S\": [\"1m\"]}")


def _answer(body: HandQuestion, question) -> JSONResponse:
    try:
        rule_module(body.rules)
        hand = Hand.from_json(body.hand)
        sighting = Sighting.from_json(body.seen, body.discards)
    except HandError as err:
        raise ApiError(400, err.code, err.message) from None
    result = question(hand, body.rules, body.options, sighting)
    if not result["valid"] and result["error"]["code"] in REQUEST_ERROR_CODES:
        raise ApiError(400, result["error"]["code"], result["error"]["message"])
    return JSONResponse(result)


def analysis_router() -> APIRouter:
    router = APIRouter(tags=["scoring"])
    ready = "A hand of the wrong size for the question is a 200 with `valid: false` (`tile_count`, saying which " \
            "size it expects), as `/v1/score` answers a hand that does not win; a malformed hand, an unknown rule " \
            "system or a bad option is a 400."

    @router.post("/waits", summary="What a hand one tile short waits on, and what each win pays",
                 description="Every tile that completes the hand, the copies left unseen (four, less the hand's, "
                             "`seen` and `discards`), and the Score JSON of the win on a discard and self-drawn. "
                             + ready)
    def post_waits(body: Annotated[HandQuestion, Body()]) -> JSONResponse:
        return _answer(body, waits)

    @router.post("/advise", summary="Shanten, and which tile to discard",
                 description="The hand's shanten and useful tiles; with a tile too many, each discard ranked with "
                             "its shanten, the tiles that improve it, its waits when it leaves the hand ready, "
                             "safety marks from `discards` and the reason in words. " + ready)
    def post_advise(body: Annotated[HandQuestion, Body()]) -> JSONResponse:
        return _answer(body, advise)

    return router


def hand_in_progress(hand: dict[str, Any] | None, rules: str, options: dict[str, Any] | None,
                     result: ScoreResult) -> dict[str, Any]:
    """For a photo's hand that does not win: ``{"waits": ...}`` when it is one tile short, ``{"advice": ...}`` when
    it holds a tile too many (and does not win); else nothing."""
    if not hand or result.valid or result.error is None or result.error.code not in ("tile_count", "not_winning"):
        return {}
    try:
        facts = rule_facts(rules, options)
        size = Hand.from_json(hand).effective_size()
    except HandError:
        return {}
    if size == facts.size - 1:
        return {"waits": waits(hand, rules, options)}
    if size == facts.size and result.error.code == "not_winning":
        return {"advice": advise(hand, rules, options)}
    return {}
