"""The same hand scored by pymahjonggb (import name ``MahjongGB``), the reference for differential tests and
benchmarks. It is a test dependency (the ``test`` extra), imported only when called.

``reference_items`` returns ``{key: count}`` in this package's fan keys, flowers included.
"""

from __future__ import annotations

from typing import Any

from mjlens.scoring.hand import Hand
from mjlens.scoring.tiles import WIND_LETTERS

from .fans import FANS

#: pymahjonggb's English fan name (lower case) -> fan key.
KEY_BY_REFERENCE_NAME = {f.name_en.lower(): f.key for f in FANS}

_HONORS = ("F1", "F2", "F3", "F4", "J3", "J2", "J1")  # E S W N, then 白 發 中


def reference_tile(code: str) -> str:
    n, s = code[0], code[1]
    return _HONORS[int(n) - 1] if s == "z" else {"m": "W", "p": "B", "s": "T"}[s] + n


def reference_args(hand: Hand) -> tuple[Any, ...]:
    """The positional arguments of ``MahjongGB.MahjongFanCalculator`` for ``hand``."""
    packs = []
    for m in hand.melds:
        tiles = sorted(m.tiles)
        if m.kind == "chow":
            packs.append(("CHI", reference_tile(tiles[1]), 1))
        elif m.kind == "pung":
            packs.append(("PENG", reference_tile(tiles[0]), 1))
        else:
            packs.append(("GANG", reference_tile(tiles[0]), 0 if m.concealed else 1))
    ctx = hand.context
    assert hand.winning_tile is not None
    return (
        tuple(packs), tuple(reference_tile(t) for t in hand.concealed), reference_tile(hand.winning_tile),
        len(hand.flowers), ctx.self_drawn or ctx.kong_replacement, ctx.last_of_kind,
        ctx.kong_replacement or ctx.robbing_kong, ctx.last_tile,
        WIND_LETTERS.index(ctx.seat_wind), WIND_LETTERS.index(ctx.round_wind),
    )


def reference_items(hand: Hand) -> dict[str, int]:
    """pymahjonggb's fan for ``hand`` as ``{key: count}``; raises TypeError where it finds no win."""
    import MahjongGB  # noqa: PLC0415 - test dependency, imported on use

    out: dict[str, int] = {}
    for _value, count, _zh, name_en in MahjongGB.MahjongFanCalculator(*reference_args(hand), verbose=True):
        out[KEY_BY_REFERENCE_NAME[name_en.lower()]] = count
    return out
