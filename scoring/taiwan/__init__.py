"""Taiwan 16-tile (台灣十六張) scoring: the 36 計台名堂 items of the rule document, in 台, with settlement.

The hand has 17 tiles (five sets and a pair; a kong counts three). The scorer reads every arrangement of
the tiles and every place the winning tile could sit, keeps the reading worth the most 台, then settles:
each payer owes 底 + 台 × 台值, where 作莊 and 連N拉N count only on payments that involve the dealer.
Decisions where the rule text is silent or garbled are written in docs/rules/taiwan.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from mjlens.i18n import msg
from mjlens.scoring.decompose import Arrangement, Group, Shapes, arrangements, meld_group
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Context, Hand, Meld, validate_size, validate_structure
from mjlens.scoring.result import Excluded, Item, ScoreResult
from mjlens.scoring.tiles import BONUS_CODES, INDEX, WIND_LETTERS, counts_of, wind_index
from mjlens.scoring.waits import only_one_wait, placements

from .detect import DETECTORS, View
from .options import Options, parse_options
from .settle import payments, previous_seat, settlement
from .table import items

NAME = "taiwan"
UNIT = "tai"
HAND_SIZE = 17


def catalog() -> list[dict[str, Any]]:
    """Every item of the table (key, Chinese and English names, 台, what it replaces)."""
    return [item.to_json() for item in items().values()]


def shapes(opts: Options) -> Shapes:
    """Five sets and a pair; 嚦咕嚦咕 (seven pairs and a pung) unless the house rule turns it off."""
    return Shapes(sets=5, seven_pairs=False, thirteen_orphans=False, seven_pairs_pung=opts.seven_pairs_pung)


@dataclass
class _Win:
    """How the hand was won, after the context and the options were checked against each other."""

    context: Context
    self_drawn: bool
    ready: str | None
    warnings: list[str]


@dataclass
class _Scored:
    view: View
    counted: list[Item]
    excluded: list[Excluded]

    @property
    def tai(self) -> int:
        return sum(i.points for i in self.counted)


def score_hand(hand: Hand, options: dict) -> ScoreResult:
    """Score a 17-tile hand: the best reading's items, its exclusions and the per-payer settlement.

    Raises HandError (``tile_count``, ``not_winning``, ``bad_context``, ``bad_option``...) on bad input; a hand
    holding all eight flowers wins by 八仙過海 even when its tiles form no hand.
    """
    opts = parse_options(options)
    validate_structure(hand)
    validate_size(hand, (HAND_SIZE,), NAME)
    if hand.winning_tile is None:
        raise HandError("bad_hand_json", msg("the winning tile is needed (scoring.engine.score tries every "
                                             "candidate)"))
    groups = tuple(_meld_group(m) for m in hand.melds)
    shape = shapes(opts)
    readings = arrangements(tuple(counts_of(hand.all_concealed())), groups, shape)
    win = _check_win(hand, opts, replacement_win=bool(readings) and opts.bonus_win is not None)
    _check_robbed_tile(hand, win)
    flowers, bonus_win = _flowers(hand, opts, win.warnings)
    if not readings:
        if bonus_win is None and len(flowers) == len(BONUS_CODES):
            bonus_win = "eight_immortals"
        if bonus_win is None:
            raise HandError("not_winning", msg("the 17 tiles do not form five sets and a pair (or 嚦咕嚦咕)"))
        win.warnings.append(msg("the tiles form no winning hand: scored as the flower win {bonus_win} alone",
                                bonus_win=bonus_win))
    base = _base_view(hand, win, flowers, bonus_win, groups, shape)
    candidates = [base] if not readings else [
        replace(base, arrangement=a, concealed_pungs=n) for a, n in _placements(readings, hand, win.self_drawn)
    ]
    best = max((_score_view(v, opts) for v in candidates), key=lambda s: s.tai)
    return _result(opts, win, best, bonus_win)


# -- the win context -------------------------------------------------------------------------------


def _check_win(hand: Hand, opts: Options, replacement_win: bool = False) -> _Win:
    """Context flags that contradict each other or the hand are ``bad_context``; implied ones are set.

    ``replacement_win``: a flower win (八仙過海, 七搶一) whose tiles also win. The hand was completed by the tile
    drawn from 杠尾 to replace the eighth flower, which 002 calls 槓上開花 (items 29, 30: "如補得之牌恰為杠上開花,
    牌面台數照算加計八仙過海8台"), so ``kong_replacement`` (and with it self-drawn) is implied, unless the context
    says the win came otherwise (天胡/地胡/人胡 on the first draw, item 28, or 搶槓).
    """
    ctx = hand.context
    warnings: list[str] = []
    open_melds = any(not (m.kind == "kong" and m.concealed) for m in hand.melds)
    if sum((ctx.heavenly, ctx.earthly, ctx.human)) > 1:
        raise HandError("bad_context", msg("at most one of heavenly (天胡), earthly (地胡), human (人胡)"))
    if ctx.heavenly and not ctx.dealer:
        raise HandError("bad_context", msg("天胡 (heavenly) is the dealer's hand: set dealer true"))
    if ctx.earthly and ctx.dealer:
        raise HandError("bad_context", msg("地胡 (earthly) is a non-dealer's hand: set dealer false"))
    if ctx.robbing_kong and (ctx.self_drawn or ctx.kong_replacement):
        raise HandError("bad_context", msg("搶槓 (robbing a kong) is won on another player's tile, not self-drawn"))
    if open_melds and (ctx.heavenly or ctx.earthly or ctx.human):
        raise HandError("bad_context", msg("天胡, 地胡 and 人胡 need a concealed hand (no chow, pung or exposed kong)"))
    if replacement_win and not (ctx.kong_replacement or ctx.robbing_kong or ctx.heavenly or ctx.earthly
                                or ctx.human):
        ctx = replace(ctx, kong_replacement=True)
        warnings.append(msg("a flower win whose tiles also win was completed by the replacement tile from 杠尾 "
                            "(如補得之牌恰為杠上開花): counted as 槓上開花"))
    self_drawn = ctx.self_drawn
    for flag, name in ((ctx.heavenly, "天胡 (heavenly)"), (ctx.kong_replacement, "槓上開花 (kong replacement)")):
        if flag and not self_drawn:
            self_drawn = True
            warnings.append(msg("{name} is a self-drawn win: counted as self-drawn", name=name))
    if ctx.last_tile and not self_drawn:
        warnings.append(msg("a win on the last discard (河底) is not one of the 36 items: no 台 for it"))
    if ctx.last_of_kind:
        warnings.append(msg("絕張 (last of its kind) is not one of the 36 items: no 台 for it"))
    ready = _ready(ctx, opts, open_melds)
    return _Win(ctx, self_drawn, ready, warnings)


def _check_robbed_tile(hand: Hand, win: _Win) -> None:
    """搶槓 robs the fourth copy of a tile whose pung another player shows: a hand already holding a copy of
    the winning tile cannot have robbed it. Dropped with a warning rather than refused, because it depends on
    which tile won (the engine tries every candidate when the winning tile is unknown)."""
    if not win.context.robbing_kong:
        return
    tile = hand.winning_tile
    if tile in hand.concealed or any(tile in m.tiles for m in hand.melds):
        win.warnings.append(msg("robbing the kong of {tile} is impossible while holding one: 搶槓 not counted",
                                tile=tile))
        win.context = replace(win.context, robbing_kong=False)


def _ready(ctx: Context, opts: Options, open_melds: bool) -> str | None:
    """天聽 or 地聽: the ``ready`` option says which; ``declared_ready: true`` alone means 地聽."""
    if opts.ready is not None and ctx.declared_ready is False:
        raise HandError("bad_option", msg("'ready': {ready} contradicts declared_ready false in the context",
                                          ready=opts.ready))
    ready = opts.ready or ("earthly" if ctx.declared_ready else None)
    if ready == "heavenly" and ctx.dealer:
        raise HandError("bad_option", msg("天聽 is a non-dealer's declaration; a dealer declaring at once has 地聽"))
    if ready and open_melds:
        raise HandError("bad_context",
                        msg("天聽/地聽 are declared with a concealed hand (no chow, pung or exposed kong)"))
    return ready


def _flowers(hand: Hand, opts: Options, warnings: list[str]) -> tuple[frozenset[str], str | None]:
    """The bonus tiles held, and the flower win (八仙過海 / 七搶一) the options ask for."""
    flowers = frozenset(hand.flowers)
    if opts.bonus_win == "eight_immortals" and len(flowers) != len(BONUS_CODES):
        raise HandError("bad_option", msg("八仙過海 needs all eight flowers in 'flowers'; the hand holds "
                                          "{n_flowers}", n_flowers=len(flowers)))
    if opts.bonus_win == "seven_rob_one":
        if len(flowers) < len(BONUS_CODES) - 1:
            raise HandError("bad_option", msg("七搶一 needs seven flowers in 'flowers'; the hand holds "
                                              "{n_flowers}", n_flowers=len(flowers)))
        robbed = sorted(set(BONUS_CODES) - flowers)
        if robbed:
            warnings.append(msg("七搶一: {robbed} is the flower robbed from the discarder", robbed=robbed[0]))
        flowers = frozenset(BONUS_CODES)
    return flowers, opts.bonus_win


# -- readings --------------------------------------------------------------------------------------


def _meld_group(meld: Meld) -> Group:
    first = min(INDEX[t] for t in meld.tiles)
    return meld_group(meld.kind, first, meld.concealed)


def _placements(readings: list[Arrangement], hand: Hand, self_drawn: bool) -> list[tuple[Arrangement, int]]:
    """Each arrangement with its 暗坎 count for each place the winning tile could sit.

    A pung completed by another player's discard is not concealed (配得或摸得之坎子 only), so on a
    discard the count depends on where the winning tile goes; the best place is chosen later.
    """
    win = INDEX[hand.winning_tile]
    out = []
    for a in readings:
        hidden = sum(1 for g in a.sets if g.is_triplet and g.concealed)
        if self_drawn:
            out.append((a, hidden))
            continue
        for p in placements(a, win):
            group = a.groups[p]
            out.append((a, hidden - (1 if group.is_triplet and not group.meld else 0)))
    return out


def _base_view(hand: Hand, win: _Win, flowers: frozenset[str], bonus_win: str | None,
               groups: tuple[Group, ...], shape: Shapes) -> View:
    open_melds = sum(1 for m in hand.melds if not (m.kind == "kong" and m.concealed))
    held = tuple(counts_of(hand.all_tiles()))
    single = only_one_wait(counts_of(hand.concealed), INDEX[hand.winning_tile], held,
                           seven_pairs_pung=shape.seven_pairs_pung and not groups)
    ctx = win.context
    return View(
        arrangement=None, counts=held, concealed_pungs=0, open_melds=open_melds,
        all_melds_open=open_melds == 5, single_wait=single, self_drawn=win.self_drawn, context=ctx,
        seat=wind_index(ctx.seat_wind), round=wind_index(ctx.round_wind), flowers=flowers,
        seat_letter=ctx.seat_wind, bonus_win=bonus_win, ready=win.ready,
    )


def _score_view(view: View, opts: Options) -> _Scored:
    """The items of one reading: detect them all, then set aside those a present item replaces."""
    table = items()
    present = {key: n for key, detect in DETECTORS.items() if (n := detect(view))}
    counted: list[Item] = []
    excluded: list[Excluded] = []
    for key, n in present.items():
        by = _replaced_by(key, present)
        if by:
            excluded.append(Excluded(key, by,
                                     msg("{name_zh} is counted within {by_zh} (必然並存之二種以上, 僅得計台數較高的"
                                                  "一種)", name_zh=table[key].name_zh, by_zh=table[by].name_zh)))
        else:
            d = table[key]
            counted.append(Item(key, d.name_zh, d.name_en, _value(key, opts), n))
    return _Scored(view, counted, excluded)


def _replaced_by(key: str, present: dict[str, int]) -> str | None:
    """The counted item that replaces ``key``, following chains (滿花 under 八仙過海 takes 花槓 with it)."""
    table = items()
    replacers = [r for r in present if key in table[r].replaces]
    if not replacers:
        return None
    counted = [r for r in replacers if _replaced_by(r, present) is None]
    if counted:
        return max(counted, key=lambda r: table[r].value)
    return _replaced_by(replacers[0], present)


def _value(key: str, opts: Options) -> int:
    return opts.values.get(key, items()[key].value)


# -- result and settlement -------------------------------------------------------------------------


def _seats(win: _Win, opts: Options, bonus_win: str | None) -> tuple[str, str, list[str], bool]:
    """Winner, dealer, payers, and whether the payers are the three others (a self-drawn payment)."""
    ctx = win.context
    winner = ctx.seat_wind
    if ctx.dealer:
        if opts.dealer_seat not in (None, winner):
            raise HandError("bad_option", msg("the winner ({winner}) is dealer, but dealer_seat says "
                                              "{dealer_seat}", winner=winner, dealer_seat=opts.dealer_seat))
        dealer = winner
    elif opts.dealer_seat == winner:
        raise HandError("bad_option", msg("dealer_seat {winner} is the winner's seat, but the context says "
                                          "not dealer", winner=winner))
    elif opts.dealer_seat is not None:
        dealer = opts.dealer_seat
    else:
        dealer = "E" if winner != "E" else "N"
        if winner == "E":
            win.warnings.append(msg("the winner sits East but is not dealer: assumed the dealer is N (set "
                                    "dealer_seat)"))
    three_pay = bonus_win == "eight_immortals" or (win.self_drawn and bonus_win != "seven_rob_one")
    if three_pay:
        if opts.discarder is not None:
            win.warnings.append(msg("the three others pay (a self-drawn win or 八仙過海); 'discarder' is ignored"))
        return winner, dealer, [s for s in WIND_LETTERS if s != winner], True
    if opts.discarder == winner:
        raise HandError("bad_option", msg("the discarder cannot be the winner"))
    payer = opts.discarder
    if payer is None:
        payer = previous_seat(winner)
        who = msg("the flower was robbed from") if bonus_win == "seven_rob_one" else msg("discarded")
        win.warnings.append(msg("'discarder' not given: assumed {payer} (the seat before the winner) {who}",
                                payer=payer, who=who))
    return winner, dealer, [payer], False


def _result(opts: Options, win: _Win, best: _Scored, bonus_win: str | None) -> ScoreResult:
    table = items()
    winner, dealer, payers, three_pay = _seats(win, opts, bonus_win)
    streak = win.context.dealer_streak
    dealer_items = [Item("dealer", table["dealer"].name_zh, table["dealer"].name_en, _value("dealer", opts))]
    if streak:
        d = table["dealer_streak"]
        dealer_items.append(Item(d.key, d.name_zh.replace("N", str(streak)), d.name_en,
                                 _value(d.key, opts), streak))
    dealer_tai = sum(i.points for i in dealer_items)
    pays = payments(winner, dealer, payers, best.tai, dealer_tai, opts.base, opts.per_tai)
    counted = list(best.counted)
    involves_dealer = [dealer in (winner, p.payer) for p in pays]
    if all(involves_dealer):
        counted.extend(i for i in dealer_items if i.points)
    elif any(involves_dealer) and dealer_tai:
        win.warnings.append(msg("the dealer ({dealer}) also pays 作莊/連莊 {dealer_tai} 台; the total is the 台 a "
                                "non-dealer pays (see settlement_detail)", dealer=dealer, dealer_tai=dealer_tai))
    detail = {
        "stakes": {"base": opts.base, "per_tai": opts.per_tai},
        "winner": winner,
        "dealer": dealer,
        "self_drawn_payment": three_pay,
        "hand_tai": best.tai,
        "dealer_tai": dealer_tai,
        "payers": [p.to_json() for p in pays],
    }
    arrangement = best.view.arrangement
    return ScoreResult(
        rules=NAME, valid=True, total=sum(i.points for i in counted), unit=UNIT, items=counted,
        excluded=best.excluded, minimum=None, meets_minimum=True,
        decomposition=arrangement.to_json() if arrangement else [],
        settlement=settlement(winner, pays), warnings=win.warnings,
        extra={"settlement_detail": detail, "bonus_win": bonus_win},
    )
