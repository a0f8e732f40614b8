"""The hand model: what every scorer takes and what the vision layout step produces (Hand JSON, CONVENTIONS §2).

Parsing from JSON and structural validation live here, so the notation parser, the HTTP API and the
photo pipeline all reject the same bad hands with the same error codes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from mjlens.i18n import msg

from .errors import HandError
from .tiles import COPIES_IN_SET, HAND_CODES, RED_FIVES, WIND_LETTERS, is_bonus, is_playing, plain_code, sort_key

MELD_KINDS = ("chow", "pung", "kong")
MELD_SOURCES = ("left", "across", "right")
#: Riichi's counters (CONVENTIONS §2): honba (本場) and the riichi sticks on the table (供託).
RIICHI_COUNTERS = ("honba", "riichi_sticks")
#: Riichi's indicator lists: dora indicators (ドラ表示牌), and ura dora indicators seen after a riichi win.
RIICHI_INDICATORS = ("dora_indicators", "ura_indicators")
#: The most indicators of a kind a table shows: one, and one more for each of four kongs.
MAX_INDICATORS = 5


@dataclass(frozen=True)
class Meld:
    """A set laid open on the table, or a concealed kong (``concealed=True``, kongs only)."""

    kind: str
    tiles: tuple[str, ...]
    concealed: bool = False
    claimed: str | None = None
    source: str | None = None  # JSON key "from": the seat the claimed tile came from

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "tiles": list(self.tiles), "concealed": self.concealed}
        if self.claimed is not None:
            out["claimed"] = self.claimed
        if self.source is not None:
            out["from"] = self.source
        return out


@dataclass(frozen=True)
class Context:
    """How the hand was won. Every key is optional; unknown keys are an error (``bad_context``)."""

    self_drawn: bool = False
    seat_wind: str = "E"
    round_wind: str = "E"
    #: None: the winner is dealer when seated East (the dealer sits East); an explicit value always wins.
    #: Always a bool once built.
    dealer: bool | None = None
    dealer_streak: int = 0
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    last_of_kind: bool = False
    heavenly: bool = False
    earthly: bool = False
    human: bool = False
    declared_ready: bool | None = None
    # riichi only (other rule systems ignore them, with a warning where they are set)
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    dora_indicators: tuple[str, ...] = ()
    ura_indicators: tuple[str, ...] = ()
    honba: int = 0
    riichi_sticks: int = 0
    #: Whether ``dealer`` was given rather than taken from the seat: a seat given later may change it only then.
    dealer_given: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dealer_given", self.dealer is not None)
        if self.dealer is None:
            object.__setattr__(self, "dealer", self.seat_wind == "E")

    def to_json(self) -> dict[str, Any]:
        return {key: list(value) if isinstance(value, tuple) else value
                for key, value in asdict(self).items() if key != "dealer_given"}

    def given_json(self) -> dict[str, Any]:
        """``to_json`` without a ``dealer`` taken from the seat, to lay other values over (a new seat then decides
        who is dealer)."""
        out = self.to_json()
        if not self.dealer_given:
            del out["dealer"]
        return out

    def dealer_mismatch(self) -> str | None:
        """The warning for a ``dealer`` given against the seat (the dealer sits East), or None."""
        if not self.dealer_given or self.dealer == (self.seat_wind == "E"):
            return None
        if self.dealer:
            return msg("dealer given as true but the seat wind is {seat_wind}: the dealer sits East; scored as "
                       "dealer, as given", seat_wind=self.seat_wind)
        return msg("dealer given as false but the seat wind is E: the dealer sits East; scored as not dealer, as "
                   "given")


_CONTEXT_TYPES = {f.name: f.type for f in fields(Context) if f.init}


@dataclass(frozen=True)
class Hand:
    concealed: tuple[str, ...]
    melds: tuple[Meld, ...] = ()
    winning_tile: str | None = None
    flowers: tuple[str, ...] = ()
    context: Context = field(default_factory=Context)

    # -- derived views -------------------------------------------------------------------------
    def all_concealed(self) -> tuple[str, ...]:
        """The concealed tiles with the winning tile (when known) added."""
        return self.concealed + ((self.winning_tile,) if self.winning_tile else ())

    def all_tiles(self) -> list[str]:
        """Every playing tile of the hand, melds included (kongs count four)."""
        tiles = list(self.all_concealed())
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles

    def effective_size(self) -> int:
        """Tiles counted as a kong counts three: 14 for a standard hand, 17 for Taiwan."""
        return len(self.all_concealed()) + 3 * len(self.melds)

    def with_winning_tile(self, tile: str) -> Hand:
        """The same hand read with ``tile`` (taken out of ``concealed``) as the winning tile."""
        rest = list(self.concealed)
        rest.remove(tile)
        return Hand(tuple(rest), self.melds, tile, self.flowers, self.context)

    def has_red_fives(self) -> bool:
        return any(t in RED_FIVES for t in self.all_tiles())

    def with_plain_fives(self) -> Hand:
        """The hand as rule systems without red fives read it: each red five a five (CONVENTIONS §1)."""
        if not self.has_red_fives():
            return self
        melds = tuple(replace(m, tiles=tuple(plain_code(t) for t in m.tiles),
                              claimed=None if m.claimed is None else plain_code(m.claimed)) for m in self.melds)
        return Hand(tuple(plain_code(t) for t in self.concealed), melds,
                    None if self.winning_tile is None else plain_code(self.winning_tile), self.flowers, self.context)

    def to_json(self) -> dict[str, Any]:
        return {
            "concealed": list(self.concealed),
            "melds": [m.to_json() for m in self.melds],
            "winning_tile": self.winning_tile,
            "flowers": list(self.flowers),
            "context": self.context.to_json(),
        }

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: Any) -> Hand:
        """Build and structurally validate a hand from Hand JSON; raises HandError on any problem."""
        if not isinstance(data, dict):
            raise HandError("bad_hand_json", msg("a hand must be a JSON object"))
        unknown = set(data) - {"concealed", "melds", "winning_tile", "flowers", "context"}
        if unknown:
            raise HandError("bad_hand_json", msg("unknown hand key(s): {unknown}", unknown=', '.join(sorted(unknown))))
        concealed = _tile_list(data.get("concealed", []), "concealed")
        melds = tuple(_meld_from_json(m, i) for i, m in enumerate(_list(data.get("melds", []), "melds")))
        winning = data.get("winning_tile")
        if winning is not None:
            winning = _tile(winning, "winning_tile")
        flowers = _tile_list(data.get("flowers", []), "flowers")
        context = context_from_json({} if data.get("context") is None else data["context"])  # [] is no context
        hand = cls(tuple(concealed), melds, winning, tuple(flowers), context)
        validate_structure(hand)
        return hand


def _list(value: Any, where: str) -> list:
    if not isinstance(value, list):
        raise HandError("bad_hand_json", msg("'{where}' must be a list", where=where))
    return value


def _tile(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in HAND_CODES:
        raise HandError(
            "unknown_tile",
            msg("{value} in '{where}' is not a tile code (1m..9m, 1p..9p, 1s..9s, 1z..7z, 1f..8f, red fives "
                "0m 0p 0s)", value=repr(value), where=where)
        )
    return value


def _tile_list(value: Any, where: str) -> list[str]:
    return [_tile(v, where) for v in _list(value, where)]


def _meld_from_json(data: Any, i: int) -> Meld:
    if not isinstance(data, dict):
        raise HandError("bad_hand_json", msg("meld {i} must be a JSON object", i=i))
    unknown = set(data) - {"kind", "tiles", "concealed", "claimed", "from"}
    if unknown:
        raise HandError("bad_hand_json", msg("meld {i}: unknown key(s): {unknown}",
                                             i=i, unknown=', '.join(sorted(unknown))))
    kind = data.get("kind")
    if kind not in MELD_KINDS:
        raise HandError("bad_meld", msg("meld {i}: kind must be one of {MELD_KINDS}, not {kind}",
                                        i=i, MELD_KINDS=', '.join(MELD_KINDS), kind=repr(kind)))
    tiles = tuple(_tile_list(data.get("tiles", []), f"melds[{i}].tiles"))
    concealed = data.get("concealed", False)
    if not isinstance(concealed, bool):
        raise HandError("bad_hand_json", msg("meld {i}: 'concealed' must be true or false", i=i))
    claimed = data.get("claimed")
    if claimed is not None:
        claimed = _tile(claimed, f"melds[{i}].claimed")
    source = data.get("from")
    if source is not None and source not in MELD_SOURCES:
        raise HandError("bad_hand_json", msg("meld {i}: 'from' must be one of {MELD_SOURCES}",
                                             i=i, MELD_SOURCES=', '.join(MELD_SOURCES)))
    meld = Meld(kind, tiles, concealed, claimed, source)
    validate_meld(meld, i)
    return meld


def context_from_json(data: Any) -> Context:
    """Context from a JSON object: unknown keys and wrongly typed values are ``bad_context``."""
    if not isinstance(data, dict):
        raise HandError("bad_context", msg("'context' must be a JSON object"))
    unknown = set(data) - set(_CONTEXT_TYPES)
    if unknown:
        raise HandError(
            "bad_context", msg("unknown context key(s): {unknown}; known: {CONTEXT_TYPES}",
                               unknown=', '.join(sorted(unknown)), CONTEXT_TYPES=', '.join(_CONTEXT_TYPES))
        )
    values: dict[str, Any] = {}
    for key, value in data.items():
        expected = _CONTEXT_TYPES[key]
        if key in ("seat_wind", "round_wind"):
            if value not in WIND_LETTERS:
                raise HandError("bad_context", msg("'{key}' must be one of E, S, W, N, not {value}",
                                                   key=key, value=repr(value)))
        elif key == "dealer_streak":
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 99:
                raise HandError("bad_context", msg("'dealer_streak' must be a whole number 0..99, not {value}",
                                                   value=repr(value)))
        elif key in RIICHI_COUNTERS:
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 99:
                raise HandError("bad_context", msg("'{key}' must be a whole number 0..99, not {value}",
                                                   key=key, value=repr(value)))
        elif key in RIICHI_INDICATORS:
            value = tuple(_indicators(value, key))
        elif key in ("declared_ready", "dealer"):
            if value is not None and not isinstance(value, bool):
                raise HandError("bad_context", msg("'{key}' must be true, false or null", key=key))
        elif not isinstance(value, bool):
            raise HandError("bad_context", msg("'{key}' must be true or false ({expected}), not {value}",
                                               key=key, expected=expected, value=repr(value)))
        values[key] = value
    return Context(**values)


def _indicators(value: Any, key: str) -> list[str]:
    """A list of indicator tiles: playing tiles (red fives too), at most ``MAX_INDICATORS``."""
    if not isinstance(value, list):
        raise HandError("bad_context", msg("'{key}' must be a list of tile codes, not {value}",
                                           key=key, value=repr(value)))
    if len(value) > MAX_INDICATORS:
        raise HandError("bad_context", msg("'{key}' holds {n_value} tiles; a table shows at most "
                                           "{MAX_INDICATORS}",
                                           key=key, n_value=len(value), MAX_INDICATORS=MAX_INDICATORS))
    for v in value:
        if not isinstance(v, str) or not is_playing(v):
            raise HandError("bad_context", msg("{v} in '{key}' is not a playing tile code (1m..9m, 1p..9p, "
                                               "1s..9s, 1z..7z, red fives 0m 0p 0s)", v=repr(v), key=key))
    return value


def validate_meld(meld: Meld, i: int = 0) -> None:
    tiles = meld.tiles
    if any(not is_playing(t) for t in tiles):
        raise HandError("bad_meld", msg("meld {i}: bonus tiles cannot be part of a meld", i=i))
    label = "".join(tiles)
    tiles = tuple(plain_code(t) for t in tiles)  # a red five melds as a five
    if meld.kind == "chow":
        ordered = sorted(tiles, key=sort_key)
        ok = (
            len(tiles) == 3
            and ordered[0][1] in "mps"
            and all(t[1] == ordered[0][1] for t in ordered)
            and [int(t[0]) for t in ordered] == list(range(int(ordered[0][0]), int(ordered[0][0]) + 3))
        )
        if not ok:
            raise HandError("bad_meld", msg("meld {i} ({label}) is not a chow: three consecutive tiles of one "
                                            "suit", i=i, label=label))
        if meld.concealed:
            raise HandError("bad_meld", msg("meld {i} ({label}): only a kong can be a concealed meld",
                                            i=i, label=label))
    else:
        size = 3 if meld.kind == "pung" else 4
        if len(tiles) != size or len(set(tiles)) != 1:
            raise HandError("bad_meld", msg("meld {i} ({label}) is not a {kind}: {size} identical tiles",
                                            i=i, label=label, kind=meld.kind, size=size))
        if meld.concealed and meld.kind != "kong":
            raise HandError("bad_meld", msg("meld {i} ({label}): only a kong can be a concealed meld",
                                            i=i, label=label))
    if meld.claimed is not None and plain_code(meld.claimed) not in tiles:
        raise HandError("bad_meld", msg("meld {i} ({label}): claimed tile {claimed} is not in the meld",
                                        i=i, label=label, claimed=meld.claimed))


def validate_structure(hand: Hand) -> None:
    """Checks that hold for every rule system: copies of a tile, bonus tiles in their place."""
    for i, meld in enumerate(hand.melds):
        validate_meld(meld, i)
    for t in hand.all_concealed():
        if is_bonus(t):
            raise HandError("unknown_tile", msg("bonus tile {t} belongs in 'flowers', not among the concealed "
                                                "tiles", t=t))
    # a red five is one of its five's four copies; the indicators are tiles on the table too
    indicators = hand.context.dora_indicators + hand.context.ura_indicators
    counts = Counter(plain_code(t) for t in hand.all_tiles() + list(indicators))
    over = sorted((t for t, n in counts.items() if n > COPIES_IN_SET[t]), key=sort_key)
    if over:
        codes = ", ".join(over)
        raise HandError("too_many_copies", msg("more than four copies of {over} between the hand and the dora "
                                               "indicators", over=codes) if indicators else
                        msg("more than four copies of {over}", over=codes))
    bonus = Counter(hand.flowers)
    dup = sorted(t for t, n in bonus.items() if n > COPIES_IN_SET[t])
    if dup:
        raise HandError("too_many_copies", msg("bonus tile(s) {dup} appear more than once (each exists once)",
                                               dup=', '.join(dup)))
    if hand.winning_tile is None and not hand.concealed:
        raise HandError("tile_count", msg("the hand has no concealed tiles"))


def validate_size(hand: Hand, sizes: tuple[int, ...], system: str) -> None:
    """The tile count a rule system plays with (kongs count as three): 14, or 17 for Taiwan."""
    size = hand.effective_size()
    if size not in sizes:
        want = " or ".join(str(s) for s in sizes)
        raise HandError(
            "tile_count",
            msg("{system} hands have {want} tiles (a kong counts as three, winning tile included); this one "
                "has {size}", system=system, want=want, size=size),
        )
