"""Tile codes and the small facts about tiles every rule system needs.

Tiles travel between modules as their string codes (``"5p"``, ``"7z"``, ``"3f"``; see CONVENTIONS §1).
Inside the decomposition and the scorers a tile is an index 0..33 into a 34-slot count array, because
counting and set-finding are much faster on integers; bonus tiles never enter those arrays.
"""

from __future__ import annotations

SUITS = "mps"
SUIT_NAMES_EN = {"m": "characters", "p": "dots", "s": "bamboo", "z": "honours", "f": "bonus"}

#: The 34 playing tiles, in index order: 1m..9m, 1p..9p, 1s..9s, 1z..7z.
PLAYING_CODES: tuple[str, ...] = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10)) + tuple(
    f"{n}z" for n in range(1, 8)
)
#: The eight bonus tiles: seasons 1f..4f, flowers 5f..8f.
SEASON_CODES: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 5))
FLOWER_CODES: tuple[str, ...] = tuple(f"{n}f" for n in range(5, 9))
BONUS_CODES: tuple[str, ...] = SEASON_CODES + FLOWER_CODES
#: Every code a hand may hold, red fives aside.
ALL_CODES: tuple[str, ...] = PLAYING_CODES + BONUS_CODES
#: A face-down tile: the detector's 43rd class, never a tile of a hand's notation.
BACK_CODE = "back"
#: The detector's 43 classes, in the order of the real-photo datasets.
DETECTOR_CLASSES: tuple[str, ...] = ALL_CODES + (BACK_CODE,)
#: Red fives (riichi aka-dora), each the five of its suit to every rule system that has no red fives.
RED_FIVES: dict[str, str] = {"0m": "5m", "0p": "5p", "0s": "5s"}
#: The reader's classes when it tells red fives apart: the detector's 43, then the three red fives (CONVENTIONS §1).
READER_CLASSES: tuple[str, ...] = DETECTOR_CLASSES + tuple(RED_FIVES)
#: Every code a hand may hold, red fives included.
HAND_CODES: tuple[str, ...] = ALL_CODES + tuple(RED_FIVES)

INDEX: dict[str, int] = {code: i for i, code in enumerate(PLAYING_CODES)}
#: INDEX with each red five at its five's index: counting tiles, a red five is a five.
_COUNT_INDEX: dict[str, int] = {**INDEX, **{red: INDEX[five] for red, five in RED_FIVES.items()}}
#: How many of each tile one set holds: four of a playing tile (a red five is one of its five's four), one of a
#: bonus tile.
COPIES_IN_SET: dict[str, int] = {**{code: 4 for code in PLAYING_CODES}, **{code: 1 for code in BONUS_CODES}}

WIND_CODES = {"E": "1z", "S": "2z", "W": "3z", "N": "4z"}
WIND_LETTERS = ("E", "S", "W", "N")
DRAGON_CODES = ("5z", "6z", "7z")

NAMES_ZH = {
    **{f"{n}m": f"{'一二三四五六七八九'[n - 1]}萬" for n in range(1, 10)},
    **{f"{n}p": f"{'一二三四五六七八九'[n - 1]}筒" for n in range(1, 10)},
    **{f"{n}s": f"{'一二三四五六七八九'[n - 1]}索" for n in range(1, 10)},
    "1z": "東", "2z": "南", "3z": "西", "4z": "北", "5z": "白", "6z": "發", "7z": "中",
    "1f": "春", "2f": "夏", "3f": "秋", "4f": "冬", "5f": "梅", "6f": "蘭", "7f": "菊", "8f": "竹",
}


def plain_code(code: str) -> str:
    """The code a tile has where red fives are plain fives: ``0p`` is ``5p``; every other code is itself."""
    return RED_FIVES.get(code, code)


def is_playing(code: str) -> bool:
    return code in _COUNT_INDEX


def is_bonus(code: str) -> bool:
    return code in BONUS_CODES


def bonus_seat(code: str) -> str:
    """The seat wind letter a bonus tile belongs to: 1f/5f East, 2f/6f South, 3f/7f West, 4f/8f North."""
    n = int(code[0])
    return WIND_LETTERS[(n - 1) % 4]


# Index predicates: tables, not branches, so scorers can test a tile in O(1).
SUIT_OF: tuple[int, ...] = tuple(i // 9 if i < 27 else 3 for i in range(34))  # 0 m, 1 p, 2 s, 3 honour
RANK_OF: tuple[int, ...] = tuple(i % 9 + 1 if i < 27 else 0 for i in range(34))
IS_HONOR: tuple[bool, ...] = tuple(i >= 27 for i in range(34))
IS_WIND: tuple[bool, ...] = tuple(27 <= i <= 30 for i in range(34))
IS_DRAGON: tuple[bool, ...] = tuple(i >= 31 for i in range(34))
IS_TERMINAL: tuple[bool, ...] = tuple(i < 27 and i % 9 in (0, 8) for i in range(34))
IS_TERMINAL_OR_HONOR: tuple[bool, ...] = tuple(IS_HONOR[i] or IS_TERMINAL[i] for i in range(34))
#: Tiles drawn only in green (all-green hands): 2s 3s 4s 6s 8s 6z.
IS_GREEN: tuple[bool, ...] = tuple(PLAYING_CODES[i] in {"2s", "3s", "4s", "6s", "8s", "6z"} for i in range(34))
#: Tiles with rotational symmetry (MCR "reversible tiles"): 1234589p 245689s 5z.
IS_REVERSIBLE: tuple[bool, ...] = tuple(
    PLAYING_CODES[i] in {*(f"{n}p" for n in "1234589"), *(f"{n}s" for n in "245689"), "5z"} for i in range(34)
)

TERMINALS_AND_HONORS: tuple[int, ...] = tuple(i for i in range(34) if IS_TERMINAL_OR_HONOR[i])


def index(code: str) -> int:
    return _COUNT_INDEX[code]


def code(idx: int) -> str:
    return PLAYING_CODES[idx]


def wind_index(letter: str) -> int:
    """Index of the wind tile for a seat or round letter E/S/W/N."""
    return 27 + WIND_LETTERS.index(letter)


def counts_of(codes) -> list[int]:
    """A 34-slot count array from playing-tile codes."""
    counts = [0] * 34
    for c in codes:
        counts[_COUNT_INDEX[c]] += 1
    return counts


def sort_key(code: str) -> tuple[int, int]:
    """Order tiles as players lay them: m, p, s, honours, bonus; by rank inside a suit (a red five as a five)."""
    return ("mpszf".index(code[1]), int(code[0]) or 5) if len(code) == 2 else (9, 0)
