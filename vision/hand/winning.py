"""A winning hand's tiles: one unsure tile read as its runner-up where that alone makes the hand complete.

A player photographs the hand that won. Where the tiles the layout puts in the hand make no complete hand under
any rule system (``SHAPES_BY_SIZE``) but one tile of its concealed part, read as one of its runner-ups, would, and
only one such reading exists, the reader takes it: the tile's code becomes that runner-up and its first reading
its first alternative, as the copy rule does (``vision.reading.copies``), and a warning names the tile. A tile read as
surely as ``SURE`` is never moved, nor is a meld's (the layout reads a meld by its own runner-ups), and a runner-up
under the layout's ``ALTERNATIVE_MIN`` is never taken. On two sets of synthetic photos of winning hands it read 7
tiles so, each first read at 0.65 or less, and 4 more hands came out as laid out; on hk-photos ``valid``, whose
photos are most often not of a winning hand, it reads none (docs/experiments/hands-read.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from mjlens.i18n import msg
from mjlens.scoring.decompose import Shapes, arrangements, meld_group
from mjlens.scoring.hand import Hand
from mjlens.scoring.tiles import COPIES_IN_SET, counts_of, index, is_playing, plain_code, sort_key
from mjlens.vision.detection import Detection
from mjlens.vision.hand.layout import ALTERNATIVE_MIN, ALTERNATIVES_TRIED, Layout

#: The shapes of a complete hand by its size (a kong counted as three): 14 tiles under any rule system (the Chinese
#: Official shapes hold the others'), 17 under Taiwan rules (five sets and a pair, or seven pairs and a pung).
SHAPES_BY_SIZE = {
    14: Shapes(knitted=True),
    17: Shapes(sets=5, seven_pairs=False, thirteen_orphans=False, seven_pairs_pung=True),
}
#: A tile read at least this surely keeps its reading, whatever the hand makes of it: a guard, not a tuned value
#: (every tile the rule read again on synthetic photos had been read at 0.65 or less).
SURE = 0.9
#: The groups whose tiles may be read again: the concealed row and the winning tile set apart.
HAND_ROLES = ("concealed", "winning")


def is_complete(hand: Hand) -> bool:
    """Whether ``hand`` is a complete hand under some rule system, with no more copies of a tile than a set holds."""
    shapes = SHAPES_BY_SIZE.get(hand.effective_size())
    if shapes is None or any(n > COPIES_IN_SET[code] for code, n in Counter(map(plain_code, hand.all_tiles())).items()):
        return False
    melds = tuple(meld_group(meld.kind, index(min(meld.tiles, key=sort_key)), meld.concealed)
                  for meld in hand.melds)
    return bool(arrangements(tuple(counts_of(hand.all_concealed())), melds, shapes))


def _read_as(hand: Hand, code: str, runner_up: str, winning: bool) -> Hand:
    """``hand`` with one ``code`` of its concealed part (the winning tile, if ``winning``) read as ``runner_up``."""
    if winning:
        return replace(hand, winning_tile=runner_up)
    concealed = list(hand.concealed)
    concealed.remove(code)
    return replace(hand, concealed=tuple(sorted([*concealed, runner_up], key=sort_key)))


def completing_readings(detections: Sequence[Detection], layout: Layout) -> list[tuple[int, str, float]]:
    """Each (tile index, runner-up code, its probability) whose reading alone makes the layout's incomplete hand
    complete; empty where the hand is complete already or is none."""
    hand = getattr(layout, "hand", None)
    if not isinstance(hand, Hand) or hand.effective_size() not in SHAPES_BY_SIZE or is_complete(hand):
        return []
    found = []
    for group in getattr(layout, "groups", ()):
        if group["role"] not in HAND_ROLES:
            continue
        for i in group["tiles"]:
            tile = detections[i]
            if tile.confidence >= SURE or not is_playing(tile.code):
                continue
            for code, probability in tile.alternatives[:ALTERNATIVES_TRIED]:
                if probability >= ALTERNATIVE_MIN and is_playing(code) and code != tile.code and is_complete(
                        _read_as(hand, tile.code, code, group["role"] == "winning")):
                    found.append((i, code, probability))
    return found


def winning_reading(detections: Sequence[Detection], layout: Layout,
                    assemble: Callable[[list[Detection]], Layout]) -> tuple[list[Detection], Layout]:
    """The tiles and their layout, with the one tile whose runner-up alone completes the hand read so (the module
    docstring) and a warning saying it; as they are where no such tile, or more than one, exists."""
    found = completing_readings(detections, layout)
    if len(found) != 1:
        return list(detections), layout
    (i, code, probability), tile = found[0], detections[found[0][0]]
    others = tuple(alt for alt in tile.alternatives if alt[0] != code)
    read = list(detections)
    read[i] = replace(tile, code=code, confidence=probability, alternatives=((tile.code, tile.confidence), *others))
    again = assemble(read)
    if again.hand is None or not is_complete(again.hand):
        return list(detections), layout
    again.warnings.append(msg("a {code} read at {confidence:.2f} was taken for its runner-up {code2} "
                              "({probability:.2f}): with it the tiles make a winning hand",
                              code=tile.code, confidence=tile.confidence, code2=code, probability=probability))
    return read, again
