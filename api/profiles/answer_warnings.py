"""What the profile calls tell a client beside their answer: rows a layout lacks, tiles left out or missing, and
examples dropped past the per-code cap."""

from __future__ import annotations

from collections.abc import Iterable

from mjlens.i18n import msg
from mjlens.scoring.tiles import BACK_CODE, DETECTOR_CLASSES
from mjlens.vision.profile import Profile
from mjlens.vision.profile.calibration import ROW_NAMES
from mjlens.vision.profile.layout import SHEET_ROWS

from .store import ExamplesAdded
from .tiles import TileLabel


def row_warnings(codes: Iterable[str]) -> list[str]:
    """What a layout's codes say of the set: each row it lacks, taken as a row the set does not have."""
    codes = set(codes)
    return [f"no {name} row in the photo: the set is taken to have none, and the reader reads none"
            for name, row in zip(ROW_NAMES, SHEET_ROWS, strict=True) if not set(row) & codes]


def tiles_warnings(profile: Profile, labels: list[TileLabel]) -> list[str]:
    """A profile made from labelled tiles: the face-down tiles left out, and the rows or codes it lacks."""
    from mjlens.vision.profile.sources import COMPLETE_SET_CODES  # loaded once a profile is made from tiles

    backs = sum(label.code == BACK_CODE for label in labels)
    warnings = [f"{backs} face-down tile(s) left out: they teach nothing of the faces"] if backs else []
    if profile.complete:
        return warnings + row_warnings(profile.codes)
    missing = sorted(COMPLETE_SET_CODES - set(profile.codes), key=DETECTOR_CLASSES.index)
    return warnings + [f"the tiles lack {len(missing)} code(s) of 1m..7z ({', '.join(missing[:9])}"
                       f"{', ...' if len(missing) > 9 else ''}): the profile does not name the set's codes, and a code "
                       f"it has no example of is read by the shipped classifier alone"]


def examples_warnings(before: Profile, labels: list[TileLabel], result: ExamplesAdded, per_code: int) -> list[str]:
    """Examples added: the face-down tiles left out, the examples dropped, and codes new to a complete profile."""
    backs = sum(label.code == BACK_CODE for label in labels)
    warnings = [f"{backs} face-down tile(s) left out: they teach nothing of the faces"] if backs else []
    if result.dropped:
        counts = ", ".join(f"{code} {n}" for code, n in sorted(result.dropped.items(),
                                                                key=lambda item: DETECTOR_CLASSES.index(item[0])))
        warnings.append(msg("the oldest examples were dropped ({counts}): a profile keeps {per_code} of a code",
                            counts=counts, per_code=per_code))
    if before.complete:
        new = sorted(set(result.profile.codes) - set(before.codes), key=DETECTOR_CLASSES.index)
        if new:
            warnings.append(msg("the profile said the set has no {new}; it now does", new=', '.join(new)))
    return warnings
