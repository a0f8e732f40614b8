"""What the profile calls tell a client beside their answer: rows a layout lacks, tiles left out or missing,
examples dropped past the per-code cap, and a profile that changes no reading. Each is a message of the catalogue,
said in the request's language."""

from __future__ import annotations

from collections.abc import Iterable

from mjlens.i18n import Message, msg, pmsg
from mjlens.scoring.tiles import BACK_CODE, DETECTOR_CLASSES
from mjlens.vision.profile import Profile
from mjlens.vision.profile.layout import SHEET_ROWS
from mjlens.vision.profile.store import NO_CHANGE

from .store import ExamplesAdded
from .tiles import TileLabel

#: The sheet's rows as a warning names them (``vision.profile.calibration.ROW_NAMES``, in the catalogue).
ROW_WORDS = (pmsg("sheet row", "characters 1m-9m"), pmsg("sheet row", "dots 1p-9p"),
             pmsg("sheet row", "bamboo 1s-9s"), pmsg("sheet row", "honours 1z-7z"),
             pmsg("sheet row", "flowers and seasons 1f-8f"))


def _backs_left_out(labels: list[TileLabel]) -> list[Message]:
    backs = sum(label.code == BACK_CODE for label in labels)
    return [msg("{backs} face-down tile(s) left out: they teach nothing of the faces", backs=backs)] if backs else []


def row_warnings(codes: Iterable[str]) -> list[Message]:
    """What a layout's codes say of the set: each row it lacks, taken as a row the set does not have."""
    codes = set(codes)
    return [msg("no {name} row in the photo: the set is taken to have none, and the reader reads none", name=name)
            for name, row in zip(ROW_WORDS, SHEET_ROWS, strict=True) if not set(row) & codes]


def change_warnings(profile: Profile) -> list[Message]:
    """``NO_CHANGE`` where reading with ``profile`` reads every photo as the shipped classifier alone does."""
    return [NO_CHANGE] if profile.changes_no_reading() else []


def tiles_warnings(profile: Profile, labels: list[TileLabel]) -> list[Message]:
    """A profile made from labelled tiles: the face-down tiles left out, and the rows or codes it lacks."""
    from mjlens.vision.profile.sources import COMPLETE_SET_CODES  # loaded once a profile is made from tiles

    warnings = _backs_left_out(labels)
    if profile.complete:
        return warnings + row_warnings(profile.codes)
    missing = sorted(COMPLETE_SET_CODES - set(profile.codes), key=DETECTOR_CLASSES.index)
    listed = ", ".join(missing[:9]) + (", ..." if len(missing) > 9 else "")
    return warnings + [msg("the tiles lack {n} code(s) of 1m..7z ({codes}): the profile does not name the set's codes, "
                           "and a code it has no example of is read by the shipped classifier alone",
                           n=len(missing), codes=listed)]


def examples_warnings(before: Profile, labels: list[TileLabel], result: ExamplesAdded,
                      per_code: int) -> list[Message]:
    """Examples added: the face-down tiles left out, the examples dropped, codes new to a complete profile, and a
    profile that still changes no reading."""
    warnings = _backs_left_out(labels)
    if result.dropped:
        counts = ", ".join(f"{code} {n}" for code, n in sorted(result.dropped.items(),
                                                                key=lambda item: DETECTOR_CLASSES.index(item[0])))
        warnings.append(msg("the oldest examples were dropped ({counts}): a profile keeps {per_code} of a code",
                            counts=counts, per_code=per_code))
    if before.complete:
        new = sorted(set(result.profile.codes) - set(before.codes), key=DETECTOR_CLASSES.index)
        if new:
            warnings.append(msg("the profile said the set has no {new}; it now does", new=', '.join(new)))
    return warnings + change_warnings(result.profile)
