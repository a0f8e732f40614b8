"""A Hand (CONVENTIONS §2) as the `mahjong` package takes it: tiles as 136-format ids, melds, indicators, and the
win context as its HandConfig.

In the 136 format each of the 34 tiles has four ids; `mahjong` reads the first id of 5m, 5p and 5s as the red
five. So a red five takes that id and a plain five one of the other three, and with red fives on a suit holds
at most three plain fives (the set's fourth five is its red one).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mahjong.hand_calculating.hand_config import HandConfig
from mahjong.meld import Meld as MahjongMeld

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand
from mjlens.scoring.tiles import RED_FIVES, index, plain_code, wind_index

from .options import RiichiOptions

_MELD_TYPES = {"chow": MahjongMeld.CHI, "pung": MahjongMeld.PON, "kong": MahjongMeld.KAN}


@dataclass
class Call:
    """The arguments of ``HandCalculator.estimate_hand_value``."""

    tiles: list[int]
    win_tile: int
    melds: list[MahjongMeld]
    dora: list[int]
    ura: list[int]
    config: HandConfig
    warnings: list[str] = field(default_factory=list)


class _Ids:
    """Hands out 136-format ids, each once: a red five its five's first id, a plain tile the next free one."""

    def __init__(self, red_fives: bool):
        self.red_fives = red_fives
        self.used: set[int] = set()

    def take(self, code: str) -> int:
        base = 4 * index(code)
        if self.red_fives and code in RED_FIVES:
            order = (base,)
        elif self.red_fives and plain_code(code) in RED_FIVES.values():
            order = (base + 1, base + 2, base + 3)
        else:
            order = (base, base + 1, base + 2, base + 3)
        for i in order:
            if i not in self.used:
                self.used.add(i)
                return i
        raise HandError("too_many_copies", msg("more copies of {code} than the set holds",
                                               code=code))  # checked before: a guard


def check_red_fives(hand: Hand, opts: RiichiOptions, warnings: list[str]) -> None:
    """One red five per suit with red fives on, so at most three plain fives; without them, say they count
    as plain fives."""
    ctx = hand.context
    tiles = hand.all_tiles() + list(ctx.dora_indicators) + list(ctx.ura_indicators)
    counts = Counter(tiles)
    if not opts.red_fives:
        if any(t in RED_FIVES for t in tiles):
            warnings.append(msg("red fives count as plain fives here (option red_fives is false)"))
        return
    for red, five in RED_FIVES.items():
        if counts[red] > 1:
            raise HandError("too_many_copies", msg("{counts} red fives {red}: the set has one red five per "
                                                   "suit (option red_fives)", counts=counts[red], red=red))
        if counts[five] > 3:
            raise HandError("too_many_copies", msg("{counts} plain {five}: with one red five per suit (option "
                                                   "red_fives) the set holds three plain {five}; write the "
                                                   "red one 0", counts=counts[five], five=five))


def to_call(hand: Hand, opts: RiichiOptions) -> Call:
    """The hand as `mahjong` takes it. ``hand.winning_tile`` is set (the engine tries each one when it is not)."""
    assert hand.winning_tile is not None
    warnings: list[str] = []
    check_red_fives(hand, opts, warnings)
    ids = _Ids(opts.red_fives)
    win = ids.take(hand.winning_tile)
    tiles = [win] + [ids.take(t) for t in hand.concealed]
    melds = []
    for m in hand.melds:
        meld_ids = [ids.take(t) for t in m.tiles]
        tiles += meld_ids
        melds.append(MahjongMeld(_MELD_TYPES[m.kind], meld_ids, opened=not m.concealed))
    ctx = hand.context
    dora = [ids.take(t) for t in ctx.dora_indicators]
    ura = [ids.take(t) for t in ctx.ura_indicators]
    config = HandConfig(
        is_tsumo=ctx.self_drawn, is_riichi=ctx.riichi, is_daburu_riichi=ctx.double_riichi, is_ippatsu=ctx.ippatsu,
        is_rinshan=ctx.kong_replacement, is_chankan=ctx.robbing_kong,
        is_haitei=ctx.last_tile and ctx.self_drawn, is_houtei=ctx.last_tile and not ctx.self_drawn,
        is_tenhou=ctx.heavenly, is_chiihou=ctx.earthly, is_renhou=ctx.human,
        player_wind=wind_index(ctx.seat_wind), round_wind=wind_index(ctx.round_wind),
        tsumi_number=ctx.honba, kyoutaku_number=ctx.riichi_sticks, options=opts.optional_rules(),
    )
    config.is_dealer = bool(ctx.dealer)  # the context's dealer, as every rule system takes it (it sits East)
    return Call(tiles, win, melds, dora, ura, config, warnings)
