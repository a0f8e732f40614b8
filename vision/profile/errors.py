"""The one error a profile raises: a stable ``code`` (the list below) and a message that says what to do."""

from __future__ import annotations

#: Every code a profile error may carry, and what it means.
PROFILE_ERROR_CODES = {
    "no_tiles": "no tiles were found in the calibration photo",
    "row_length": "a row of the calibration photo holds a number of tiles no row of the sheet holds",
    "rows_unmatched": "the rows of the calibration photo cannot be the sheet's rows in their order",
    "code_missing": "a row of the calibration photo reads one code twice and lacks another",
    "tiles_look_alike": "two codes of the set look the same to the reader",
    "tiles_unreadable": "the tiles of the calibration photo are too small or too blurred to read",
    "no_examples": "the labels or corrections hold no tile to learn from",
    "bad_labels": "a labels folder or a corrections file that cannot be read",
    "bad_profile": "a file that is not a profile, or is damaged",
    "profile_version": "a profile written in a format this version cannot read",
    "profile_classifier": "a profile made with another crop classifier, or a reader without one",
}


class ProfileError(ValueError):
    """A profile that cannot be made, read or used; ``code`` is a key of ``PROFILE_ERROR_CODES``."""

    def __init__(self, code: str, message: str):
        if code not in PROFILE_ERROR_CODES:
            raise KeyError(f"unregistered profile error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}
