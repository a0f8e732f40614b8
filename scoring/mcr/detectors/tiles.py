"""Fan that look at the tiles, not at how they are grouped: suits, tile traits, rank ranges, 四歸一,
and the fan that every set (pair included) must share: 全帶么, 全帶五, 全雙刻."""

from __future__ import annotations

from mjlens.scoring.tiles import IS_GREEN, IS_REVERSIBLE, IS_TERMINAL, IS_TERMINAL_OR_HONOR

from ..view import code_rank


def _present(counts: tuple[int, ...]) -> list[int]:
    return [i for i, n in enumerate(counts) if n]


def suit_fans(present: list[int], tally: dict[str, int]) -> None:
    """無字, 缺一門, 混一色, 清一色, 五門齊."""
    suits = {i // 9 if i < 27 else 3 for i in present}
    honors = 3 in suits
    if not honors:
        tally["no_honors"] = 1
    missing = sum(1 for s in range(3) if s not in suits)
    if missing == 2:
        tally["half_flush" if honors else "full_flush"] = 1
    elif missing:
        tally["one_voided_suit"] = missing
    if missing == 0 and honors:
        if any(27 <= i <= 30 for i in present) and any(i >= 31 for i in present):
            tally["all_types"] = 1


def trait_fans(present: list[int], tally: dict[str, int]) -> None:
    """斷么, 推不倒, 綠一色, 字一色, 清么九, 混么九."""
    if not any(IS_TERMINAL_OR_HONOR[i] for i in present):
        tally["all_simples"] = 1
    if all(IS_REVERSIBLE[i] for i in present):
        tally["reversible_tiles"] = 1
    if all(IS_GREEN[i] for i in present):
        tally["all_green"] = 1
    if "all_simples" in tally:
        return
    if all(i >= 27 for i in present):
        tally["all_honors"] = 1
    elif all(IS_TERMINAL[i] for i in present):
        tally["all_terminals"] = 1
    elif all(IS_TERMINAL_OR_HONOR[i] for i in present):
        tally["all_terminals_and_honors"] = 1


def rank_fans(present: list[int], tally: dict[str, int]) -> None:
    """全大, 全中, 全小, 大於五, 小於五: numbered tiles only, within a range of ranks."""
    if any(i >= 27 for i in present):
        return
    ranks = {i % 9 + 1 for i in present}
    if max(ranks) <= 4:
        tally["lower_four" if 4 in ranks else "lower_tiles"] = 1
    elif min(ranks) >= 6:
        tally["upper_four" if 6 in ranks else "upper_tiles"] = 1
    elif min(ranks) >= 4 and max(ranks) <= 6:
        tally["middle_tiles"] = 1


def tile_hog(all_counts: tuple[int, ...], kongs: int, tally: dict[str, int]) -> None:
    """四歸一: all four copies of a tile in the hand, not as a kong."""
    n = sum(1 for c in all_counts if c == 4) - kongs
    if n > 0:
        tally["tile_hog"] = n


def set_trait_fans(sets: list[tuple[str, int]], tally: dict[str, int]) -> None:
    """全帶么 / 全帶五 / 全雙刻 over the five groups (kind, set code); chows go by their lowest tile."""
    terminal = five = even = 0
    for kind, c in sets:
        if c >= 48:
            terminal += 1
            continue
        r = code_rank(c)
        if kind == "chow":
            if r in (1, 7):
                terminal += 1
            elif r in (3, 4, 5):
                five += 1
        elif r in (1, 9):
            terminal += 1
        elif r == 5:
            five += 1
        elif r % 2 == 0:
            even += 1
    if terminal == 5:
        tally["outside_hand"] = 1
    elif five == 5:
        tally["all_five"] = 1
    elif even == 5:
        tally["all_even_pungs"] = 1
