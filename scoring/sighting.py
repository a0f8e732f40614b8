"""What a player can see beside their own hand: other players' discards (by seat) and any other tiles in sight
(their melds, tiles shown), and from it how many of each tile are left unseen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mjlens.i18n import msg

from .errors import HandError
from .hand import Hand
from .tiles import INDEX, WIND_LETTERS, counts_of, is_playing, sort_key


@dataclass(frozen=True)
class Sighting:
    """Tiles in sight: ``discards`` by seat (E, S, W, N), in the order played, and other ``seen`` tiles."""

    seen: tuple[str, ...] = ()
    discards: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def all_tiles(self) -> list[str]:
        out = list(self.seen)
        for tiles in self.discards.values():
            out.extend(tiles)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"seen": list(self.seen), "discards": {k: list(v) for k, v in self.discards.items()}}

    @classmethod
    def from_json(cls, seen: Any = None, discards: Any = None) -> Sighting:
        """From the request fields ``seen`` (a list of tile codes) and ``discards`` ({seat: [tile codes]})."""
        seen_tiles = _tiles(seen or [], "seen")
        if discards is None:
            discards = {}
        if not isinstance(discards, dict):
            raise HandError("bad_hand_json", msg("'discards' must be an object of seat (E, S, W, N) -> list of tiles"))
        by_seat = {}
        for seat, tiles in discards.items():
            if seat not in WIND_LETTERS:
                raise HandError("bad_hand_json", msg("'discards' seat must be one of E, S, W, N, not {seat}",
                                                     seat=repr(seat)))
            by_seat[seat] = tuple(_tiles(tiles, f"discards.{seat}"))
        return cls(tuple(seen_tiles), by_seat)


def _tiles(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise HandError("bad_hand_json", msg("'{where}' must be a list of tile codes", where=where))
    for v in value:
        if not isinstance(v, str) or not is_playing(v):
            raise HandError("unknown_tile", msg("{v} in '{where}' is not a playing tile code (1m..9m, 1p..9p, "
                                                "1s..9s, 1z..7z)", v=repr(v), where=where))
    return list(value)


def held_counts(hand: Hand) -> list[int]:
    """Every playing tile the player holds, concealed (the winning tile included) and in melds."""
    return counts_of(hand.all_tiles())


def left_counts(hand: Hand, sighting: Sighting) -> list[int]:
    """Copies of each tile not in the hand, its melds or in sight; more than four in all is ``too_many_copies``."""
    used = [a + b for a, b in zip(held_counts(hand), counts_of(sighting.all_tiles()), strict=True)]
    over = sorted((code for code, i in INDEX.items() if used[i] > 4), key=sort_key)
    if over:
        raise HandError("too_many_copies", msg("more than four copies of {over} between the hand and the "
                                               "tiles seen", over=', '.join(over)))
    return [4 - n for n in used]


def seen_counts(sighting: Sighting) -> Sequence[int]:
    return counts_of(sighting.all_tiles())
