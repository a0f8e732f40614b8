"""A hand in progress: how far it is from ready (shanten), what it waits on, and, with a tile too many, what to
discard, ranked, with the reason in words.

Discards are ranked by: the distance to ready they leave; then, for a ready hand, the tiles left that win and
reach the minimum (then what they pay), for one not ready, the tiles left that bring it nearer (受入); then the
other players' discards (fewer cautions, then more marks to follow: ``safety``); then the strategy text's order
of discarding, honours first, then the edge tiles, then the middle ones (通常先打字牌，再咑偏张最后才是中张数牌).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mjlens.i18n import join, msg, pmsg

from .decompose import arrangements
from .engine import rule_module
from .errors import HandError
from .hand import Hand, validate_structure
from .result import ScoreResult
from .rule_shapes import RuleFacts, rule_facts
from .safety import Mark, marks_for
from .shanten import shanten, useful_tiles
from .sighting import Sighting, left_counts
from .tiles import INDEX, IS_HONOR, PLAYING_CODES, RANK_OF, counts_of, index, plain_code, sort_key
from .wait_values import Waits, check_size, find_waits, hand_groups

DISCARD_ORDER_QUOTE = "通常先打字牌，再咑偏张最后才是中张数牌"


def discard_order(tile: str) -> int:
    """The strategy text's order of discarding: honours, then 1 and 9, then 2 and 8, then the middle tiles."""
    t = index(tile)
    if IS_HONOR[t]:
        return 0
    return {1: 1, 9: 1, 2: 2, 8: 2}.get(RANK_OF[t], 3)


@dataclass
class Useful:
    tiles: list[tuple[str, int]] = field(default_factory=list)  # (tile, left)

    @property
    def left(self) -> int:
        return sum(n for _, n in self.tiles)

    def to_json(self) -> list[dict[str, Any]]:
        return [{"tile": t, "left": n} for t, n in self.tiles]


@dataclass
class Discard:
    tile: str
    shanten: int
    useful: Useful
    waits: Waits | None
    marks: list[Mark]
    reason: str = ""

    @property
    def cautions(self) -> int:
        return sum(1 for m in self.marks if m.kind == "caution")

    @property
    def follows(self) -> int:
        return sum(1 for m in self.marks if m.kind != "caution")

    def rank_key(self) -> tuple:
        if self.waits is not None:
            gain = (self.waits.winning_left, sum(w.left * w.best_total for w in self.waits.waits if w.meets_minimum),
                    self.waits.tiles_left)
        else:
            gain = (self.useful.left, len(self.useful.tiles), 0)
        return (self.shanten, tuple(-g for g in gain), self.cautions, -self.follows, discard_order(self.tile))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tile": self.tile, "shanten": self.shanten, "useful": self.useful.to_json(),
                               "useful_left": self.useful.left}
        if self.waits is not None:
            out.update(self.waits.to_json())
        out["safety"] = [m.to_json() for m in self.marks]
        out["reason"] = self.reason
        return out


@dataclass
class Analysis:
    """The result of ``waits`` and ``advise`` (CONVENTIONS §7)."""

    facts: RuleFacts
    tiles: int
    shanten: int
    wins: bool = False
    useful: Useful | None = None
    waits: Waits | None = None
    discards: list[Discard] | None = None
    warnings: list[str] = field(default_factory=list)
    furiten: bool | None = None  # riichi, with the player's own discards given

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rules": self.facts.rules, "valid": True, "unit": self.facts.unit,
                               "tiles": self.tiles, "shanten": self.shanten, "minimum": self.facts.minimum}
        if self.discards is not None:
            out["wins"] = self.wins
            out["discards"] = [d.to_json() for d in self.discards]
        if self.useful is not None:
            out["useful"] = self.useful.to_json()
            out["useful_left"] = self.useful.left
        if self.waits is not None:
            out.update(self.waits.to_json())
        if self.furiten is not None:
            out["furiten"] = self.furiten
        out["warnings"] = self.warnings
        return out


def invalid(rules: str, error: HandError) -> dict[str, Any]:
    """The ``valid: false`` answer of ``waits`` and ``advise``, shaped as a Score result's."""
    unit = ""
    try:
        unit = rule_module(rules).UNIT
    except HandError:
        pass
    return ScoreResult.invalid(rules, error, unit).to_json()


def _prepare(hand: Hand | dict, rules: str, options: dict[str, Any] | None,
             sighting: Sighting | None) -> tuple[Hand, RuleFacts, dict[str, Any], Sighting, list[int]]:
    facts = rule_facts(rules, options)
    if not isinstance(hand, Hand):
        hand = Hand.from_json(hand)
    validate_structure(hand)
    sighting = sighting or Sighting()
    return hand, facts, options or {}, sighting, left_counts(hand, sighting)


def _assume_riichi(hand: Hand, facts: RuleFacts) -> tuple[Hand, list[str]]:
    """Riichi: a closed hand's waits are valued as after a riichi declaration, the usual way to win it; said so."""
    ctx = hand.context
    if facts.rules != "riichi" or ctx.riichi or ctx.double_riichi or any(not m.concealed for m in hand.melds):
        return hand, []
    return (replace(hand, context=replace(ctx, riichi=True)),
            [msg("the hand is closed: its wins are valued with riichi declared (context riichi: true)")])


def _furiten(result: Analysis, hand: Hand, found: Waits | None, sighting: Sighting) -> None:
    """Riichi: a wait the player has discarded themselves (their seat's discards) forbids a win on a discard."""
    own = sighting.discards.get(hand.context.seat_wind)
    if result.facts.rules != "riichi" or own is None or found is None or not found.waits:
        return
    discarded = {plain_code(t) for t in own}
    hit = [w.tile for w in found.waits if w.tile in discarded]
    result.furiten = bool(hit)
    if hit:
        result.warnings.append(msg("furiten: the hand waits on {hit}, which it discarded itself; it wins only "
                                   "self-drawn", hit=' '.join(hit)))


def _useful(counts: list[int], melds: int, facts: RuleFacts, held: list[int], left: list[int],
            current: int) -> Useful:
    tiles = useful_tiles(counts, melds, facts.shapes, held) if current >= 0 else []
    return Useful([(PLAYING_CODES[t], left[t]) for t in tiles])


def waits(hand: Hand | dict, rules: str, options: dict[str, Any] | None = None,
          sighting: Sighting | None = None) -> dict[str, Any]:
    """The waits of a hand one tile short, with what each pays; ``valid: false`` on bad input, never raises."""
    try:
        hand, facts, options, sighting, left = _prepare(hand, rules, options, sighting)
        check_size(hand, facts, (facts.size - 1,), "waits")
        hand, assumed = _assume_riichi(hand, facts)
        one_short = Hand(hand.all_concealed(), hand.melds, None, hand.flowers, hand.context)
        counts = counts_of(one_short.concealed)
        distance = shanten(counts, len(hand.melds), facts.shapes)
        found = find_waits(one_short, facts, options, left, sighting=sighting) if distance == 0 else Waits()
        result = Analysis(facts, facts.size - 1, distance, waits=found, warnings=assumed if distance == 0 else [])
        _warn_held_waits(result, distance, found)
        _furiten(result, hand, found, sighting)
        return result.to_json()
    except HandError as err:
        return invalid(rules, err)


def _warn_held_waits(result: Analysis, distance: int, found: Waits) -> None:
    if distance == 0 and not found.waits:
        result.warnings.append(msg("ready in shape, but every tile it waits on is one it holds four of: no tile wins"))


def advise(hand: Hand | dict, rules: str, options: dict[str, Any] | None = None,
           sighting: Sighting | None = None) -> dict[str, Any]:
    """Shanten and useful tiles of a hand one tile short (its waits when ready), or, with a tile too many, each
    discard ranked with its reason; ``valid: false`` on bad input, never raises."""
    try:
        hand, facts, options, sighting, left = _prepare(hand, rules, options, sighting)
        size = check_size(hand, facts, (facts.size - 1, facts.size), "advise")
        hand, assumed = _assume_riichi(hand, facts)
        tiles = list(hand.all_concealed())
        counts = counts_of(tiles)
        melds = len(hand.melds)
        held = counts_of(hand.all_tiles())
        if size == facts.size - 1:
            one_short = Hand(tuple(tiles), hand.melds, None, hand.flowers, hand.context)
            distance = shanten(counts, melds, facts.shapes)
            useful = _useful(counts, melds, facts, held, left, distance)
            found = None
            if distance == 0:  # a ready hand's useful tiles are its waits
                found = find_waits(one_short, facts, options, left, [INDEX[t] for t, _ in useful.tiles], sighting)
            result = Analysis(facts, size, distance, useful=useful, waits=found,
                              warnings=assumed if found is not None else [])
            if found is not None:
                _warn_held_waits(result, distance, found)
            _furiten(result, hand, found, sighting)
            return result.to_json()
        wins = bool(arrangements(tuple(counts), hand_groups(hand), facts.shapes))
        discards = [_discard(tile, hand, tiles, facts, options, sighting, left)
                    for tile in sorted(set(tiles), key=sort_key)]
        discards.sort(key=Discard.rank_key)
        _explain(discards, facts)
        distance = -1 if wins else discards[0].shanten
        result = Analysis(facts, size, distance, wins=wins, discards=discards,
                          warnings=assumed if any(d.waits is not None for d in discards) else [])
        if wins:
            result.warnings.append(msg("the hand already wins: score it (mjlens score); the discards below "
                                       "are for playing on"))
        return result.to_json()
    except HandError as err:
        return invalid(rules, err)


def _discard(tile: str, hand: Hand, tiles: list[str], facts: RuleFacts, options: dict[str, Any],
             sighting: Sighting, left: list[int]) -> Discard:
    rest = list(tiles)
    rest.remove(tile)
    counts = counts_of(rest)
    held = counts_of(hand.all_tiles())
    held[index(tile)] -= 1
    melds = len(hand.melds)
    distance = shanten(counts, melds, facts.shapes)
    useful = _useful(counts, melds, facts, held, left, distance)
    found = None
    if distance == 0:  # a ready hand's useful tiles are its waits
        found = find_waits(Hand(tuple(rest), hand.melds, None, hand.flowers, hand.context), facts, options, left,
                           [INDEX[t] for t, _ in useful.tiles], sighting)
    marks = marks_for(tile, hand.context.seat_wind, sighting, left, facts.rules)
    return Discard(tile, distance, useful, found, marks)


def _codes(tiles: list[str]) -> str:
    return " ".join(tiles)


def _own_words(d: Discard, facts: RuleFacts) -> str:
    if d.waits is not None:
        if not d.waits.waits:
            return msg("leaves the hand ready in shape, but it holds every copy of what it waits on")
        words = [msg("leaves the hand ready on {tiles}: {left} left", tiles=_codes([w.tile for w in d.waits.waits]),
                     left=d.waits.tiles_left)]
        if facts.minimum:
            words.append(msg(", {left} of them reaching the {minimum}-{unit} minimum", left=d.waits.winning_left,
                             minimum=facts.minimum, unit=pmsg("unit", facts.unit)))
        best = max(d.waits.waits, key=lambda w: w.best_total)
        if best.meets_minimum:
            words.append(msg("; pays up to {total} {unit}", total=best.best_total,
                             unit=pmsg("unit", facts.unit)))
        return join("", words)
    said = dict(shanten=d.shanten, left=d.useful.left, kinds=len(d.useful.tiles))
    if said["kinds"] == 1:
        return msg("leaves the hand {shanten} from ready; {left} tiles left of {kinds} kind bring it nearer", **said)
    return msg("leaves the hand {shanten} from ready; {left} tiles left of {kinds} kinds bring it nearer", **said)


def _against(d: Discard, best: Discard) -> str:
    """Why ``d`` ranks below ``best``: the first thing in the ranking that differs."""
    tile = best.tile
    if d.shanten != best.shanten:
        steps = d.shanten - best.shanten
        if steps == 1:
            return msg("{steps} step further from ready than discarding {tile}", steps=steps, tile=tile)
        return msg("{steps} steps further from ready than discarding {tile}", steps=steps, tile=tile)
    a, b = d.rank_key(), best.rank_key()
    if a[1] != b[1]:
        if d.waits is not None and best.waits is not None:
            if d.waits.winning_left != best.waits.winning_left:
                return msg("fewer winning tiles left than discarding {tile} ({left} against {best_left})",
                           tile=tile, left=d.waits.winning_left, best_left=best.waits.winning_left)
            return msg("its wins pay less than discarding {tile}'s", tile=tile)
        if d.useful.left != best.useful.left:
            return msg("fewer tiles bring it nearer than discarding {tile} ({left} against {best_left})",
                       tile=tile, left=d.useful.left, best_left=best.useful.left)
        return msg("fewer kinds of tile bring it nearer than discarding {tile}", tile=tile)
    if a[2:4] != b[2:4]:
        return msg("as good for the hand as {tile}, but the discards seen favour {tile}", tile=tile)
    if a[4] != b[4]:
        return msg("as good for the hand as {tile}; the text discards honours first, then edge tiles, then middle "
                   "ones ({quote})", tile=tile, quote=DISCARD_ORDER_QUOTE)
    return msg("as good as discarding {tile}", tile=tile)


def _explain(discards: list[Discard], facts: RuleFacts) -> None:
    best = discards[0]
    for d in discards:
        words = [_own_words(d, facts)]
        if d is not best:
            words.append(_against(d, best))
        words += [m.says for m in d.marks]
        if d.waits is not None:
            words += [n.says for w in d.waits.waits for n in w.notes]
        d.reason = join("; ", words)
