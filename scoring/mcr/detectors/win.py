"""Fan about how the hand was won: the win flags, concealment, and the kind of wait.

Edge, closed and single wait (邊張, 坎張, 單釣將) count only when the hand waited on one tile alone; when
the winning tile could sit in several places, only one of the three counts, edge before closed before
single (the League's reading of 不重複 for the wait fan).
"""

from __future__ import annotations

from collections.abc import Callable

from mjlens.scoring.decompose import Group

from ..view import HandView


def win_flag_fans(view: HandView, tally: dict[str, int]) -> None:
    """和絕張, 妙手回春 / 海底撈月, 槓上開花 / 搶槓和, 自摸."""
    if view.last_of_kind:
        tally["last_tile"] = 1
    if view.last_tile:
        tally["last_tile_draw" if view.self_drawn else "last_tile_claim"] = 1
    if view.about_kong:
        tally["out_with_replacement_tile" if view.self_drawn else "robbing_the_kong"] = 1
    if view.self_drawn:
        tally["self_drawn"] = 1


def concealment_fans(view: HandView, tally: dict[str, int]) -> None:
    """門前清 / 不求人 (no exposed meld; concealed kongs allowed), 全求人 (four exposed melds, won on a discard)."""
    if view.exposed_melds == 0:
        tally["fully_concealed_hand" if view.self_drawn else "concealed_hand"] = 1
    elif view.exposed_melds == 4:
        tally["self_drawn" if view.self_drawn else "melded_hand"] = 1


def wait_fans(view: HandView, concealed_groups: list[Group], tally: dict[str, int],
              only_one_wait: Callable[[], bool] | None = None) -> None:
    """邊張 / 坎張 / 單釣將 for one arrangement (its groups formed in hand, pair included).

    ``only_one_wait`` says whether the hand waited on one tile alone (default: the whole hand's waits);
    it is called only when the winning tile's place could give one of the three.
    """
    win = view.win
    edge = closed = single = False
    for g in concealed_groups:
        if g.kind == "chow":
            if g.first + 1 == win:
                closed = True
            elif g.first == win or g.first + 2 == win:
                edge = True
        elif g.kind == "pair" and g.first == win:
            single = True
    if not (edge or closed or single) or not (only_one_wait or view.single_wait)():
        return
    tally["edge_wait" if edge else "closed_wait" if closed else "single_wait"] = 1
