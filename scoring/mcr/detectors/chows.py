"""Fan made of chows: 一色四同順 .. 老少副, with the "count each combination once" principles.

Chows arrive as set codes of their lowest tile (``view.CODE``), sorted. The rules this follows:

- 套算一次 (combine once): a chow not yet used may combine with one already used only once;
- 不得相同 (no repeats): chows that already form a fan together do not form the same fan with another;
- so four chows give at most three two-chow fan, three give at most two, and a three-chow fan lets the
  fourth chow add at most one two-chow fan (一般高 first, then 喜相逢, 連六, 老少副).
"""

from __future__ import annotations

from mjlens.i18n import msg

from ..view import code_rank, code_suit

PAIR_FANS = ("pure_double_chow", "mixed_double_chow", "short_straight", "two_terminal_chows")


def four_chows(t0: int, t1: int, t2: int, t3: int) -> str | None:
    if (t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3) or (t0 + 2 == t1 and t1 + 2 == t2 and t2 + 2 == t3):
        return "four_pure_shifted_chows"
    if t0 == t1 == t2 == t3:
        return "quadruple_chow"
    return None


def _shifted_1_unordered(r0: int, r1: int, r2: int) -> bool:
    lo = min(r0, r1, r2)
    return sorted((r0, r1, r2)) == [lo, lo + 1, lo + 2]


def three_chows(t0: int, t1: int, t2: int) -> str | None:
    s0, s1, s2 = code_suit(t0), code_suit(t1), code_suit(t2)
    if s0 != s1 and s0 != s2 and s1 != s2:
        r0, r1, r2 = code_rank(t0), code_rank(t1), code_rank(t2)
        if _shifted_1_unordered(r0, r1, r2):
            return "mixed_shifted_chows"
        if r0 == r1 == r2:
            return "mixed_triple_chow"
        if sorted((r0, r1, r2)) == [1, 4, 7]:
            return "mixed_straight"
        return None
    if t0 + 3 == t1 and t1 + 3 == t2:
        return "pure_straight"
    if (t0 + 2 == t1 and t1 + 2 == t2) or (t0 + 1 == t1 and t1 + 1 == t2):
        return "pure_shifted_chows"
    if t0 == t1 == t2:
        return "pure_triple_chow"
    return None


def two_chows(t0: int, t1: int) -> str | None:
    if code_suit(t0) != code_suit(t1):
        return "mixed_double_chow" if code_rank(t0) == code_rank(t1) else None
    if t0 + 3 == t1 or t1 + 3 == t0:
        return "short_straight"
    if {code_rank(t0), code_rank(t1)} == {1, 7}:
        return "two_terminal_chows"
    if t0 == t1:
        return "pure_double_chow"
    return None


def _extra(used: tuple[int, ...], extra: int) -> str | None:
    """The one two-chow fan the fourth chow may add to a three-chow fan (套算一次)."""
    found = {two_chows(t, extra) for t in used}
    return next((f for f in PAIR_FANS if f in found), None)


def _limit(fans: list[str | None], max_cnt: int, tally: dict[str, int], excluded: list[tuple[str, str, str]]) -> None:
    """Keep at most ``max_cnt`` two-chow fan, dropping repeats first, the cheapest kinds first."""
    table = [sum(1 for f in fans if f == k) for k in PAIR_FANS]
    cnt = sum(table)
    limit = 1
    dropped: list[str] = []
    while cnt > max_cnt and limit >= 0:
        idx = 4
        while cnt > max_cnt and idx > 0:
            idx -= 1
            while table[idx] > limit and cnt > max_cnt:
                table[idx] -= 1
                cnt -= 1
                dropped.append(PAIR_FANS[idx])
        limit -= 1
    kept = next((k for k, n in zip(PAIR_FANS, table, strict=True) if n), "")
    for key in dropped:
        excluded.append((key, kept, msg("套算一次 / 不得相同: a chow combines with the others only once")))
    for k, n in zip(PAIR_FANS, table, strict=True):
        if n:
            tally[k] = tally.get(k, 0) + n


def chow_fans(chows: list[int], tally: dict[str, int], excluded: list[tuple[str, str, str]]) -> None:
    """Add the fan of 2, 3 or 4 chows (sorted set codes) to ``tally``."""
    n = len(chows)
    if n == 4:
        fan = four_chows(*chows)
        if fan:
            tally[fan] = 1
            return
        for a, b, c, d in ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)):
            fan = three_chows(chows[a], chows[b], chows[c])
            if fan:
                tally[fan] = 1
                extra = _extra((chows[a], chows[b], chows[c]), chows[d])
                if extra:
                    tally[extra] = tally.get(extra, 0) + 1
                return
        pairs = [two_chows(chows[i], chows[j]) for i, j in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))]
        max_cnt = 3
        for mine in ((0, 1, 2), (0, 3, 4), (1, 3, 5), (2, 4, 5)):  # a chow that forms nothing with the others
            if all(pairs[k] is None for k in mine):
                max_cnt -= 1
        if max_cnt > 0:
            _limit(pairs, max_cnt, tally, excluded)
    elif n == 3:
        fan = three_chows(*chows)
        if fan:
            tally[fan] = 1
            return
        pairs = [two_chows(chows[0], chows[1]), two_chows(chows[0], chows[2]), two_chows(chows[1], chows[2])]
        _limit(pairs, 2, tally, excluded)
    elif n == 2:
        fan = two_chows(chows[0], chows[1])
        if fan:
            tally[fan] = tally.get(fan, 0) + 1


def terminal_chows(chows: list[int], pair: int) -> str | None:
    """一色雙龍會 / 三色雙龍會: 123 and 789 twice, with a pair of fives (of the same suit / the third suit)."""
    if len(chows) != 4 or pair >= 48 or code_rank(pair) != 5 or any(code_rank(c) not in (1, 7) for c in chows):
        return None
    ps = code_suit(pair)
    suits = [code_suit(c) for c in chows]
    if all(s == ps for s in suits):
        lows = sum(1 for c in chows if code_rank(c) == 1)
        return "pure_terminal_chows" if lows == 2 else None
    if any(s == ps for s in suits):
        return None
    others = {s for s in range(3) if s != ps}
    combos = {(code_suit(c), code_rank(c)) for c in chows}
    if all((s, r) in combos for s in others for r in (1, 7)):
        return "three_suited_terminal_chows"
    return None
