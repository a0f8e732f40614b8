"""``mjlens advise HAND --rules RULES``: how far a hand is from ready (shanten) and, with a tile too many, each
discard ranked with the tiles that improve it, its waits when it leaves the hand ready, safety marks from the
other players' discards (``--discards``), and the reason in words."""

from __future__ import annotations

from mjlens.i18n import msg
from mjlens.scoring.advice import advise

from ..render_analysis import print_advice
from .hand_questions import add_flags, run_question


def register(sub) -> None:
    parser = sub.add_parser("advise", help=msg("shanten, and which tile to discard from a hand with one too many"),
                            description=msg("Shanten and useful tiles of a hand (13 or 14 tiles; 16 or 17 in "
                                            "Taiwan), and for a hand with a tile too many each discard ranked, with "
                                            "its reason. Example: {example}",
                                            example="mjlens advise '123m456m789m55p6s7s +9s' --rules mcr "
                                                    "--discards S=1m3z --seat E"))
    add_flags(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    return run_question(args, "advise", advise, lambda result, hand, lang: print_advice(result, hand, lang=lang))
