"""The waits of a hand one tile short: every tile that completes it under the chosen rules, how many of it are
left unseen, and what the win would score on a discard and self-drawn (the scorer's own Score result)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mjlens.i18n import msg

from .decompose import Group, arrangements, meld_group
from .engine import RED_FIVE_SYSTEMS, score
from .errors import HandError
from .hand import Hand
from .result import ScoreResult
from .rule_shapes import RuleFacts
from .safety import Mark, wait_notes
from .sighting import Sighting
from .tiles import PLAYING_CODES, RED_FIVES, counts_of, index
from .waits import SPECIAL, placements, wait_kind, waiting_tiles


@dataclass
class Wait:
    """One winning tile, its copies left unseen, the wait it fills, and the two scores."""

    tile: str
    left: int
    kinds: list[str]
    discard: ScoreResult
    self_drawn: ScoreResult
    notes: list[Mark] = field(default_factory=list)

    @property
    def meets_minimum(self) -> bool:
        """Wins one way or the other: a below-minimum score is ``valid: false`` (``below_minimum``)."""
        return self.discard.valid or self.self_drawn.valid

    @property
    def best_total(self) -> int:
        return max((r.total for r in (self.discard, self.self_drawn) if r.valid), default=0)

    def to_json(self) -> dict[str, Any]:
        return {"tile": self.tile, "left": self.left, "wait": self.kinds, "meets_minimum": self.meets_minimum,
                "discard": self.discard.to_json(), "self_drawn": self.self_drawn.to_json(),
                "notes": [n.to_json() for n in self.notes]}


@dataclass
class Waits:
    waits: list[Wait] = field(default_factory=list)

    @property
    def tiles_left(self) -> int:
        return sum(w.left for w in self.waits)

    @property
    def winning_left(self) -> int:
        """Tiles left that win and reach the minimum."""
        return sum(w.left for w in self.waits if w.meets_minimum)

    def to_json(self) -> dict[str, Any]:
        return {"waits": [w.to_json() for w in self.waits], "tiles_left": self.tiles_left,
                "winning_tiles_left": self.winning_left}


def hand_groups(hand: Hand) -> tuple[Group, ...]:
    return tuple(meld_group(m.kind, min(index(t) for t in m.tiles), m.concealed) for m in hand.melds)


def check_size(hand: Hand, facts: RuleFacts, sizes: tuple[int, ...], question: str) -> int:
    """The hand's size (kongs count three, the winning tile included); ``tile_count`` where it does not fit."""
    size = hand.effective_size()
    if size not in sizes:
        want = " or ".join(str(s) for s in sizes)
        raise HandError("tile_count", msg("{question} takes a hand of {want} tiles under {rules} (a kong "
                                          "counts as three); this one has {size}",
                                          question=question, want=want, rules=facts.rules, size=size))
    return size


def win_kinds(concealed: list[int], groups: tuple[Group, ...], facts: RuleFacts, tile: int) -> list[str]:
    """The kinds of wait ``tile`` fills, over every reading of the completed hand (edge, closed, pair...)."""
    kinds = set()
    for arrangement in arrangements(tuple(concealed), groups, facts.shapes):
        if arrangement.singles or arrangement.shape not in ("standard", "knitted_straight"):
            kinds.add(SPECIAL)
            continue
        for i in placements(arrangement, tile):
            kinds.add(wait_kind(arrangement.groups[i], tile))
    order = ("open", "pung", "closed", "edge", "pair", "special")
    return sorted(kinds, key=order.index)


def _drawn_as(code: str, hand: Hand, facts: RuleFacts) -> str:
    """The tile a wait is won with: under rules with red fives, a five whose three plain copies are all in sight
    (the hand, the dora indicators) can only be the red one."""
    red = next((r for r, five in RED_FIVES.items() if five == code), None)
    if facts.rules not in RED_FIVE_SYSTEMS or red is None:
        return code
    held = hand.all_tiles() + list(hand.context.dora_indicators) + list(hand.context.ura_indicators)
    return red if red not in held and held.count(code) >= 3 else code


def find_waits(hand: Hand, facts: RuleFacts, options: dict[str, Any], left: list[int],
               tiles: list[int] | None = None, sighting: Sighting | None = None) -> Waits:
    """The waits of ``hand`` (one tile short, no winning tile), each scored on a discard and self-drawn, with the
    strategy text's notes on single waits where ``sighting`` says what is in sight. ``tiles``: the winning tiles
    when already known (a ready hand's useful tiles are exactly its waits)."""
    concealed = counts_of(hand.concealed)
    groups = hand_groups(hand)
    held = tuple(counts_of(hand.all_tiles()))
    if tiles is None:
        tiles = waiting_tiles(tuple(concealed), groups, facts.shapes, held)
    on_discard = replace(hand.context, self_drawn=False, kong_replacement=False)
    on_self_draw = replace(hand.context, self_drawn=True, robbing_kong=False)
    # who discarded is a question for a discard win only (MCR refuses it with a self-drawn one)
    self_drawn_options = {k: v for k, v in options.items() if k != "discarder"}
    out = Waits()
    for t in tiles:
        code = PLAYING_CODES[t]
        concealed[t] += 1
        kinds = win_kinds(concealed, groups, facts, t)
        concealed[t] -= 1
        won = Hand(hand.concealed, hand.melds, _drawn_as(code, hand, facts), hand.flowers, on_discard)
        out.waits.append(Wait(code, left[t], kinds, score(won, facts.rules, options),
                              score(replace(won, context=on_self_draw), facts.rules, self_drawn_options),
                              wait_notes(code, kinds, sighting or Sighting())))
    return out
