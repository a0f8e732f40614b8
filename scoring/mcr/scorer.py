"""Score one MCR hand: read it in every arrangement, tally each, keep the best (就高不就低).

Arrangements are tried special shapes first, then the standard ones in a fixed order (by their sets),
and a later one replaces the kept one only when it is worth strictly more, so equal readings always
resolve the same way (the order pymahjonggb uses, which keeps the items of both identical).
"""

from __future__ import annotations

from mjlens.i18n import msg
from mjlens.scoring.decompose import KNITTED_STRAIGHT, SEVEN_PAIRS, STANDARD, Arrangement, Shapes, arrangements
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand, validate_size
from mjlens.scoring.result import Excluded, Item, ScoreResult

from . import exclusions
from .detectors.chows import chow_fans, terminal_chows
from .detectors.pungs import kong_fans, pung_combination_fans
from .detectors.special import nine_gates, special_fans
from .detectors.tiles import rank_fans, set_trait_fans, suit_fans, tile_hog, trait_fans
from .detectors.win import concealment_fans, wait_fans, win_flag_fans
from .fans import BY_KEY, ORDER, STRICT_1998_NOT_WITH_SEVEN_PAIRS
from .options import Options, parse_options
from .settle import previous_seat, settle
from .view import CODE, WIND_CODES, HandView, build_view, remainder_single_wait

SHAPES = Shapes(knitted=True)
Tally = dict[str, int]
ExcludedList = list[exclusions.Excluded]


def _value(tally: Tally) -> int:
    return sum(BY_KEY[k].value * n for k, n in tally.items())


def _finish(view: HandView, tally: Tally, excluded: ExcludedList, wind_pungs: list[int], opts: Options) -> None:
    exclusions.apply_table(tally, excluded, opts.strict_1998)
    exclusions.pung_adjustments(tally, excluded)
    exclusions.wind_fans(wind_pungs, view.seat, view.prevalent, tally, excluded)


def _standard(view: HandView, arr: Arrangement, opts: Options) -> tuple[Tally, ExcludedList]:
    tally: Tally = {}
    excluded: ExcludedList = []
    win = view.win
    win_flag_fans(view, tally)
    groups = arr.groups
    # On a discard, a winning tile that can only complete a pung makes that pung an exposed one.
    discard_pung = not view.self_drawn and not any(
        g.kind == "chow" and not g.meld and g.first <= win <= g.first + 2 for g in groups)
    chows: list[int] = []
    pungs: list[tuple[int, bool, bool]] = []
    traits: list[tuple[str, int]] = []
    in_hand = []
    pair = -1
    kongs = 0
    for g in groups:
        code = CODE[g.first]
        traits.append((g.kind, code))
        if not g.meld:
            in_hand.append(g)
        if g.kind == "chow":
            chows.append(code)
        elif g.kind == "pair":
            pair = code
        else:
            concealed = g.concealed and not (discard_pung and not g.meld and g.first == win)
            pungs.append((code, g.kind == "kong", concealed))
            kongs += g.kind == "kong"
    if pungs:
        kong_fans(pungs, tally, not opts.concealed_and_melded_kong)
    chows.sort()
    ends = terminal_chows(chows, pair) if len(chows) == 4 else None
    if ends:
        tally[ends] = 1
    else:
        chow_fans(chows, tally, excluded)
    pung_codes = sorted(p[0] for p in pungs)
    pung_combination_fans(pung_codes, tally)
    if not view.meld_groups and nine_gates(view.standing):
        tally["nine_gates"] = 1
    concealment_fans(view, tally)
    _pair_fans(pair, len(chows), tally)
    set_trait_fans(traits, tally)
    present = [i for i, n in enumerate(view.all_counts) if n]
    suit_fans(present, tally)
    trait_fans(present, tally)
    rank_fans(present, tally)
    tile_hog(view.all_counts, kongs, tally)
    if "melded_hand" not in tally and "four_kongs" not in tally:
        wait_fans(view, in_hand, tally)
    _finish(view, tally, excluded, [c - 48 for c in pung_codes if c in WIND_CODES], opts)
    if not tally:
        tally["chicken_hand"] = 1
    return tally, excluded


def _pair_fans(pair: int, chow_count: int, tally: Tally) -> None:
    """平和 (four chows, a numbered pair); 小三元 / 小四喜 (two dragon / three wind pungs and the pair)."""
    if chow_count == 4:
        if pair < 48:
            tally["all_chows"] = 1
    elif "two_dragons_pungs" in tally:
        if pair >= 53:
            tally["little_three_dragons"] = 1
    elif "big_three_winds" in tally and 48 < pair < 53:
        tally["little_four_winds"] = 1


def _knitted(view: HandView, arr: Arrangement, opts: Options) -> tuple[Tally, ExcludedList]:
    """組合龍 + one set + a pair (the set may be a declared meld)."""
    tally: Tally = {"knitted_straight": 1}
    excluded: ExcludedList = []
    knitted = [g for g in arr.groups if g.kind == "knitted"]
    fourth = next(g for g in arr.groups if g.kind not in ("knitted", "pair"))
    pair = next(g for g in arr.groups if g.kind == "pair")
    wind_pungs = []
    if fourth.kind == "chow":
        if pair.first < 27:
            tally["all_chows"] = 1
    else:
        kong_fans([(CODE[fourth.first], fourth.kind == "kong", fourth.concealed)], tally,
                  not opts.concealed_and_melded_kong)
        if CODE[fourth.first] in WIND_CODES:
            wind_pungs.append(CODE[fourth.first] - 48)
    win_flag_fans(view, tally)
    concealment_fans(view, tally)
    present = [i for i, n in enumerate(view.all_counts) if n]
    suit_fans(present, tally)
    tile_hog(view.all_counts, int(fourth.kind == "kong"), tally)
    if not view.meld_groups:
        rest = list(view.counts)
        for g in knitted:
            for t in g.tiles:
                rest[t] -= 1
        remainder = tuple(rest)
        wait_fans(view, [fourth, pair], tally, lambda: remainder_single_wait(remainder, view.win))
    elif view.counts[view.win] > 1:
        tally["single_wait"] = 1
    _finish(view, tally, excluded, wind_pungs, opts)
    return tally, excluded


def _special(view: HandView, arr: Arrangement, opts: Options) -> tuple[Tally, ExcludedList]:
    tally: Tally = {}
    excluded: ExcludedList = []
    special_fans(arr, view.counts, tally)
    if opts.strict_1998 and "seven_pairs" in tally:
        for key in STRICT_1998_NOT_WITH_SEVEN_PAIRS:
            if tally.pop(key, 0):
                excluded.append((key, "seven_pairs", msg("strict 1998 reading: 七對 takes no range or all-of-a-kind "
                                                         "fan")))
    win_flag_fans(view, tally)
    exclusions.apply_table(tally, excluded, opts.strict_1998)
    return tally, excluded


def _preferred(tally: Tally, seven_pairs: bool) -> bool:
    """Between readings of equal value the League takes the later standard one when the hand also reads as
    seven pairs, or when it has 一色三同順 or 三同刻 (so a triple of chows or pungs is named as such)."""
    return seven_pairs or "pure_triple_chow" in tally or "triple_pung" in tally


def _order_key(arr: Arrangement) -> tuple:
    if arr.shape != STANDARD:
        return ((-1, 0),)
    return tuple(sorted((g.first, g.kind != "pung") for g in arr.groups if not g.meld and g.kind != "pair"))


def best_reading(view: HandView, opts: Options) -> tuple[Arrangement, Tally, ExcludedList]:
    found = arrangements(view.counts, view.meld_groups, SHAPES)
    if not found:
        raise HandError("not_winning", msg("the tiles do not form a winning hand (four sets and a pair, seven "
                                           "pairs, thirteen orphans, honours and knitted tiles, or a knitted "
                                           "straight)"))
    found.sort(key=_order_key)
    knitted = [a for a in found if a.shape == KNITTED_STRAIGHT]
    if knitted:  # a knitted straight hand has no other reading
        found = knitted[:1]
    best: tuple[Arrangement, Tally, ExcludedList] | None = None
    best_value = -1
    skip_standard = False
    seven_pairs = False
    for arr in found:
        if arr.shape == STANDARD:
            if skip_standard:
                break
            tally, excluded = _standard(view, arr, opts)
        elif arr.shape == KNITTED_STRAIGHT:
            tally, excluded = _knitted(view, arr, opts)
        else:
            tally, excluded = _special(view, arr, opts)
            # Seven pairs may also read as sets and a pair; the other special shapes cannot.
            skip_standard = arr.shape != SEVEN_PAIRS or "seven_shifted_pairs" in tally
            seven_pairs = "seven_pairs" in tally
        value = _value(tally)
        if value > best_value or (value == best_value and arr.shape == STANDARD and _preferred(tally, seven_pairs)):
            best, best_value = (arr, tally, excluded), value
    assert best is not None
    return best


def score_hand(hand: Hand, options: dict) -> ScoreResult:
    opts = parse_options(options)
    validate_size(hand, (14,), "mcr")
    if hand.winning_tile is None:
        raise HandError("bad_hand_json", msg("mcr.score_hand needs the winning tile (scoring.engine.score "
                                             "tries each)"))
    if opts.discarder is not None and (hand.context.self_drawn or hand.context.kong_replacement):
        raise HandError("bad_option", msg("'discarder' was given, but the hand was self-drawn"))
    if opts.discarder is not None and opts.discarder == hand.context.seat_wind:
        raise HandError("bad_option", msg("the discarder ({discarder}) cannot be the winner's own seat",
                                          discarder=opts.discarder))
    view = build_view(hand, opts.count_dead_waits)
    arr, tally, excluded = best_reading(view, opts)
    items = [Item(k, BY_KEY[k].name_zh, BY_KEY[k].name_en, BY_KEY[k].value, n)
             for k, n in sorted(tally.items(), key=lambda kv: ORDER[kv[0]])]
    fan_total = sum(i.points for i in items)
    if hand.flowers:
        f = BY_KEY["flower"]
        items.append(Item(f.key, f.name_zh, f.name_en, f.value, len(hand.flowers)))
    total = fan_total + len(hand.flowers)
    result = ScoreResult(
        rules="mcr", total=total, unit="fan", items=items,
        excluded=[Excluded(k, by, reason) for k, by, reason in excluded],
        minimum=opts.minimum, meets_minimum=fan_total >= opts.minimum,
        decomposition=arr.to_json(), warnings=list(view.warnings),
    )
    if fan_total < opts.minimum:
        result.valid = False
        result.error = HandError("below_minimum", msg("the hand is worth {fan_total} fan without flowers; "
                                                      "Chinese Official rules need {minimum} to win",
                                                      fan_total=fan_total, minimum=opts.minimum))
        return result
    winner = hand.context.seat_wind
    discarder = None
    if not view.self_drawn:
        discarder = opts.discarder
        if discarder is None:
            discarder = previous_seat(winner)
            result.warnings.append(msg("discarder not given: assumed the player before the winner "
                                       "({discarder}); set the option 'discarder' to change it", discarder=discarder))
    result.settlement = settle(total, winner, view.self_drawn, discarder)
    return result
