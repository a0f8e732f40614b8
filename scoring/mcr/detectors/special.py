"""Fan of the special shapes: 七對 / 連七對, 十三么, 全不靠 / 七星不靠 (with 組合龍 when all nine knitted
tiles are there), and 九蓮寶燈 (a standard shape, told by the 13 tiles held before the winning one)."""

from __future__ import annotations

from mjlens.scoring.decompose import HONORS_AND_KNITTED, SEVEN_PAIRS, THIRTEEN_ORPHANS, Arrangement

from .tiles import rank_fans, suit_fans, tile_hog, trait_fans


def _shifted_pairs(counts: tuple[int, ...]) -> bool:
    held = [i for i, n in enumerate(counts) if n]
    return (len(held) == 7 and held[0] < 27 and held[-1] - held[0] == 6 and held[0] // 9 == held[-1] // 9
            and all(counts[i] == 2 for i in held))


def special_fans(arr: Arrangement, counts: tuple[int, ...], tally: dict[str, int]) -> None:
    """The fan a special shape gives by itself, with the tile fan that can go with it."""
    present = [i for i, n in enumerate(counts) if n]
    if arr.shape == SEVEN_PAIRS:
        if _shifted_pairs(counts):
            tally["seven_shifted_pairs"] = 1
            trait_fans(present, tally)
            return
        tally["seven_pairs"] = 1
        suit_fans(present, tally)
        trait_fans(present, tally)
        rank_fans(present, tally)
        tile_hog(counts, 0, tally)
    elif arr.shape == THIRTEEN_ORPHANS:
        tally["thirteen_orphans"] = 1
    elif arr.shape == HONORS_AND_KNITTED:
        numbered = sum(1 for i in present if i < 27)
        if numbered == 7 and len(present) - numbered == 7:
            tally["greater_honors_and_knitted_tiles"] = 1
        else:
            tally["lesser_honors_and_knitted_tiles"] = 1
            if numbered == 9:
                tally["knitted_straight"] = 1


def nine_gates(standing: tuple[int, ...]) -> bool:
    """九蓮寶燈: the 13 tiles before the winning one are 1112345678999 of one suit."""
    for base in (0, 9, 18):
        if standing[base] == 3 and standing[base + 8] == 3 and all(standing[base + k] == 1 for k in range(1, 8)):
            return sum(standing) == 13
    return False
