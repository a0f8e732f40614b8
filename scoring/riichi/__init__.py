"""Japanese riichi (立直麻雀), scored by the `mahjong` package: han, fu, the limit and the payments.

`mahjong` finds the yaku, counts fu and han and works out the payments (checked by its authors against millions
of recorded online games); this module turns a Hand into its input (``convert``), names what it finds in
Japanese, English and Chinese (``table.toml``) and lays the answer out as a Score result: ``total`` is the han,
``items`` the yaku and dora, ``fu_items`` the fu count line by line, ``limit`` the limit reached, ``points`` the
payments and ``settlement`` the four seats. docs/rules/riichi.md has the rules and options.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_response import HandResponse
from mahjong.hand_calculating.yaku_config import YakuConfig

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand, validate_size, validate_structure
from mjlens.scoring.result import Item, ScoreResult
from mjlens.scoring.tiles import RED_FIVES

from .convert import Call, to_call
from .options import RiichiOptions, known_options, parse_options
from .payments import points, previous_seat, settlement
from .reading import as_codes, chosen, readings
from .table import Names, table

NAME = "riichi"
UNIT = "han"
#: Every option key (``bad_option`` for any other).
OPTIONS = known_options()
#: One yaku makes a win (dora alone do not).
MINIMUM = 1
YAKUMAN_HAN = 13

__all__ = ["NAME", "OPTIONS", "UNIT", "catalog", "score_hand"]

#: `mahjong`'s refusals of a context that cannot happen, in words.
CONTEXT_ERRORS = {
    HandCalculator.ERR_OPEN_HAND_RIICHI: msg("riichi is declared with a closed hand: this one has open melds"),
    HandCalculator.ERR_OPEN_HAND_DABURI: msg("double riichi is declared with a closed hand: this one has open melds"),
    HandCalculator.ERR_IPPATSU_WITHOUT_RIICHI: msg("ippatsu needs riichi or double riichi"),
    HandCalculator.ERR_CHANKAN_WITH_TSUMO: msg("robbing a kan (chankan) is a win on another player's tile, not "
                                           "self-drawn"),
    HandCalculator.ERR_RINSHAN_WITHOUT_TSUMO: msg("a win on a kan replacement tile (rinshan) is self-drawn"),
    HandCalculator.ERR_HAITEI_WITHOUT_TSUMO: msg("a guard: haitei is the last tile drawn"),
    HandCalculator.ERR_HOUTEI_WITH_TSUMO: msg("a guard: houtei is the last tile discarded"),
    HandCalculator.ERR_HAITEI_WITH_RINSHAN: msg("the last tile of the wall (haitei) cannot be a kan replacement tile"),
    HandCalculator.ERR_HOUTEI_WITH_CHANKAN: msg("the last discard (houtei) cannot be a robbed kan"),
    HandCalculator.ERR_TENHOU_NOT_AS_DEALER: msg("blessing of heaven (tenhou, heavenly) is the dealer's win"),
    HandCalculator.ERR_TENHOU_WITHOUT_TSUMO: msg("blessing of heaven (tenhou, heavenly) is self-drawn"),
    HandCalculator.ERR_TENHOU_WITH_MELD: msg("blessing of heaven (tenhou, heavenly) is won with no melds"),
    HandCalculator.ERR_CHIIHOU_AS_DEALER: msg("blessing of earth (chiihou, earthly) is a win of a player who is not "
                                          "dealer"),
    HandCalculator.ERR_CHIIHOU_WITHOUT_TSUMO: msg("blessing of earth (chiihou, earthly) is self-drawn"),
    HandCalculator.ERR_CHIIHOU_WITH_MELD: msg("blessing of earth (chiihou, earthly) is won with no melds"),
    HandCalculator.ERR_RENHOU_AS_DEALER: msg("blessing of man (renhou, human) is a win of a player who is not dealer"),
    HandCalculator.ERR_RENHOU_WITH_TSUMO: msg("blessing of man (renhou, human) is a win on a discard"),
    HandCalculator.ERR_RENHOU_WITH_MELD: msg("blessing of man (renhou, human) is won with no melds"),
}
#: Context keys of other rule systems that riichi has no use for: set, they are said to be ignored.
IGNORED_CONTEXT = {"dealer_streak": msg("riichi counts honba instead"), "last_of_kind": msg("riichi has no such yaku"),
                   "declared_ready": msg("riichi is the context key 'riichi'")}
#: Dora items: `mahjong` gives each as one yaku whose han is the count.
DORA_KEYS = ("dora", "aka_dora", "ura_dora")


@dataclass
class RiichiItem(Item):
    """A Score item with its Japanese name as well."""

    name_ja: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "name_ja": self.name_ja}


def _item(names: Names, key: str, value: int, count: int = 1) -> RiichiItem:
    return RiichiItem(key, names.zh, names.en, value, count, names.ja)


_YAKU_KEYS: dict[int, str] = {y.yaku_id: key for key, y in vars(YakuConfig()).items()}


def _check_context(hand: Hand, warnings: list[str]) -> None:
    ctx = hand.context
    if ctx.kong_replacement and not any(m.kind == "kong" for m in hand.melds):
        raise HandError("bad_context", msg("a win on a kan replacement tile (rinshan) needs a kan in the hand"))
    if ctx.ippatsu and not (ctx.riichi or ctx.double_riichi):
        raise HandError("bad_context", msg("ippatsu needs riichi or double riichi"))
    if ctx.riichi and ctx.double_riichi:
        warnings.append(msg("riichi and double riichi both given: double riichi counts (it is the riichi of "
                            "the first turn)"))
    if ctx.ura_indicators and not (ctx.riichi or ctx.double_riichi):
        warnings.append(msg("ura dora count only for a riichi win: ura_indicators ignored"))
    for key, why in IGNORED_CONTEXT.items():
        if getattr(ctx, key) not in (0, False, None):
            warnings.append(msg("context '{key}' is not used in riichi ({why}): ignored", key=key, why=why))
    if hand.flowers:
        warnings.append(msg("riichi is played without bonus tiles: the flowers are ignored"))


def _yaku_items(response: HandResponse) -> list[RiichiItem]:
    names = table().yaku
    out = []
    for y in response.yaku or []:
        key = _YAKU_KEYS[y.yaku_id]
        han = y.han_open if response.is_open_hand and y.han_open else y.han_closed
        if key in DORA_KEYS:
            out.append(_item(names[key], key, 1, han))
        else:
            out.append(_item(names[key], key, han))
    return out


def _fu_items(response: HandResponse) -> list[RiichiItem]:
    """The fu count line by line: `mahjong`'s lines, its closed-ron base of 30 told as base 20 and 10 for the
    concealed hand, and the rounding up to the next 10."""
    names = table().fu
    details = response.fu_details or []
    if not details:  # thirteen orphans: no fu count
        return []
    seven_pairs = len(details) == 1 and details[0]["fu"] == 25
    out = []
    for d in details:
        reason, fu = d["reason"], d["fu"]
        if reason == "base" and seven_pairs:
            out.append(_item(names["seven_pairs"], "seven_pairs", 25))
        elif reason == "base" and fu == 30:
            out += [_item(names["base"], "base", 20), _item(names["menzen_ron"], "menzen_ron", 10)]
        else:
            out.append(_item(names[reason], reason, fu))
    rest = (response.fu or 0) - sum(i.points for i in out)
    if rest > 0:
        out.append(_item(names["rounding"], "rounding", rest))
    return out


def _limit(level: str) -> dict[str, str] | None:
    if not level:
        return None
    names = table().limit[level]
    return {"key": level, "name_ja": names.ja, "name_en": names.en, "name_zh": names.zh}


def _level(level: str, items: list[RiichiItem], han: int) -> str:
    """`mahjong`'s limit name, told apart where it is counted: 13 han or more without a yakuman is paid as a
    yakuman or a sanbaiman (option counted_yakuman), and `mahjong` names only what it is paid as."""
    if han >= YAKUMAN_HAN and not any(i.value >= YAKUMAN_HAN for i in items):
        return {"yakuman": "kazoe yakuman", "sanbaiman": "kazoe sanbaiman"}.get(level, level)
    return level


def _yakuman(items: list[RiichiItem], level: str) -> int:
    multiples = sum(i.value // YAKUMAN_HAN for i in items if i.value >= YAKUMAN_HAN)
    return multiples or (1 if level == "kazoe yakuman" else 0)


def _discarder(hand: Hand, opts: RiichiOptions, warnings: list[str]) -> str | None:
    winner = hand.context.seat_wind
    if hand.context.self_drawn:
        if opts.discarder is not None:
            warnings.append(msg("the option 'discarder' is for a win on a discard: ignored for this self-drawn win"))
        return None
    if opts.discarder == winner:
        raise HandError("bad_option", msg("the discarder ({winner}) cannot be the winner", winner=winner))
    if opts.discarder is not None:
        return opts.discarder
    discarder = previous_seat(winner)
    warnings.append(msg("discarder not given: assumed the player before the winner ({discarder}); set the "
                        "option 'discarder' to change it", discarder=discarder))
    return discarder


def _estimate(call: Call) -> HandResponse:
    return HandCalculator.estimate_hand_value(call.tiles, call.win_tile, melds=call.melds, dora_indicators=call.dora,
                                              config=call.config, ura_dora_indicators=call.ura)


def score_hand(hand: Hand, options: dict[str, Any]) -> ScoreResult:
    """Score a 14-tile riichi hand (a kan counted as three); raises HandError for a hand that does not win, has
    no yaku, or an impossible context or bad option."""
    opts = parse_options(options)
    validate_structure(hand)
    validate_size(hand, (14,), NAME)
    warnings: list[str] = []
    _check_context(hand, warnings)
    call = to_call(hand, opts)
    warnings += call.warnings
    response = _estimate(call)
    if response.error == HandCalculator.ERR_HAND_NOT_WINNING:
        raise HandError("not_winning", msg("the tiles do not form a winning hand (four sets and a pair, seven "
                                           "pairs or thirteen orphans)"))
    if response.error == HandCalculator.ERR_NO_YAKU:
        raise HandError("no_yaku", msg("the hand wins in shape but has no yaku (dora alone do not make a win)"))
    if response.error is not None:
        raise HandError("bad_context", CONTEXT_ERRORS.get(response.error, response.error))
    found = readings(call)
    if len(found) > 1:
        warnings.append(msg("the tiles read {n_found} ways (as sets, or where the winning tile sits): each "
                            "was scored and the one that pays most is kept", n_found=len(found)))
    discarder = _discarder(hand, opts, warnings)
    items = _yaku_items(response)
    cost = response.cost
    assert cost is not None and response.han is not None
    level = _level(cost["yaku_level"], items, response.han)
    paid = points(dict(cost), hand.context.self_drawn, bool(hand.context.dealer))
    extra: dict[str, Any] = {
        "fu": response.fu, "fu_items": [i.to_json() for i in _fu_items(response)], "limit": _limit(level),
        "yakuman": _yakuman(items, level), "points": paid,
        "red_fives": sum(1 for t in hand.all_tiles() if t in RED_FIVES),
    }
    if opts.changed():
        extra["options"] = opts.changed()
    result = ScoreResult(
        rules=NAME, total=response.han, unit=UNIT, items=list(items), minimum=MINIMUM, meets_minimum=True,
        decomposition=as_codes(chosen(found, call, response), call), warnings=warnings, extra=extra,
        settlement=settlement(paid, hand.context.seat_wind, discarder),
    )
    if sum(i.points for i in items) != response.han:  # more than six yakuman: `mahjong` counts six
        result.extra["capped_from"] = sum(i.points for i in items)
        warnings.append(msg("the yakuman add up to {capped_from} han: counted as six yakuman (78 han)",
                            capped_from=result.extra['capped_from']))
    return result


def catalog() -> list[dict[str, Any]]:
    """Every yaku offered, in `mahjong`'s order, with its names and han closed and open (0: not possible)."""
    names = table().yaku
    out = []
    for key, y in vars(YakuConfig()).items():
        row = names[key]
        if not row.offered:
            continue
        out.append({"key": key, "name_ja": row.ja, "name_en": row.en, "name_zh": row.zh, "value": y.han_closed,
                    "han_closed": y.han_closed, "han_open": y.han_open, "yakuman": y.is_yakuman,
                    "dora": key in DORA_KEYS})
    return out
