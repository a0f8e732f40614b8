"""One photo, one tile set: at most four copies of a playing tile and one of each flower or season.

A reading with more copies than a set holds is wrong somewhere. Of the copies of that code, the one that loses
least by it (its probability minus its runner-up's) gives way to its runner-up reading, if the runner-up is a code
with room left and at least ``MIN_RUNNER_UP`` likely; this repeats until every code fits or no runner-up is left.
A tile read this way keeps its first reading as its first alternative, more likely than its code: that is how the
recognizer tells the user which tiles the rule moved (``overruled``), never silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from mjlens.i18n import msg
from mjlens.scoring.tiles import COPIES_IN_SET
from mjlens.vision.detection import Detection

#: A runner-up below this is too unlikely to take a tile's place; the extra copy then stays, and is reported.
MIN_RUNNER_UP = 0.15


def over_limit(detections: Sequence[Detection]) -> dict[str, int]:
    """The codes read more often than a set holds them, with their counts (backs and unknown codes have no limit)."""
    counts = Counter(d.code for d in detections)
    return {code: n for code, n in counts.items() if code in COPIES_IN_SET and n > COPIES_IN_SET[code]}


def limit_copies(detections: Sequence[Detection]) -> list[Detection]:
    """The reading with no more copies of a code than a set holds, where runner-ups allow (module docstring)."""
    result = list(detections)
    counts = Counter(d.code for d in result)
    while True:
        best = None  # (loss, tile index, runner-up code, runner-up probability)
        for i, tile in enumerate(result):
            if tile.code not in COPIES_IN_SET or counts[tile.code] <= COPIES_IN_SET[tile.code]:
                continue
            for code, probability in tile.alternatives:
                if probability < MIN_RUNNER_UP:
                    break
                if code not in COPIES_IN_SET or counts[code] < COPIES_IN_SET[code]:  # a back has no limit
                    loss = tile.confidence - probability
                    if best is None or loss < best[0]:
                        best = (loss, i, code, probability)
                    break
        if best is None:
            return result
        _, i, code, probability = best
        tile = result[i]
        others = tuple(alt for alt in tile.alternatives if alt[0] != code)
        result[i] = replace(tile, code=code, confidence=probability,
                            alternatives=((tile.code, tile.confidence), *others))
        counts[tile.code] -= 1
        counts[code] += 1


def overruled(detection: Detection) -> bool:
    """True for a tile ``limit_copies`` moved to its runner-up: its first alternative is more likely than its code."""
    return bool(detection.alternatives) and detection.alternatives[0][1] > detection.confidence


def copy_warnings(detections: Sequence[Detection]) -> list[str]:
    """What the user should check: each tile read as its runner-up by the rule, each code still over the limit.
    Tiles are named by their index in ``detections``."""
    warnings = []
    for i, tile in enumerate(detections):
        first, probability = tile.alternatives[0] if tile.alternatives else ("", 0.0)
        if overruled(tile) and first in COPIES_IN_SET:
            warnings.append(msg("tile {i} looks most like {first} ({probability:.2f}), but one set holds only "
                                "{COPIES_IN_SET} {first}: read as {code} ({confidence:.2f}), its next best "
                                "reading",
                                i=i, first=first, probability=probability, COPIES_IN_SET=COPIES_IN_SET[first],
                                code=tile.code, confidence=tile.confidence))
    for code, count in sorted(over_limit(detections).items()):
        warnings.append(msg("{code} is read {count} times, but one set holds only {COPIES_IN_SET}: check "
                            "those tiles", code=code, count=count, COPIES_IN_SET=COPIES_IN_SET[code]))
    return warnings
