"""Fan made of pungs and kongs: kong counts, concealed pungs, 一色四節高 .. 雙同刻, 箭刻 and 么九刻.

Pungs arrive as set codes (``view.CODE``), sorted; kongs count as pungs here. As with chows, a three-pung
fan lets the fourth pung add one two-pung fan at most (套算一次).
"""

from __future__ import annotations

from ..view import WIND_CODES, code_rank, code_suit


def _numbered(c: int) -> bool:
    return c < 48


def _dragon(c: int) -> bool:
    return c >= 53


def four_pungs(t0: int, t1: int, t2: int, t3: int) -> str | None:
    if _numbered(t0) and t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3:
        return "four_pure_shifted_pungs"
    if (t0, t1, t2, t3) == WIND_CODES:
        return "big_four_winds"
    return None


def three_pungs(t0: int, t1: int, t2: int) -> str | None:
    if _numbered(t0) and _numbered(t1) and _numbered(t2):
        s0, s1, s2 = code_suit(t0), code_suit(t1), code_suit(t2)
        if s0 != s1 and s0 != s2 and s1 != s2:
            ranks = sorted((code_rank(t0), code_rank(t1), code_rank(t2)))
            if ranks[0] + 1 == ranks[1] and ranks[1] + 1 == ranks[2]:
                return "mixed_shifted_pungs"
            if ranks[0] == ranks[2]:
                return "triple_pung"
        elif t0 + 1 == t1 and t1 + 1 == t2:
            return "pure_shifted_pungs"
        return None
    if t0 in WIND_CODES and t1 in WIND_CODES and t2 in WIND_CODES:
        return "big_three_winds"
    if _dragon(t0) and _dragon(t1) and _dragon(t2):
        return "big_three_dragons"
    return None


def two_pungs(t0: int, t1: int) -> str | None:
    if _numbered(t0) and _numbered(t1):
        return "double_pung" if code_rank(t0) == code_rank(t1) else None
    if _dragon(t0) and _dragon(t1):
        return "two_dragons_pungs"
    return None


def _add(tally: dict[str, int], key: str, n: int = 1) -> None:
    tally[key] = tally.get(key, 0) + n


def pung_combination_fans(pungs: list[int], tally: dict[str, int]) -> None:
    """Fan of 2, 3 or 4 pungs taken together (sorted set codes)."""
    n = len(pungs)
    if n == 4:
        fan = four_pungs(*pungs)
        if fan:
            tally[fan] = 1
            return
        for a, b, c, free in ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)):
            fan = three_pungs(pungs[a], pungs[b], pungs[c])
            if fan:
                tally[fan] = 1
                for i in range(4):
                    if i != free:
                        extra = two_pungs(pungs[i], pungs[free])
                        if extra:
                            _add(tally, extra)
                            break
                return
        for i, j in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
            fan = two_pungs(pungs[i], pungs[j])
            if fan:
                _add(tally, fan)
    elif n == 3:
        fan = three_pungs(*pungs)
        if fan:
            tally[fan] = 1
            return
        for i, j in ((0, 1), (0, 2), (1, 2)):
            fan = two_pungs(pungs[i], pungs[j])
            if fan:
                _add(tally, fan)
    elif n == 2:
        fan = two_pungs(pungs[0], pungs[1])
        if fan:
            _add(tally, fan)


_CONCEALED_PUNG_FANS = {2: "two_concealed_pungs", 3: "three_concealed_pungs", 4: "four_concealed_pungs"}


def kong_fans(pungs: list[tuple[int, bool, bool]], tally: dict[str, int], split_mixed_kongs: bool) -> None:
    """Kongs, concealed pungs, all pungs and the one-pung fan. ``pungs``: (code, is_kong, concealed).

    A concealed kong is also a concealed pung (暗刻), so 暗槓 + two concealed pungs in hand is 三暗刻.
    With one concealed and one melded kong, the League counts 明暗槓 (5); ``split_mixed_kongs`` counts
    明槓 + 暗槓 instead, as the 1998 list does.
    """
    melded_kongs = sum(1 for _, k, c in pungs if k and not c)
    concealed_kongs = sum(1 for _, k, c in pungs if k and c)
    concealed = sum(1 for _, _, c in pungs if c)  # concealed pungs, concealed kongs included
    kongs = melded_kongs + concealed_kongs
    if kongs == 4:
        tally["four_kongs"] = 1
    elif kongs == 3:
        tally["three_kongs"] = 1
    elif kongs == 2:
        if concealed_kongs == 2:
            tally["two_concealed_kongs"] = 1
        elif concealed_kongs == 1:
            if split_mixed_kongs:
                tally["melded_kong"] = 1
                tally["concealed_kong"] = 1
            else:
                tally["concealed_kong_and_melded_kong"] = 1
        else:
            tally["two_melded_kongs"] = 1
    elif kongs == 1:
        tally["concealed_kong" if concealed_kongs else "melded_kong"] = 1
    if concealed >= 2:
        tally[_CONCEALED_PUNG_FANS[concealed]] = 1
    if len(pungs) == 4 and "four_kongs" not in tally and "four_concealed_pungs" not in tally:
        tally["all_pungs"] = 1
    for code, _, _ in pungs:
        if _dragon(code):
            _add(tally, "dragon_pung")
        elif code >= 48 or code_rank(code) in (1, 9):
            _add(tally, "pung_of_terminals_or_honors")
