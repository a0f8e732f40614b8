"""Guangdong 雞平和 (Chicken Hand): 番 with a cap (爆和), points = 2^番.

How a hand is valued (docs/rules/cantonese.md has every decision with the rule document's wording):
- a hand beyond the cap (清一色, 混碰, 十三幺...) counts its single highest special pattern and nothing else
  ("這些特殊牌型不再疊加其他番種");
- otherwise its within-cap patterns (平和, 碰碰和, 混一色; none = 雞和, 0 番) plus the additions (自摸, seat and
  round wind pungs, each dragon pung), the sum never passing the cap (default 3);
- in the 3-番 cases (一炮三響, 杠上開花, 杠上開花包杠, 海底撈月, 搶杠) a hand under 3 番 counts as 3.
Every value is in ``table.toml`` and can be replaced by a house-rule TOML (``options["house_rules"]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mjlens.i18n import join, msg
from mjlens.scoring.decompose import Arrangement, Shapes, arrangements, meld_group
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Context, Hand, validate_size, validate_structure
from mjlens.scoring.result import Excluded, Item, ScoreResult
from mjlens.scoring.tiles import counts_of, index

from .patterns import additions, facts_of, patterns
from .rules import Rules, default_rules, rules_for
from .settle import SETTLEMENT_OPTIONS, Payers, payers, settle_together, settlement

NAME = "cantonese"
UNIT = "fan"
OPTIONS = ("house_rules", *SETTLEMENT_OPTIONS)

__all__ = ["NAME", "UNIT", "catalog", "score_hand", "settle_together"]

NO_STACK = msg("爆和以外的特殊牌型不再疊加其他番種: a hand beyond the cap counts its highest special pattern alone")
NO_ADDITIONS = msg("爆和以外不加番: additions count only for hands within the cap")
ONE_FLOOR = msg("one 3-番 case raises the hand; the others add nothing")


@dataclass
class Valuation:
    """The value of one reading of the hand."""

    arrangement: Arrangement
    total: int
    items: list[Item] = field(default_factory=list)
    excluded: list[Excluded] = field(default_factory=list)
    capped_from: int | None = None
    raised_from: int | None = None

    @property
    def rank(self) -> tuple[int, int]:
        return self.total, sum(i.points for i in self.items)


def _item(rules: Rules, key: str, value: int | None = None, count: int = 1) -> Item:
    d = rules.items[key]
    return Item(key, d.name_zh, d.name_en, d.value if value is None else value, count)


def _check_context(hand: Hand) -> None:
    """Contexts that cannot happen: a clear ``bad_context`` instead of a silently wrong score."""
    ctx = hand.context
    first_go = {"heavenly": ctx.heavenly, "earthly": ctx.earthly, "human": ctx.human}
    named = [k for k, v in first_go.items() if v]
    problems = []
    if len(named) > 1:
        problems.append(msg("{named} cannot both hold", named=" and ".join(named)))
    if ctx.heavenly and not ctx.dealer:
        problems.append(msg("天和 (heavenly) is the dealer's win"))
    if (ctx.earthly or ctx.human) and ctx.dealer:
        problems.append(msg("地和/人和 (earthly/human) are wins of a player who is not the dealer"))
    if ctx.human and ctx.self_drawn:
        problems.append(msg("人和 (human) is a win on a discard, not self-drawn"))
    if named and hand.melds:
        problems.append(msg("天和/地和/人和 hands have no melds (any chow, pung or kong before it voids them)"))
    if ctx.robbing_kong and ctx.kong_replacement:
        problems.append(msg("a win cannot both rob a kong and be on a kong replacement tile"))
    if ctx.kong_replacement and not any(m.kind == "kong" for m in hand.melds):
        problems.append(msg("a win on a kong replacement tile (杠上開花) needs a kong in the hand"))
    if problems:
        raise HandError("bad_context", join("; ", problems))


def _check_robbed_tile(hand: Hand, warnings: list[str]) -> Hand:
    """搶杠 robs the fourth copy of a tile another player is adding to a pung: a hand already holding a copy of
    the winning tile cannot have robbed it. The flag is dropped with a warning (the win is then an ordinary
    discard win) rather than refused, because it depends on which tile won and the engine may be trying every
    candidate when the winning tile is unknown."""
    tile = hand.winning_tile
    if not hand.context.robbing_kong or tile is None:
        return hand
    if tile in hand.concealed or any(tile in m.tiles for m in hand.melds):
        warnings.append(msg("robbing the kong of {tile} is impossible while holding one: 搶杠 not counted", tile=tile))
        return replace(hand, context=replace(hand.context, robbing_kong=False))
    return hand


def _self_drawn(ctx: Context) -> bool:
    """A kong replacement, 天和/地和 and 搶杠 ("當自摸") count as self-drawn."""
    return ctx.self_drawn or ctx.kong_replacement or ctx.heavenly or ctx.earthly or ctx.robbing_kong


def _floors(hand: Hand, options: dict[str, Any]) -> list[str]:
    """The 3-番 cases that apply, in table order."""
    ctx = hand.context
    others = options.get("other_winners", [])
    found = {
        "three_winners": not _self_drawn(ctx) and isinstance(others, list) and len(others) == 2,
        "kong_replacement": ctx.kong_replacement and "kong_feeder" not in options,
        "kong_replacement_liable": ctx.kong_replacement and "kong_feeder" in options,
        "last_tile": ctx.last_tile and _self_drawn(ctx),
        "robbing_kong": ctx.robbing_kong,
    }
    return [k for k, hit in found.items() if hit]


def _value(hand: Hand, arrangement: Arrangement, rules: Rules, floors: list[str]) -> Valuation:
    ctx = hand.context
    facts = facts_of(hand, arrangement)
    found = patterns(facts)
    found += [k for k in ("heavenly", "earthly", "human") if getattr(ctx, k)]
    excluded: list[Excluded] = []
    for key in list(found):
        for gone in rules.items[key].excludes:
            if gone in found and key in found:
                found.remove(gone)
                excluded.append(Excluded(gone, key, msg("{name_zh} already counts it",
                                                        name_zh=rules.items[key].name_zh)))
    extras = additions(facts, ctx.seat_wind, ctx.round_wind, _self_drawn(ctx))
    limits = [k for k in found if rules.items[k].kind == "limit"]
    if limits:
        best = max(limits, key=lambda k: rules.value(k))  # first of the highest, in table order
        excluded += [Excluded(k, best, NO_STACK) for k in found if k != best]
        excluded += [Excluded(k, best, NO_ADDITIONS) for k in extras]
        v = Valuation(arrangement, rules.value(best), [_item(rules, best)], excluded)
    else:
        items = [_item(rules, k) for k in found] or [_item(rules, "chicken")]
        items += [_item(rules, k, count=n) for k, n in extras.items()]
        raw = sum(i.points for i in items)
        v = Valuation(arrangement, min(raw, rules.cap), items, excluded)
        if raw > rules.cap:
            v.capped_from = raw
    if floors and v.total < rules.floor:
        v.items.append(_item(rules, floors[0], value=rules.floor - v.total))
        v.raised_from, v.total = v.total, rules.floor
        v.excluded += [Excluded(k, floors[0], ONE_FLOOR) for k in floors[1:]]
    return v


def _check_options(options: dict[str, Any]) -> None:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise HandError("bad_option", msg("unknown option(s) for cantonese: {unknown}; known: {OPTIONS}",
                                          unknown=', '.join(unknown), OPTIONS=', '.join(OPTIONS)))


def score_hand(hand: Hand, options: dict) -> ScoreResult:
    """Score a 14-tile hand under 雞平和; raises HandError for a hand that does not win or bad options."""
    _check_options(options)
    rules = rules_for(options.get("house_rules"))
    validate_structure(hand)  # a Hand built in code skips Hand.from_json's checks: a bonus tile or fifth copy
    validate_size(hand, (14,), NAME)
    _check_context(hand)
    if "kong_feeder" in options and not any(m.kind == "kong" and not m.concealed for m in hand.melds):
        raise HandError("bad_option", msg("'kong_feeder' (杠上開花包杠) needs an exposed kong made from a discard"))
    warnings: list[str] = []
    hand = _check_robbed_tile(hand, warnings)
    who = payers(hand.context, _self_drawn(hand.context), options, warnings)
    melds = tuple(meld_group(m.kind, min(index(t) for t in m.tiles), m.concealed) for m in hand.melds)
    readings = arrangements(tuple(counts_of(hand.all_concealed())), melds,
                            Shapes(seven_pairs=rules.seven_pairs, thirteen_orphans=True))
    if not readings:
        raise HandError("not_winning", msg("the tiles do not form a winning hand (four sets and a pair, seven "
                                           "pairs or thirteen orphans)") if rules.seven_pairs else
                        msg("the tiles do not form a winning hand (four sets and a pair or thirteen orphans)"))
    floors = _floors(hand, options)
    best = max((_value(hand, a, rules, floors) for a in readings), key=lambda v: v.rank)
    if hand.flowers:
        warnings.append(msg("bonus tiles carry no 番 in 雞平和 (played with 136 tiles, no flowers): ignored"))
    if best.capped_from is not None:
        warnings.append(msg("爆和: the items add up to {capped_from} 番, capped at {cap}",
                            capped_from=best.capped_from, cap=rules.cap))
    points = 2 ** best.total
    result = ScoreResult(
        rules=NAME, total=best.total, unit=UNIT, items=best.items, excluded=best.excluded,
        minimum=rules.minimum, meets_minimum=best.total >= rules.minimum,
        decomposition=best.arrangement.to_json(), warnings=warnings,
        extra={"points": points, "cap": rules.cap},
    )
    if best.capped_from is not None:
        result.extra["capped_from"] = best.capped_from
    if best.raised_from is not None:
        result.extra["raised_from"] = best.raised_from
    if rules.overrides:
        result.extra["house_rules"] = rules.overrides
    if best.total < rules.minimum:
        result.valid = False
        result.error = HandError("below_minimum", msg("the hand is worth {total} 番; the house minimum (起糊) is "
                                                      "{minimum}", total=best.total, minimum=rules.minimum))
        return result
    result.settlement = settlement(who, points, rules.discard_multiplier, rules.self_drawn_multiplier)
    _note_liability(result, who, hand)
    return result


def _note_liability(result: ScoreResult, who: Payers, hand: Hand) -> None:
    """Say who pays for all, and warn when a 包自摸 claim does not match the hand's shape."""
    if not who.pays_all:
        return
    result.extra["pays_all"] = who.pays_all
    if who.liability == "liable":
        exposed = sum(1 for m in hand.melds if not m.concealed)
        keys = {i.key for i in result.items} | {e.key for e in result.excluded}
        if exposed < 4 and not keys & {"big_winds", "big_dragons"}:
            result.warnings.append(msg("包自摸 is for a hand with twelve tiles laid down (four exposed melds) or "
                                       "大四喜/大三元 fed by the last set; this hand has neither"))


def catalog() -> list[dict]:
    """Every row of the default table: key, names, 番 value, and whether it counts within the 爆和 cap."""
    rules = default_rules()
    out = []
    for d in sorted(rules.items.values(), key=lambda d: ("base addition limit floor".split().index(d.kind))):
        value = rules.floor if d.kind == "floor" else d.value
        out.append({"key": d.key, "name_zh": d.name_zh, "name_en": d.name_en, "value": value,
                    "within_cap": d.kind in ("base", "addition"), "kind": d.kind})
    return out

