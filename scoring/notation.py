"""Compact hand notation (CONVENTIONS §1): what a person types, e.g. ``123m456p78s11z [555z] 1f6f +9s``.

- mpsz digits then a suit letter, ``0`` a red five (``406p``: 4p, red 5p, 6p); honours also as ``E S W N``
  (winds) and ``P F C`` (白 發 中);
  Unicode mahjong glyphs U+1F000..U+1F029 are accepted too; the joker and a tile's back (U+1F02A, U+1F02B) are
  refused with their reason.
- ``[...]`` an exposed meld (chow, pung or kong, told by its tiles); ``(....)`` a concealed kong.
- bonus tiles (``1f``..``8f``) anywhere outside brackets; ``+X`` the winning tile, last.
"""

from __future__ import annotations

from mjlens.i18n import msg

from .errors import HandError
from .hand import Context, Hand, Meld, validate_structure
from .tiles import is_bonus, plain_code, sort_key

HONOUR_LETTERS = {"E": "1z", "S": "2z", "W": "3z", "N": "4z", "P": "5z", "F": "6z", "C": "7z"}

#: U+1F000.. in Unicode order: winds E S W N, dragons red green white, 1-9 characters, 1-9 bamboo,
#: 1-9 circles, plum orchid bamboo chrysanthemum, spring summer autumn winter.
_GLYPH_CODES = (
    ["1z", "2z", "3z", "4z", "7z", "6z", "5z"]
    + [f"{n}m" for n in range(1, 10)]
    + [f"{n}s" for n in range(1, 10)]
    + [f"{n}p" for n in range(1, 10)]
    + ["5f", "6f", "8f", "7f", "1f", "2f", "3f", "4f"]
)
GLYPHS = {chr(0x1F000 + i): c for i, c in enumerate(_GLYPH_CODES)}
#: The two glyphs of the block that name no tile of a hand (docs/conventions.md): refused with a reason.
NO_TILE_GLYPHS = {
    "\U0001F02A": "the joker, which no rule system here plays with",
    "\U0001F02B": "a tile's back, which names no tile; write a concealed kong as (9999s)",
}
#: The digits each suit letter takes: ``0`` is the red five of m, p and s (CONVENTIONS §1).
_SUIT_DIGITS = {"m": "0123456789", "p": "0123456789", "s": "0123456789", "z": "1234567", "f": "12345678"}


def _tokens(text: str, where: str) -> list[str]:
    """Tile codes of a bracket-free piece of notation."""
    out: list[str] = []
    pending = ""
    for ch in text:
        if ch.isspace() or ch == "\ufe0e" or ch == "\ufe0f":
            if pending:
                raise HandError("bad_notation", msg("digits '{pending}' in {where} have no suit letter (m, p, "
                                                    "s, z or f)", pending=pending, where=where))
            continue
        if ch.isdigit() and ch.isascii():
            pending += ch
        elif ch in _SUIT_DIGITS:
            if not pending:
                raise HandError("bad_notation", msg("suit letter '{ch}' in {where} has no digits before it",
                                                    ch=ch, where=where))
            for d in pending:
                if d not in _SUIT_DIGITS[ch]:
                    raise HandError("unknown_tile", msg("'{d}{ch}' in {where} is not a tile", d=d, ch=ch, where=where))
                out.append(f"{d}{ch}")
            pending = ""
        elif ch in HONOUR_LETTERS or ch in GLYPHS:
            if pending:
                raise HandError("bad_notation", msg("digits '{pending}' in {where} have no suit letter (m, p, "
                                                    "s, z or f)", pending=pending, where=where))
            out.append(HONOUR_LETTERS.get(ch) or GLYPHS[ch])
        elif ch in NO_TILE_GLYPHS:
            raise HandError("bad_notation", msg("{ch} in {where} is {NO_TILE_GLYPHS}",
                                                ch=repr(ch), where=where, NO_TILE_GLYPHS=NO_TILE_GLYPHS[ch]))
        else:
            raise HandError("bad_notation", msg("unexpected character {ch} in {where}", ch=repr(ch), where=where))
    if pending:
        raise HandError("bad_notation", msg("digits '{pending}' in {where} have no suit letter (m, p, s, z or "
                                            "f)", pending=pending, where=where))
    return out


def _meld(tiles: list[str], concealed: bool, text: str) -> Meld:
    if any(is_bonus(t) for t in tiles):
        raise HandError("bad_meld", msg("{text}: bonus tiles cannot be part of a meld", text=text))
    tiles = sorted(tiles, key=sort_key)
    kinds = len({plain_code(t) for t in tiles})  # a red five melds as a five: [505p] is a pung
    if concealed:
        if len(tiles) != 4 or kinds != 1:
            raise HandError("bad_meld", msg("{text}: a concealed kong in (...) is four identical tiles", text=text))
        return Meld("kong", tuple(tiles), True)
    if kinds == 1 and len(tiles) in (3, 4):
        return Meld("pung" if len(tiles) == 3 else "kong", tuple(tiles))
    if len(tiles) == 3:
        return Meld("chow", tuple(tiles))
    raise HandError("bad_meld", msg("{text} is not a chow, pung or kong", text=text))


def parse(text: str, context: Context | None = None) -> Hand:
    """Parse compact notation into a structurally valid Hand; raises HandError with a stable code."""
    if not isinstance(text, str) or not text.strip():
        raise HandError("bad_notation", msg("the hand is empty"))
    body, plus, winning_text = text.partition("+")
    winning: str | None = None
    if plus:
        if "+" in winning_text:
            raise HandError("bad_notation", msg("only one '+' (before the winning tile) is allowed"))
        tiles = _tokens(winning_text, msg("the winning tile"))
        if len(tiles) != 1 or is_bonus(tiles[0]):
            raise HandError("bad_notation", msg("'+{text}' must name exactly one playing tile",
                                                text=winning_text.strip()))
        winning = tiles[0]
    concealed: list[str] = []
    flowers: list[str] = []
    melds: list[Meld] = []
    i = 0
    plain = ""
    closers = {"[": "]", "(": ")"}
    while i < len(body):
        ch = body[i]
        if ch in closers:
            end = body.find(closers[ch], i + 1)
            if end < 0:
                raise HandError("bad_notation", msg("'{ch}' at position {position} is never closed", ch=ch,
                                                    position=i + 1))
            inner = body[i + 1 : end]
            if any(c in inner for c in "[]()"):
                raise HandError("bad_notation", msg("brackets cannot nest: {body}", body=body[i:end + 1]))
            melds.append(_meld(_tokens(inner, body[i : end + 1]), ch == "(", body[i : end + 1]))
            plain += " "
            i = end + 1
        elif ch in "])":
            raise HandError("bad_notation", msg("'{ch}' at position {position} closes nothing", ch=ch, position=i + 1))
        else:
            plain += ch
            i += 1
    for tile in _tokens(plain, msg("the hand")):
        (flowers if is_bonus(tile) else concealed).append(tile)
    hand = Hand(tuple(concealed), tuple(melds), winning, tuple(flowers), context or Context())
    validate_structure(hand)
    return hand


def format_hand(hand: Hand) -> str:
    """The compact notation of a hand (the inverse of ``parse`` up to tile order)."""

    def run(tiles) -> str:
        out, last_suit, digits = [], None, ""
        for t in sorted(tiles, key=sort_key):
            if last_suit is not None and t[1] != last_suit:
                out.append(digits + last_suit)
                digits = ""
            digits += t[0]
            last_suit = t[1]
        if digits:
            out.append(digits + last_suit)
        return "".join(out)

    parts = [run(hand.concealed)] if hand.concealed else []
    for m in hand.melds:
        parts.append(("(%s)" if m.concealed else "[%s]") % run(m.tiles))
    if hand.flowers:
        parts.append(run(hand.flowers))
    text = " ".join(parts)
    return f"{text} +{hand.winning_tile}" if hand.winning_tile else text
