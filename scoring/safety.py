"""Marks on candidate discards from what the other players discarded, each from one principle of the play-strategy
text (``safety.toml`` holds each principle's sentence and what the mark says). The marks say what the text says
about a tile and no more: none of them claims a tile cannot be won on."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from mjlens.i18n import msg

from .sighting import Sighting
from .tiles import IS_WIND, PLAYING_CODES, RANK_OF, SUIT_OF, WIND_LETTERS, index, plain_code


@dataclass(frozen=True)
class Principle:
    key: str
    kind: str
    quote: str
    says: str
    reads: str | None = None  # a suit mark: "next" (下家) or "any" other seat
    discarded: frozenset[int] = frozenset()  # ranks of a suit that seat has discarded
    marks: frozenset[int] = frozenset()  # ranks of that suit marked


@dataclass(frozen=True)
class Mark:
    """One principle applied to one tile: the rule's key and kind, the seat it reads, and its words."""

    rule: str
    kind: str
    seat: str | None
    says: str
    quote: str

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "kind": self.kind, "seat": self.seat, "says": self.says, "quote": self.quote}


@lru_cache(maxsize=1)
def principles() -> dict[str, Principle]:
    data = tomllib.loads(resources.files("mjlens.scoring").joinpath("safety.toml").read_text(encoding="utf-8"))
    return {key: Principle(key, row["kind"], row["quote"], row["says"], row.get("reads"),
                           frozenset(row.get("discarded", ())), frozenset(row.get("marks", ())))
            for key, row in data.items()}


def next_seat(seat: str) -> str:
    """下家: the player who plays just after ``seat`` (E -> S -> W -> N -> E), the only one who may chow its
    discards."""
    return WIND_LETTERS[(WIND_LETTERS.index(seat) + 1) % 4]


def _mark(key: str, seat: str | None = None, tile: str | None = None) -> Mark:
    p = principles()[key]
    return Mark(key, p.kind, seat, msg(p.says, seat=seat, tile=tile), p.quote)  # safety.toml's says: catalogued


def _ranks(tiles: tuple[str, ...], suit: int) -> set[int]:
    """The ranks of ``suit`` among ``tiles``."""
    return {RANK_OF[index(t)] for t in tiles if SUIT_OF[index(t)] == suit}


def marks_for(tile: str, seat: str, sighting: Sighting, left: list[int], rules: str = "") -> list[Mark]:
    """The marks on discarding ``tile`` for the player in ``seat``, from the others' discards; under riichi, its
    furiten marks too (``riichi_marks``)."""
    t = index(tile)
    out: list[Mark] = []
    others = {s: d for s, d in sighting.discards.items() if s != seat}
    for s, discards in others.items():
        if plain_code(tile) in map(plain_code, discards):  # a red five is its five, here as in every rule
            out.append(_mark("follow_discarded", s))
    suit = SUIT_OF[t]
    if suit < 3:
        nxt = next_seat(seat)
        for p in principles().values():
            if p.reads is None or RANK_OF[t] not in p.marks:
                continue
            for s in [nxt] if p.reads == "next" else list(others):
                if p.discarded <= _ranks(others.get(s, ()), suit):
                    out.append(_mark(p.key, s))
    elif IS_WIND[t]:
        seen = set(sighting.all_tiles())
        winds = [PLAYING_CODES[w] for w in range(27, 31)]
        if tile not in seen and all(w in seen for w in winds if w != tile):
            out.append(_mark("wind_unseen"))
    if left[t] == 0:
        out.append(_mark("all_copies_seen"))
    if rules == "riichi":
        out += riichi_marks(tile, others, left)
    return out


def two_sided_waits(t: int) -> list[tuple[int, int, int]]:
    """The two-sided waits (両面) that win on tile index ``t``: each as its two tiles and the other tile it waits
    on (for a 4: 5-6 also waiting on 7, 2-3 also waiting on 1). Honours have none."""
    if SUIT_OF[t] == 3:
        return []
    rank, out = RANK_OF[t], []
    if rank <= 6:
        out.append((t + 1, t + 2, t + 3))
    if rank >= 4:
        out.append((t - 2, t - 1, t - 3))
    return out


def riichi_marks(tile: str, others: dict[str, tuple[str, ...]], left: list[int]) -> list[Mark]:
    """Riichi's marks on discarding ``tile``: genbutsu and suji against each other seat from its discards, and kabe
    where every two-sided wait on it needs a tile whose copies are all in sight."""
    t = index(tile)
    waits = two_sided_waits(t)
    out = []
    for s, discards in others.items():
        discarded = {index(d) for d in discards}
        if t in discarded:
            out.append(_mark("riichi_genbutsu", s))
        elif waits and all(other in discarded for _, _, other in waits):
            out.append(_mark("riichi_suji", s))
    if waits and all(left[a] == 0 or left[b] == 0 for a, b, _ in waits):
        out.append(_mark("riichi_kabe"))
    return out


def wait_notes(tile: str, kinds: list[str], sighting: Sighting) -> list[Mark]:
    """Notes on waiting on ``tile`` from the strategy text: a single wait (單調, and no other kind of wait on the
    tile) on a tile never seen outside the hand, or seen once. Only where something is in sight at all."""
    if kinds != ["pair"] or not (sighting.seen or sighting.discards):
        return []
    outside = sighting.all_tiles().count(tile)
    if outside == 0:
        return [_mark("single_wait_unseen", tile=tile)]
    if outside == 1:
        return [_mark("single_wait_seen_once", tile=tile)]
    return []
