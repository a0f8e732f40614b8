"""Which reading of the tiles `mahjong` scored: the ways the hand splits into sets and a pair (or seven pairs),
each with the set the winning tile completes. `mahjong` scores every reading and answers with the one that pays
most, but not which one it was; it is the reading whose fu count is the answer's."""

from __future__ import annotations

from mahjong.constants import AKA_DORAS, CHUN, HAKU, HATSU
from mahjong.hand_calculating.divider import HandDivider
from mahjong.hand_calculating.fu import FuCalculator
from mahjong.hand_calculating.hand_response import HandResponse
from mahjong.tile import TilesConverter

from mjlens.scoring.tiles import PLAYING_CODES, RED_FIVES

from .convert import Call

Reading = tuple[list[list[int]], list[int]]  # the sets and pair (34-format), and the set the winning tile completes


def readings(call: Call) -> list[Reading]:
    """Every reading `mahjong` scores: each split of the tiles, once for each distinct concealed set that holds the
    winning tile (a declared meld never does)."""
    win = call.win_tile // 4
    out: list[Reading] = []
    for sets in HandDivider.divide_hand(TilesConverter.to_34_array(call.tiles), call.melds):
        declared = [m.tiles_34 for m in call.melds]
        seen: set[tuple[int, ...]] = set()
        for group in sets:
            if group in declared:
                declared.remove(group)
                continue
            if win in group and tuple(group) not in seen:
                seen.add(tuple(group))
                out.append((sets, group))
    return out


def chosen(found: list[Reading], call: Call, response: HandResponse) -> list[list[int]] | None:
    """The sets of the reading `mahjong` answered with; None for thirteen orphans, which has none."""
    if not found:
        return None
    want = sorted((d["reason"], d["fu"]) for d in response.fu_details or [])
    seven_pairs = any(y.name == call.config.yaku.chiitoitsu.name for y in response.yaku or [])
    valued = [HAKU, HATSU, CHUN, call.config.player_wind, call.config.round_wind]
    for sets, group in found:
        if seven_pairs != (len(sets) == 7):
            continue
        details, fu = FuCalculator.calculate_fu(sets, call.win_tile, group, call.config, valued, call.melds)
        if fu == response.fu and sorted((d["reason"], d["fu"]) for d in details) == want:
            return sets
    return found[0][0]


def as_codes(sets: list[list[int]] | None, call: Call) -> list[list[str]]:
    """The sets as tile codes, each red five (where they count) written ``0`` in the first set that holds its
    five."""
    if sets is None:
        groups = [sorted(t // 4 for t in call.tiles)]
    else:
        groups = [list(group) for group in sets]
    out = [[PLAYING_CODES[t] for t in group] for group in groups]
    if call.config.options.has_aka_dora:
        red_of = {five: red for red, five in RED_FIVES.items()}
        for red in (t for t in call.tiles if t in AKA_DORAS):
            five = PLAYING_CODES[red // 4]
            group = next(g for g in out if five in g)
            group[group.index(five)] = red_of[five]
    return out
