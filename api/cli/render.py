"""Readable terminal output of a score (a table in Chinese or English), for people rather than scripts."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from mjlens.i18n import pmsg, ptr, say, tr
from mjlens.scoring.engine import rule_module
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand
from mjlens.scoring.notation import format_hand
from mjlens.scoring.result import ScoreResult

#: The words this table prints by their code (units, who pays, how a riichi hand won), listed for the catalogue.
WORDS = (pmsg("unit", "fan"), pmsg("unit", "tai"), pmsg("unit", "han"), pmsg("payer", "discarder"),
         pmsg("payer", "each"), pmsg("payer", "dealer"), pmsg("payer", "each other"), pmsg("win", "ron"),
         pmsg("win", "tsumo"), pmsg("column", "×"))


def unit_name(unit: str, lang: str) -> str:
    """A rule system's unit (fan, tai, han) as a player of ``lang`` names it."""
    return ptr(lang, "unit", unit)


def _item_names(rules: str, lang: str) -> dict[str, str]:
    """Item key -> its name in ``lang``, from the rule system's catalogue."""
    try:
        items = rule_module(rules).catalog()
    except HandError:
        return {}
    return {i["key"]: i["name_zh"] if lang == "zh" else i["name_en"] for i in items}


def _payer(key: str, lang: str) -> str:
    """Who pays in riichi's payments (discarder, each, dealer, each_other)."""
    return ptr(lang, "payer", key.replace("_", " "))


def riichi_lines(extra: dict, lang: str) -> list[str]:
    """Riichi's fu (each line of the count), the limit reached and who pays what."""
    fu = " + ".join(f"{i['points']} {i['name_zh'] if lang == 'zh' else i['name_en']}" for i in extra["fu_items"])
    lines = [tr(lang, "{fu} fu", fu=extra["fu"]) + (f" = {fu}" if fu else "")]
    if extra.get("limit"):
        limit = extra["limit"]
        lines.append(limit["name_zh"] if lang == "zh" else f"{limit['name_en']} {limit['name_ja']}")
    paid = extra["points"]
    who = say(", ", lang).join(tr(lang, "{payer} pays {points}", payer=_payer(k, lang), points=v)
                               for k, v in paid["payments"].items())
    lines.append(tr(lang, "= {total} points ({win}: {who}; honba +{honba}, riichi sticks +{sticks})",
                    total=paid["total"], win=ptr(lang, "win", paid["win"]), who=who, honba=paid["honba_bonus"],
                    sticks=paid["riichi_sticks_bonus"]))
    return lines


def print_score(
    result: ScoreResult, hand: Hand | None = None, lang: str = "en", console: Console | None = None
) -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    unit = unit_name(result.unit, lang)
    if hand is not None:
        console.print(tr(lang, "Hand: {hand}   ({rules})", hand=format_hand(hand), rules=result.rules))
    table = Table(show_header=True, header_style="bold")
    table.add_column(tr(lang, "Item"))
    table.add_column(tr(lang, "Value") if lang == "en" else unit, justify="right")
    table.add_column(ptr(lang, "column", "×"), justify="right")
    table.add_column(tr(lang, "Points"), justify="right")
    for item in result.items:
        name = item.name_zh if lang == "zh" else f"{item.name_en} {item.name_zh}"
        table.add_row(name, str(item.value), str(item.count), str(item.points))
    table.add_section()
    total = tr(lang, "Total")
    table.add_row(f"[bold]{total}[/bold]", "", "", f"[bold]{result.total} {unit}[/bold]")
    console.print(table)
    if "fu" in result.extra:
        for line in riichi_lines(result.extra, lang):
            console.print(line)
    elif "points" in result.extra:
        console.print(tr(lang, "= {points} points", points=result.extra["points"]))
    if result.minimum is not None:
        status = tr(lang, "meets the minimum") if result.meets_minimum else tr(lang, "BELOW the minimum")
        console.print(tr(lang, "minimum {minimum}: {status}", minimum=result.minimum, status=status))
    if result.excluded:
        names = _item_names(result.rules, lang)
        gone = [tr(lang, "{item} (because of {by})", item=names.get(e.key, e.key), by=names.get(e.by, e.by))
                for e in result.excluded]
        console.print(tr(lang, "Not counted: {items}", items=say("; ", lang).join(gone)))
    if result.settlement:
        console.print(tr(lang, "Settlement: {seats}",
                         seats="  ".join(f"{k} {v:+d}" for k, v in result.settlement.items())))
    for warning in result.warnings:
        console.print(f"[yellow]! {say(warning, lang)}[/yellow]")
