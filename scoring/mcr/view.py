"""What the detectors read: the hand as count arrays and set codes, with the win flags made consistent.

A set is coded ``suit * 16 + rank`` (suits 0 m, 1 p, 2 s, 3 honours; honour ranks 1..7 = E S W N P F C), so
that "one higher" and "three higher" never cross from one suit into the next: a chow starting at 7m is
not "shifted" from one starting at 1p. Everything is computed once per hand and read by every arrangement.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mjlens.i18n import msg
from mjlens.scoring.decompose import Group, meld_group
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand, validate_structure
from mjlens.scoring.tiles import BONUS_CODES, INDEX, WIND_LETTERS
from mjlens.scoring.waits import candidate_tiles as _candidates
from mjlens.scoring.waits import is_standard_complete

#: Tile index -> set code (suit * 16 + rank).
CODE: tuple[int, ...] = tuple(16 * (i // 9) + i % 9 + 1 if i < 27 else 48 + i - 26 for i in range(34))
WIND_CODES = (49, 50, 51, 52)  # E S W N; the dragons P F C are 53..55


def code_suit(c: int) -> int:
    return c >> 4


def code_rank(c: int) -> int:
    return c & 15


@dataclass
class HandView:
    """The hand once, in the forms the detectors need, plus the flags after consistency checks."""

    counts: tuple[int, ...]  # concealed part with the winning tile
    standing: tuple[int, ...]  # concealed part before the winning tile
    all_counts: tuple[int, ...]  # every playing tile, kongs as four
    meld_groups: tuple[Group, ...]
    exposed_melds: int  # melds other than concealed kongs
    win: int
    self_drawn: bool
    last_tile: bool  # won on the last tile of the wall
    about_kong: bool  # kong replacement (self-drawn) or robbing a kong (discard)
    last_of_kind: bool
    seat: int  # wind rank 1..4
    prevalent: int
    dead_waits: bool  # count a tile as waited on even when all four are in the hand
    warnings: list[str] = field(default_factory=list)
    _single_wait: bool | None = None

    def single_wait(self) -> bool:
        """True when exactly one tile completes the 13 tiles in a standard shape (or seven pairs, concealed).

        Computed once per hand: the edge, closed and single-wait fan need it, and only when an arrangement
        places the winning tile where one of them could apply.
        """
        if self._single_wait is None:
            self._single_wait = _only_one_wait(self)
        return self._single_wait


def _only_one_wait(view: HandView) -> bool:
    standing = view.standing
    c = list(standing)
    odd = [i for i, n in enumerate(standing) if n % 2]
    pairs_wait = odd[0] if not view.meld_groups and len(odd) == 1 else -1
    for t in _candidates(standing):
        if t == view.win:
            continue
        if not view.dead_waits and view.all_counts[t] >= 4:  # all four already in the hand
            continue
        if t == pairs_wait:
            return False
        c[t] += 1
        complete = is_standard_complete(c)
        c[t] -= 1
        if complete:
            return False
    return True


def remainder_single_wait(remainder: tuple[int, ...], win: int) -> bool:
    """Single-wait test on the part of a knitted-straight hand outside the knitted tiles (set + pair)."""
    if remainder[win] == 0:
        return False
    standing = list(remainder)
    standing[win] -= 1
    for t in _candidates(tuple(standing)):
        if t == win:
            continue
        standing[t] += 1
        complete = is_standard_complete(standing)
        standing[t] -= 1
        if complete:
            return False
    return True


BONUS = frozenset(BONUS_CODES)


def _meld_ok(kind: str, idx: list[int], concealed: bool) -> bool:
    """The quick form of ``hand.validate_meld`` for tile indices (sorted)."""
    if kind == "chow":
        return not concealed and len(idx) == 3 and idx[0] < 27 and idx[0] % 9 <= 6 and idx == [idx[0], idx[0] + 1,
                                                                                              idx[0] + 2]
    size = 4 if kind == "kong" else 3 if kind == "pung" else 0
    return len(idx) == size and idx[0] == idx[-1] and (kind == "kong" or not concealed)


def build_view(hand: Hand, dead_waits: bool) -> HandView:
    """Counts, melds and consistent win flags. Flags that the tiles contradict are dropped with a warning;
    flags that contradict each other are a ``bad_context`` error."""
    ctx = hand.context
    try:
        win = INDEX[hand.winning_tile]  # the engine resolves an unknown winning tile before calling
        standing = [0] * 34
        for t in hand.concealed:
            standing[INDEX[t]] += 1
        counts = list(standing)
        counts[win] += 1
        all_counts = list(counts)
        groups = []
        exposed = 0
        in_melds = [0] * 34
        for m in hand.melds:
            idx = sorted(INDEX[t] for t in m.tiles)
            if not _meld_ok(m.kind, idx, m.concealed):
                raise KeyError(m.kind)
            for i in idx:
                all_counts[i] += 1
                in_melds[i] += 1
            groups.append(meld_group(m.kind, idx[0], m.concealed))
            exposed += not m.concealed
        if max(all_counts) > 4 or len(set(hand.flowers)) != len(hand.flowers) or not BONUS.issuperset(hand.flowers):
            raise KeyError("copies")
    except KeyError:
        # Not a well-formed hand (possible for a Hand built in code): the shared checks say exactly why.
        validate_structure(hand)
        raise HandError("bad_hand_json", msg("the hand is not well formed")) from None
    if ctx.robbing_kong and (ctx.self_drawn or ctx.kong_replacement):
        raise HandError("bad_context", msg("robbing a kong is a win on another player's tile: it cannot be "
                                           "self-drawn or a kong replacement"))
    warnings: list[str] = []
    self_drawn = ctx.self_drawn
    if ctx.kong_replacement and not self_drawn:
        warnings.append(msg("a kong replacement tile is drawn by the winner: counted as self-drawn"))
        self_drawn = True
    about_kong = ctx.kong_replacement or ctx.robbing_kong
    if ctx.kong_replacement and not any(m.kind == "kong" for m in hand.melds):
        warnings.append(msg("won on a kong replacement tile, but the hand shows no kong: 槓上開花 not counted"))
        about_kong = False
    if ctx.robbing_kong and (standing[win] or in_melds[win]):
        warnings.append(msg("robbing the kong of {winning_tile} is impossible while holding one: 搶槓和 not "
                            "counted", winning_tile=hand.winning_tile))
        about_kong = False
    last_of_kind = ctx.last_of_kind
    if last_of_kind and standing[win]:
        warnings.append(msg("{winning_tile} cannot be the last of its kind when the hand already holds one: "
                            "和絕張 not counted", winning_tile=hand.winning_tile))
        last_of_kind = False
    if in_melds[win] == 3 and not last_of_kind:
        warnings.append(msg("the melds show three {winning_tile}: the winning tile is the last of its kind "
                            "(和絕張)", winning_tile=hand.winning_tile))
        last_of_kind = True
    return HandView(
        counts=tuple(counts), standing=tuple(standing), all_counts=tuple(all_counts), meld_groups=tuple(groups),
        exposed_melds=exposed, win=win, self_drawn=self_drawn, last_tile=ctx.last_tile, about_kong=about_kong,
        last_of_kind=last_of_kind, seat=WIND_LETTERS.index(ctx.seat_wind) + 1,
        prevalent=WIND_LETTERS.index(ctx.round_wind) + 1, dead_waits=dead_waits, warnings=warnings,
    )
