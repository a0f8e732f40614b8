"""Readable terminal output of a score (a table in Chinese or English), for people rather than scripts."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from mjlens.scoring.engine import rule_module
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand
from mjlens.scoring.notation import format_hand
from mjlens.scoring.result import ScoreResult

#: The unit of a rule system, as a Chinese player names it.
UNIT_ZH = {"fan": "番", "tai": "台"}

LABELS = {
    "en": {"item": "Item", "value": "Value", "count": "×", "points": "Points", "total": "Total",
           "excluded": "Not counted", "by": "because of", "settle": "Settlement", "min": "minimum",
           "meets": "meets the minimum", "below": "BELOW the minimum", "hand": "Hand"},
    "zh": {"item": "項目", "value": "{unit}", "count": "次", "points": "合計", "total": "總計",
           "excluded": "不計", "by": "因", "settle": "結算", "min": "起和",
           "meets": "達起和", "below": "未達起和", "hand": "手牌"},
}


def _item_names(rules: str, lang: str) -> dict[str, str]:
    """Item key -> its name in ``lang``, from the rule system's catalogue."""
    try:
        items = rule_module(rules).catalog()
    except HandError:
        return {}
    return {i["key"]: i["name_zh"] if lang == "zh" else i["name_en"] for i in items}


def riichi_lines(extra: dict, lang: str) -> list[str]:
    """Riichi's fu (each line of the count), the limit reached and who pays what."""
    fu = " + ".join(f"{i['points']} {i['name_zh'] if lang == 'zh' else i['name_en']}" for i in extra["fu_items"])
    lines = [f"{extra['fu']} fu" + (f" = {fu}" if fu else "")]
    if extra.get("limit"):
        limit = extra["limit"]
        lines.append(limit["name_zh"] if lang == "zh" else f"{limit['name_en']} {limit['name_ja']}")
    paid = extra["points"]
    who = ", ".join(f"{k.replace('_', ' ')} pays {v}" for k, v in paid["payments"].items())
    lines.append(f"= {paid['total']} points ({paid['win']}: {who}; honba +{paid['honba_bonus']}, "
                 f"riichi sticks +{paid['riichi_sticks_bonus']})")
    return lines


def print_score(
    result: ScoreResult, hand: Hand | None = None, lang: str = "en", console: Console | None = None
) -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    text = dict(LABELS[lang])
    text["value"] = text["value"].format(unit=UNIT_ZH.get(result.unit, result.unit))
    if hand is not None:
        console.print(f"{text['hand']}: {format_hand(hand)}   ({result.rules})")
    table = Table(show_header=True, header_style="bold")
    table.add_column(text["item"])
    table.add_column(text["value"], justify="right")
    table.add_column(text["count"], justify="right")
    table.add_column(text["points"], justify="right")
    for item in result.items:
        name = item.name_zh if lang == "zh" else f"{item.name_en} {item.name_zh}"
        table.add_row(name, str(item.value), str(item.count), str(item.points))
    table.add_section()
    unit = UNIT_ZH.get(result.unit, result.unit) if lang == "zh" else result.unit
    table.add_row(f"[bold]{text['total']}[/bold]", "", "", f"[bold]{result.total} {unit}[/bold]")
    console.print(table)
    if "fu" in result.extra:
        for line in riichi_lines(result.extra, lang):
            console.print(line)
    elif "points" in result.extra:
        console.print(f"= {result.extra['points']} points")
    if result.minimum is not None:
        status = text["meets"] if result.meets_minimum else text["below"]
        console.print(f"{text['min']} {result.minimum}: {status}")
    if result.excluded:
        names = _item_names(result.rules, lang)
        console.print(
            f"{text['excluded']}: "
            + "; ".join(f"{names.get(e.key, e.key)} ({text['by']} {names.get(e.by, e.by)})" for e in result.excluded)
        )
    if result.settlement:
        console.print(f"{text['settle']}: " + "  ".join(f"{k} {v:+d}" for k, v in result.settlement.items()))
    for warning in result.warnings:
        console.print(f"[yellow]! {warning}[/yellow]")
