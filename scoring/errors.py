"""The one exception every scoring and parsing failure raises, with a stable machine-readable code.

Codes are part of the public contract (Score JSON ``error.code``, HTTP error bodies, exit status 2 of the
command line), so they are listed here once and never renamed.
"""

from __future__ import annotations

ERROR_CODES = {
    "bad_notation": "the compact hand notation could not be read",
    "bad_hand_json": "the Hand JSON is malformed",
    "unknown_tile": "a tile code is not one of the 42 tile codes",
    "tile_count": "the number of tiles does not fit the rule system",
    "too_many_copies": "a tile appears more than four times (or a bonus tile more than once)",
    "bad_meld": "a meld is not a chow, pung or kong of the tiles it lists",
    "bad_context": "a context key is unknown or has a value of the wrong type",
    "not_winning": "the tiles do not form a winning hand",
    "below_minimum": "the hand wins in shape but is worth less than the rule system's minimum",
    "no_yaku": "the hand wins in shape but has no yaku, which riichi needs (dora alone do not count)",
    "unknown_rules": "the rule system is not one of the systems offered",
    "bad_option": "a scoring option or house rule is unknown or out of range",
    "face_down_kong": "a photo's concealed kong shows four backs: its tile must be given to score the hand",
    "bad_kong": "a concealed kong's tile given for a photo is not a playing tile's code",
}


class HandError(ValueError):
    """A bad hand, notation, option or rule name. ``code`` is one of ``ERROR_CODES``."""

    def __init__(self, code: str, message: str):
        if code not in ERROR_CODES:
            raise KeyError(f"unregistered error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}
