"""``mjlens waits HAND --rules RULES``: the tiles that complete a hand one tile short, how many are left unseen,
and what each win pays on a discard and self-drawn."""

from __future__ import annotations

import re
from typing import Any

from mjlens.i18n import Message, msg, say
from mjlens.scoring.advice import waits
from mjlens.scoring.hand import Hand

from ..render_analysis import print_waits
from .hand_questions import add_flags, run_question

#: Where ``waits`` cannot answer, the question ``advise`` answers instead.
NOT_READY_HINT = msg("not ready, so no tile wins yet: mjlens advise lists the tiles that bring it nearer")
TOO_MANY_HINT = msg("a hand with a tile too many: mjlens advise ranks each discard")


def register(sub) -> None:
    parser = sub.add_parser("waits", help=msg("what a hand one tile short waits on, and what each win pays"),
                            description=msg("The waits of a ready hand (13 tiles, 16 in Taiwan; melds count), the "
                                            "tiles of each left unseen and the score of each win. Example: {example}",
                                            example="mjlens waits '123m456p78s11z [555z]' --rules mcr --seen 9s "
                                                    "--discards S=6s"))
    add_flags(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    return run_question(args, "waits", waits, show, hint=hint)


def show(result: dict[str, Any], hand: Hand, lang: str) -> None:
    print_waits(result, hand, lang=lang)
    if result["shanten"] > 0:
        print(f"! {say(NOT_READY_HINT, lang)}")


def hint(result: dict[str, Any]) -> Message | None:
    """For a hand of one tile more than ``waits`` takes (``tile_count``), the pointer to ``advise``."""
    sizes = re.search(r"takes a hand of (\d+) tiles.*this one has (\d+)", result["error"]["message"])
    if result["error"]["code"] == "tile_count" and sizes and int(sizes[2]) == int(sizes[1]) + 1:
        return TOO_MANY_HINT
    return None
