"""Readable terminal output of ``waits`` and ``advise`` results, for people rather than scripts."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from mjlens.i18n import pmsg, ptr, say, tr
from mjlens.scoring.hand import Hand
from mjlens.scoring.notation import format_hand

from .render import unit_name

#: The wait shapes (scoring.waits) the tables name, listed for the catalogue.
SHAPES = (pmsg("wait shape", "open"), pmsg("wait shape", "pung"), pmsg("wait shape", "closed"),
          pmsg("wait shape", "edge"), pmsg("wait shape", "pair"), pmsg("wait shape", "special"))


def _distance(shanten: int, lang: str) -> str:
    if shanten == -1:
        return tr(lang, "wins")
    if shanten == 0:
        return tr(lang, "ready (聽牌)")
    return tr(lang, "{shanten} from ready (向聽 {shanten})", shanten=shanten)


def _pays(score: dict[str, Any], unit: str, lang: str) -> str:
    if score.get("valid") and "fu" in score:  # riichi: the fu and all the winner takes too
        return tr(lang, "{total} {unit} {fu} fu, {points}", total=score["total"], unit=unit, fu=score["fu"],
                  points=score["points"]["total"])
    if score.get("valid"):
        return f"{score['total']} {unit}"
    code = score.get("error", {}).get("code", "")
    if code == "below_minimum":
        return tr(lang, "{total} {unit}, below the minimum", total=score.get("total", 0), unit=unit)
    return code


def _header(console: Console, result: dict[str, Any], hand: Hand, lang: str) -> None:
    console.print(tr(lang, "Hand: {hand}   ({rules})   {distance}", hand=format_hand(hand), rules=result["rules"],
                     distance=_distance(result["shanten"], lang)))


def _waits_table(console: Console, result: dict[str, Any], lang: str) -> None:
    unit = unit_name(result["unit"], lang)
    table = Table(show_header=True, header_style="bold")
    for name, justify in ((tr(lang, "Wait"), "left"), (tr(lang, "Left"), "right"), (tr(lang, "Shape"), "left"),
                          (tr(lang, "On a discard"), "right"), (tr(lang, "Self-drawn"), "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for w in result["waits"]:
        shapes = say(", ", lang).join(ptr(lang, "wait shape", shape) for shape in w["wait"])
        table.add_row(w["tile"], str(w["left"]), shapes, _pays(w["discard"], unit, lang),
                      _pays(w["self_drawn"], unit, lang))
    console.print(table)
    if result.get("minimum"):
        console.print(tr(lang, "{left} winning tiles left, {reaching} reaching the {minimum}-{unit} minimum",
                         left=result["tiles_left"], reaching=result["winning_tiles_left"], minimum=result["minimum"],
                         unit=unit))
    else:
        console.print(tr(lang, "{left} winning tiles left", left=result["tiles_left"]))


def _warnings(console: Console, result: dict[str, Any], lang: str) -> None:
    for warning in result["warnings"]:
        console.print(f"[yellow]! {say(warning, lang)}[/yellow]")


def print_waits(result: dict[str, Any], hand: Hand, console: Console | None = None, lang: str = "en") -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    _header(console, result, hand, lang)
    if result["waits"]:
        _waits_table(console, result, lang)
    _warnings(console, result, lang)


def print_advice(result: dict[str, Any], hand: Hand, console: Console | None = None, lang: str = "en") -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    _header(console, result, hand, lang)
    if "discards" not in result:
        useful = " ".join(f"{u['tile']}×{u['left']}" for u in result["useful"])
        if useful:
            console.print(tr(lang, "Tiles that bring it nearer ({left} left): {tiles}", left=result["useful_left"],
                             tiles=useful))
        if result.get("waits"):
            _waits_table(console, result, lang)
    else:
        table = Table(show_header=True, header_style="bold")
        for name in ("#", tr(lang, "Discard"), tr(lang, "Shanten"), tr(lang, "Tiles left"), tr(lang, "Reason")):
            table.add_column(name)
        for i, d in enumerate(result["discards"], 1):
            left = d["winning_tiles_left"] if "waits" in d else d["useful_left"]
            table.add_row(str(i), d["tile"], str(d["shanten"]), str(left), say(d["reason"], lang))
        console.print(table)
    _warnings(console, result, lang)
