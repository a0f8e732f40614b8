"""Readable terminal output of ``waits`` and ``advise`` results, for people rather than scripts."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from mjlens.scoring.hand import Hand
from mjlens.scoring.notation import format_hand


def _distance(shanten: int) -> str:
    return {-1: "wins", 0: "ready (聽牌)"}.get(shanten, f"{shanten} from ready (向聽 {shanten})")


def _pays(score: dict[str, Any], unit: str) -> str:
    if score.get("valid") and "fu" in score:  # riichi: the fu and all the winner takes too
        return f"{score['total']} {unit} {score['fu']} fu, {score['points']['total']}"
    if score.get("valid"):
        return f"{score['total']} {unit}"
    code = score.get("error", {}).get("code", "")
    if code == "below_minimum":
        return f"{score.get('total', 0)} {unit}, below the minimum"
    return code


def _header(console: Console, result: dict[str, Any], hand: Hand) -> None:
    console.print(f"Hand: {format_hand(hand)}   ({result['rules']})   {_distance(result['shanten'])}")


def _waits_table(console: Console, result: dict[str, Any]) -> None:
    unit = result["unit"]
    table = Table(show_header=True, header_style="bold")
    for name, justify in (("Wait", "left"), ("Left", "right"), ("Shape", "left"), ("On a discard", "right"),
                          ("Self-drawn", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for w in result["waits"]:
        table.add_row(w["tile"], str(w["left"]), ", ".join(w["wait"]), _pays(w["discard"], unit),
                      _pays(w["self_drawn"], unit))
    console.print(table)
    text = f"{result['tiles_left']} winning tiles left"
    if result.get("minimum"):
        text += f", {result['winning_tiles_left']} reaching the {result['minimum']}-{unit} minimum"
    console.print(text)


def print_waits(result: dict[str, Any], hand: Hand, console: Console | None = None) -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    _header(console, result, hand)
    if result["waits"]:
        _waits_table(console, result)
    for warning in result["warnings"]:
        console.print(f"[yellow]! {warning}[/yellow]")


def print_advice(result: dict[str, Any], hand: Hand, console: Console | None = None) -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    _header(console, result, hand)
    if "discards" not in result:
        useful = " ".join(f"{u['tile']}×{u['left']}" for u in result["useful"])
        if useful:
            console.print(f"Tiles that bring it nearer ({result['useful_left']} left): {useful}")
        if result.get("waits"):
            _waits_table(console, result)
    else:
        table = Table(show_header=True, header_style="bold")
        for name in ("#", "Discard", "Shanten", "Tiles left", "Reason"):
            table.add_column(name)
        for i, d in enumerate(result["discards"], 1):
            left = d["winning_tiles_left"] if "waits" in d else d["useful_left"]
            table.add_row(str(i), d["tile"], str(d["shanten"]), str(left), d["reason"])
        console.print(table)
    for warning in result["warnings"]:
        console.print(f"[yellow]! {warning}[/yellow]")
