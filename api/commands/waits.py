"""``mjlens waits HAND --rules RULES``: the tiles that complete a hand one tile short, how many are left unseen,
and what each win pays on a discard and self-drawn."""

from __future__ import annotations

from mjlens.scoring.advice import waits

from ..render_analysis import print_waits
from .hand_questions import add_flags, run_question


def register(sub) -> None:
    parser = sub.add_parser("waits", help="what a hand one tile short waits on, and what each win pays",
                            description="The waits of a ready hand (13 tiles, 16 in Taiwan; melds count), the "
                                        "tiles of each left unseen and the score of each win. Example: mjlens waits "
                                        "'123m456p78s11z [555z]' --rules mcr --seen 9s --discards S=6s")
    add_flags(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    return run_question(args, "waits", waits, print_waits)
