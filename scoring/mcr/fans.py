"""The 81 fan of the Chinese Official rules (國標麻將) as data: key, names, value, and what each one excludes.

Rows are ordered by value, highest first; inside a value they follow the order of the official list. That
order matters: exclusions are applied row by row, so a fan that is itself excluded by a higher one no
longer excludes anything (不重複: "a fan implied by another is not counted again").

``excludes`` lists the fans that are not counted when the row's fan is (the rule's 不計 clauses, as the
Mahjong International League conventions read them). One adjustment cannot be a plain "not counted":
Pung of Terminals or Honors (么九刻) loses one count for each pung that a wind fan (圈風刻, 門風刻, 三風刻) or
Nine Gates already used, which ``exclusions.py`` does after this table. ``STRICT_1998_EXCLUDES`` adds the
stricter reading of the 1998 text (option ``strict_1998``).

``concealed_kong_and_melded_kong`` (明暗槓, 5) is the League's one addition to the 81: a hand with one
concealed and one melded kong counts it instead of 暗槓 + 明槓. The option ``concealed_and_melded_kong``
(default on) switches it off for the plain 1998 list. ``flower`` (花牌) is the 81st fan, 1 per bonus tile.
"""

from __future__ import annotations

from typing import NamedTuple


class Fan(NamedTuple):
    key: str
    name_zh: str
    name_en: str
    value: int
    excludes: tuple[str, ...] = ()


FANS: tuple[Fan, ...] = (
    # 88
    Fan("big_four_winds", "大四喜", "Big Four Winds", 88,
        ("big_three_winds", "all_pungs", "pung_of_terminals_or_honors", "prevalent_wind", "seat_wind")),
    Fan("big_three_dragons", "大三元", "Big Three Dragons", 88, ("two_dragons_pungs", "dragon_pung")),
    Fan("all_green", "綠一色", "All Green", 88, ("half_flush", "one_voided_suit")),
    Fan("nine_gates", "九蓮寶燈", "Nine Gates", 88,
        ("full_flush", "concealed_hand", "fully_concealed_hand", "one_voided_suit", "no_honors")),
    Fan("four_kongs", "四槓", "Four Kongs", 88, ("single_wait",)),
    Fan("seven_shifted_pairs", "連七對", "Seven Shifted Pairs", 88,
        ("seven_pairs", "full_flush", "concealed_hand", "one_voided_suit", "no_honors")),
    Fan("thirteen_orphans", "十三么", "Thirteen Orphans", 88, ("all_types", "concealed_hand", "single_wait")),
    # 64
    Fan("all_terminals", "清么九", "All Terminals", 64,
        ("all_terminals_and_honors", "all_pungs", "outside_hand", "pung_of_terminals_or_honors", "no_honors",
         "double_pung")),
    Fan("little_four_winds", "小四喜", "Little Four Winds", 64, ("big_three_winds", "pung_of_terminals_or_honors")),
    Fan("little_three_dragons", "小三元", "Little Three Dragons", 64, ("two_dragons_pungs", "dragon_pung")),
    Fan("all_honors", "字一色", "All Honors", 64,
        ("all_terminals_and_honors", "all_pungs", "outside_hand", "pung_of_terminals_or_honors", "one_voided_suit")),
    Fan("four_concealed_pungs", "四暗刻", "Four Concealed Pungs", 64,
        ("all_pungs", "concealed_hand", "fully_concealed_hand")),
    Fan("pure_terminal_chows", "一色雙龍會", "Pure Terminal Chows", 64,
        ("seven_pairs", "full_flush", "all_chows", "pure_double_chow", "two_terminal_chows", "one_voided_suit",
         "no_honors")),
    # 48
    Fan("quadruple_chow", "一色四同順", "Quadruple Chow", 48, ("pure_triple_chow", "tile_hog", "pure_double_chow")),
    Fan("four_pure_shifted_pungs", "一色四節高", "Four Pure Shifted Pungs", 48, ("pure_shifted_pungs", "all_pungs")),
    # 32
    Fan("four_pure_shifted_chows", "一色四步高", "Four Pure Shifted Chows", 32,
        ("pure_shifted_chows", "two_terminal_chows", "short_straight")),
    Fan("three_kongs", "三槓", "Three Kongs", 32),
    Fan("all_terminals_and_honors", "混么九", "All Terminals and Honors", 32,
        ("all_pungs", "outside_hand", "pung_of_terminals_or_honors")),
    # 24
    Fan("seven_pairs", "七對", "Seven Pairs", 24, ("concealed_hand", "single_wait")),
    Fan("greater_honors_and_knitted_tiles", "七星不靠", "Greater Honors and Knitted Tiles", 24,
        ("all_types", "concealed_hand")),
    Fan("all_even_pungs", "全雙刻", "All Even Pungs", 24, ("all_pungs", "all_simples", "no_honors")),
    Fan("full_flush", "清一色", "Full Flush", 24, ("one_voided_suit", "no_honors")),
    Fan("pure_triple_chow", "一色三同順", "Pure Triple Chow", 24, ("pure_shifted_pungs", "pure_double_chow")),
    Fan("pure_shifted_pungs", "一色三節高", "Pure Shifted Pungs", 24, ("pure_triple_chow",)),
    Fan("upper_tiles", "全大", "Upper Tiles", 24, ("upper_four", "no_honors")),
    Fan("middle_tiles", "全中", "Middle Tiles", 24, ("all_simples", "no_honors")),
    Fan("lower_tiles", "全小", "Lower Tiles", 24, ("lower_four", "no_honors")),
    # 16
    Fan("pure_straight", "清龍", "Pure Straight", 16),
    Fan("three_suited_terminal_chows", "三色雙龍會", "Three-Suited Terminal Chows", 16,
        ("all_chows", "no_honors", "mixed_double_chow", "two_terminal_chows")),
    Fan("pure_shifted_chows", "一色三步高", "Pure Shifted Chows", 16),
    Fan("all_five", "全帶五", "All Five", 16, ("all_simples", "no_honors")),
    Fan("triple_pung", "三同刻", "Triple Pung", 16),
    Fan("three_concealed_pungs", "三暗刻", "Three Concealed Pungs", 16),
    # 12
    Fan("lesser_honors_and_knitted_tiles", "全不靠", "Lesser Honors and Knitted Tiles", 12,
        ("all_types", "concealed_hand")),
    Fan("knitted_straight", "組合龍", "Knitted Straight", 12),
    Fan("upper_four", "大於五", "Upper Four", 12, ("no_honors",)),
    Fan("lower_four", "小於五", "Lower Four", 12, ("no_honors",)),
    Fan("big_three_winds", "三風刻", "Big Three Winds", 12),
    # 8
    Fan("mixed_straight", "花龍", "Mixed Straight", 8),
    Fan("reversible_tiles", "推不倒", "Reversible Tiles", 8, ("one_voided_suit",)),
    Fan("mixed_triple_chow", "三色三同順", "Mixed Triple Chow", 8),
    Fan("mixed_shifted_pungs", "三色三節高", "Mixed Shifted Pungs", 8),
    Fan("chicken_hand", "無番和", "Chicken Hand", 8),
    Fan("last_tile_draw", "妙手回春", "Last Tile Draw", 8, ("self_drawn",)),
    Fan("last_tile_claim", "海底撈月", "Last Tile Claim", 8),
    Fan("out_with_replacement_tile", "槓上開花", "Out with Replacement Tile", 8, ("self_drawn",)),
    Fan("robbing_the_kong", "搶槓和", "Robbing the Kong", 8, ("last_tile",)),
    # 6
    Fan("all_pungs", "碰碰和", "All Pungs", 6),
    Fan("half_flush", "混一色", "Half Flush", 6, ("one_voided_suit",)),
    Fan("mixed_shifted_chows", "三色三步高", "Mixed Shifted Chows", 6),
    Fan("all_types", "五門齊", "All Types", 6),
    Fan("melded_hand", "全求人", "Melded Hand", 6, ("single_wait",)),
    Fan("two_concealed_kongs", "雙暗槓", "Two Concealed Kongs", 6, ("concealed_kong", "two_concealed_pungs")),
    Fan("two_dragons_pungs", "雙箭刻", "Two Dragons Pungs", 6, ("dragon_pung",)),
    # 5 (League addition, see the module docstring)
    Fan("concealed_kong_and_melded_kong", "明暗槓", "Concealed Kong and Melded Kong", 5),
    # 4
    Fan("outside_hand", "全帶么", "Outside Hand", 4),
    Fan("fully_concealed_hand", "不求人", "Fully Concealed Hand", 4, ("self_drawn",)),
    Fan("two_melded_kongs", "雙明槓", "Two Melded Kongs", 4, ("melded_kong",)),
    Fan("last_tile", "和絕張", "Last Tile", 4),
    # 2
    Fan("dragon_pung", "箭刻", "Dragon Pung", 2),
    Fan("prevalent_wind", "圈風刻", "Prevalent Wind", 2),
    Fan("seat_wind", "門風刻", "Seat Wind", 2),
    Fan("concealed_hand", "門前清", "Concealed Hand", 2),
    Fan("all_chows", "平和", "All Chows", 2, ("no_honors",)),
    Fan("tile_hog", "四歸一", "Tile Hog", 2),
    Fan("double_pung", "雙同刻", "Double Pung", 2),
    Fan("two_concealed_pungs", "雙暗刻", "Two Concealed Pungs", 2),
    Fan("concealed_kong", "暗槓", "Concealed Kong", 2),
    Fan("all_simples", "斷么", "All Simples", 2, ("no_honors",)),
    # 1
    Fan("pure_double_chow", "一般高", "Pure Double Chow", 1),
    Fan("mixed_double_chow", "喜相逢", "Mixed Double Chow", 1),
    Fan("short_straight", "連六", "Short Straight", 1),
    Fan("two_terminal_chows", "老少副", "Two Terminal Chows", 1),
    Fan("pung_of_terminals_or_honors", "么九刻", "Pung of Terminals or Honors", 1),
    Fan("melded_kong", "明槓", "Melded Kong", 1),
    Fan("one_voided_suit", "缺一門", "One Voided Suit", 1),
    Fan("no_honors", "無字", "No Honors", 1),
    Fan("edge_wait", "邊張", "Edge Wait", 1),
    Fan("closed_wait", "坎張", "Closed Wait", 1),
    Fan("single_wait", "單釣將", "Single Wait", 1),
    Fan("self_drawn", "自摸", "Self-Drawn", 1),
    Fan("flower", "花牌", "Flower Tiles", 1),
)

#: Option ``strict_1998``: the stricter reading of the 1998 rule text. 003 says 清么九 "不计…同刻" (so no
#: 三同刻 either), and the fan made of one suit's sets do not add 缺一門. (七對 then takes no range or
#: all-of-a-kind tile fan either: see ``detectors.special``.)
STRICT_1998_EXCLUDES: dict[str, tuple[str, ...]] = {
    "all_terminals": ("triple_pung",),
    "big_three_dragons": ("one_voided_suit",),
    "little_three_dragons": ("one_voided_suit",),
    "quadruple_chow": ("one_voided_suit",),
    "four_pure_shifted_pungs": ("one_voided_suit",),
    "four_pure_shifted_chows": ("one_voided_suit",),
    "big_three_winds": ("one_voided_suit",),
}
#: 七對 under ``strict_1998``: these tile fan are not combined with it.
STRICT_1998_NOT_WITH_SEVEN_PAIRS = ("upper_tiles", "middle_tiles", "lower_tiles", "upper_four", "lower_four",
                                    "all_green", "all_honors", "all_terminals", "all_terminals_and_honors")

BY_KEY: dict[str, Fan] = {f.key: f for f in FANS}
#: Row position, for sorting items the way the official list reads.
ORDER: dict[str, int] = {f.key: i for i, f in enumerate(FANS)}
#: The rows that exclude something, in the order exclusions are applied: (fan, what it excludes), for the
#: League reading and for ``strict_1998``.
EXCLUDING: tuple[tuple[Fan, tuple[str, ...]], ...] = tuple((f, f.excludes) for f in FANS if f.excludes)
EXCLUDING_STRICT_1998: tuple[tuple[Fan, tuple[str, ...]], ...] = tuple(
    (f, f.excludes + STRICT_1998_EXCLUDES.get(f.key, ())) for f in FANS if f.excludes or f.key in STRICT_1998_EXCLUDES
)
#: Fans outside the 81 of the 1998 list (League conventions); each has an option that turns it off.
EXTRA_KEYS = frozenset({"concealed_kong_and_melded_kong"})

assert len(FANS) - len(EXTRA_KEYS) == 81, "the Chinese Official list has 81 fan"
assert all(e in BY_KEY for _, ex in EXCLUDING_STRICT_1998 for e in ex), "an exclusion names an unknown fan"
