"""Riichi against `mahjong-utils` (PyPI, MIT), a second implementation of riichi scoring (Kotlin, run here through
its Python binding): the hands ``measure_riichi.py --export`` wrote, with the han, fu and payments the project gave
them, scored again by `mahjong-utils` and compared.

`mahjong-utils` needs pydantic 1 and the project runs on pydantic 2, so this script imports nothing of the project
and runs in a virtual environment of its own:

    python benchmarks/measure_riichi.py --export hands.jsonl
    python3 -m venv /tmp/mju && /tmp/mju/bin/pip install mahjong-utils==0.8.0
    /tmp/mju/bin/python benchmarks/measure_riichi_utils.py hands.jsonl

`mahjong-utils` takes the dora as a count: the script counts them from the indicators and the red fives itself.
Blessing of man (renhou) it does not know; the exported hands have none.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from mahjong_utils.hora import build_hora
from mahjong_utils.models.furo import Furo
from mahjong_utils.models.tile import Tile, parse_tiles
from mahjong_utils.models.wind import Wind
from mahjong_utils.yaku import extra

WINDS = {"E": Wind.east, "S": Wind.south, "W": Wind.west, "N": Wind.north}


def _plain(code: str) -> str:
    return "5" + code[1] if code[0] == "0" else code


def _dora_of(indicator: str) -> str:
    """The tile an indicator makes dora: the next of its suit, winds and dragons each round in their own cycle."""
    n, suit = int(_plain(indicator)[0]), indicator[1]
    if suit != "z":
        return f"{n % 9 + 1}{suit}"
    return f"{n % 4 + 1}z" if n <= 4 else f"{(n - 4) % 3 + 5}z"


def dora_count(hand: dict) -> int:
    ctx = hand["context"]
    tiles = [*hand["concealed"], hand["winning_tile"], *(t for m in hand["melds"] for t in m["tiles"])]
    held = Counter(_plain(t) for t in tiles)
    indicators = list(ctx.get("dora_indicators", []))
    if ctx.get("riichi") or ctx.get("double_riichi"):
        indicators += ctx.get("ura_indicators", [])
    return sum(held[_dora_of(i)] for i in indicators) + sum(1 for t in tiles if t[0] == "0")


def hora_of(hand: dict):
    ctx = hand["context"]
    concealed = [_plain(t) for t in [*hand["concealed"], hand["winning_tile"]]]
    furo = [Furo.parse("".join(_plain(t)[0] for t in m["tiles"]) + m["tiles"][0][1],
                       ankan=m["kind"] == "kong" and m["concealed"]) for m in hand["melds"]]
    flags = {"riichi": extra.richi, "double_riichi": extra.w_richi, "ippatsu": extra.ippatsu,
             "kong_replacement": extra.rinshan, "robbing_kong": extra.chankan}
    yaku = {y for key, y in flags.items() if ctx.get(key)}
    if ctx.get("double_riichi"):
        yaku.discard(extra.richi)
    if ctx.get("last_tile"):
        yaku.add(extra.haitei if ctx.get("self_drawn") else extra.houtei)
    return build_hora(tiles=parse_tiles("".join(t[0] + t[1] for t in concealed)), furo=furo,
                      agari=Tile.by_text(_plain(hand["winning_tile"])), tsumo=bool(ctx.get("self_drawn")),
                      dora=dora_count(hand), self_wind=WINDS[ctx.get("seat_wind", "E")],
                      round_wind=WINDS[ctx.get("round_wind", "E")], extra_yaku=yaku)


def payments(hora, dealer: bool, self_drawn: bool) -> dict[str, int]:
    if dealer:
        ron, each = hora.parent_point.ron, hora.parent_point.tsumo
        return {"each": each} if self_drawn else {"discarder": ron}
    child = hora.child_point
    return {"dealer": child.tsumo_parent, "each_other": child.tsumo_child} if self_drawn else {"discarder": child.ron}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hands", help="the JSONL measure_riichi.py --export wrote")
    parser.add_argument("--show", type=int, default=5, help="how many disagreements to print (default 5)")
    args = parser.parse_args(argv)
    counts: Counter = Counter()
    shown = 0
    with open(args.hands, encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            hand, ctx = row["hand"], row["hand"]["context"]
            counts["hands"] += 1
            try:
                hora = hora_of(hand)
            except Exception as err:  # noqa: BLE001 - a hand the other side cannot take is counted, not fatal
                counts["refused_there"] += 1
                if shown < args.show:
                    print("refused there:", json.dumps(hand), repr(err)[:200])
                    shown += 1
                continue
            paid = payments(hora, bool(ctx.get("dealer")), bool(ctx.get("self_drawn")))
            yakuman = row["yakuman"] > 0
            same_points = paid == row["payments"]
            same_han_fu = yakuman or (hora.han, hora.hu) == (row["han"], row["fu"])
            counts["points_agree"] += same_points
            counts["all_agree"] += same_points and same_han_fu
            if not (same_points and same_han_fu) and shown < args.show:
                print("differs:", json.dumps(hand), "here", row["han"], row["fu"], row["payments"], "there",
                      hora.han, hora.hu, paid, sorted(y.name for y in hora.yaku))
                shown += 1
    agree = counts["all_agree"]
    print(f"{counts['hands']} hands: mahjong-utils gives the same payments on {counts['points_agree']} and the same "
          f"han, fu (yakuman: payments only) and payments on {agree} ({100 * agree / max(1, counts['hands']):.2f} %); "
          f"it refused {counts['refused_there']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
