"""The exclusion principles, applied to one arrangement's tally of fan.

- 不重複 (no double counting): a fan implied by a higher one is not counted; the ``excludes`` column of
  ``fans.FANS``, applied row by row from the highest fan down.
- 么九刻 and the winds: a wind pung counted as 圈風刻 or 門風刻 (or inside 三風刻), and one pung of Nine
  Gates, is not counted again as 么九刻.
- 套算一次 / 不得相同 (combine once, no repeats): applied while combining chows (``detectors.chows``).
- 就高不就低 (take the higher reading) and 不拆移 (do not break sets up): the scorer reads the hand in
  every arrangement and keeps the best; a set is never split to make a second fan.
"""

from __future__ import annotations

from mjlens.i18n import msg

from .fans import BY_KEY, EXCLUDING, EXCLUDING_STRICT_1998

POTH = "pung_of_terminals_or_honors"
#: Fans under which the wind pungs have already been taken out of 么九刻.
_WINDS_ALREADY_DEDUCTED = ("big_three_winds", "all_terminals_and_honors", "all_honors", "little_four_winds")

Excluded = tuple[str, str, str]  # (key, by, reason)


def apply_table(tally: dict[str, int], excluded: list[Excluded], strict_1998: bool = False) -> None:
    for fan, excludes in EXCLUDING_STRICT_1998 if strict_1998 else EXCLUDING:
        if fan.key not in tally:
            continue
        for key in excludes:
            if key in tally:
                del tally[key]
                excluded.append((key, fan.key, msg("不重複: implied by {name_en} ({name_zh})", name_en=fan.name_en,
                                                   name_zh=fan.name_zh)))


def wind_fans(wind_pungs: list[int], seat: int, prevalent: int, tally: dict[str, int],
              excluded: list[Excluded]) -> None:
    """圈風刻 / 門風刻 for the wind pungs (ranks 1..4), each taking its pung out of 么九刻."""
    if "big_four_winds" in tally:
        for w in wind_pungs:
            for rank, key in ((prevalent, "prevalent_wind"), (seat, "seat_wind")):
                if w == rank:
                    excluded.append((key, "big_four_winds", msg("不重複: implied by Big Four Winds (大四喜)")))
        return
    deducted = any(k in tally for k in _WINDS_ALREADY_DEDUCTED)
    for w in wind_pungs:
        if w == prevalent:
            tally["prevalent_wind"] = 1
            if not deducted:
                _take_pung(tally, excluded, "prevalent_wind")
        if w == seat:
            tally["seat_wind"] = 1
            if seat != prevalent and not deducted:
                _take_pung(tally, excluded, "seat_wind")


def _take_pung(tally: dict[str, int], excluded: list[Excluded], by: str, n: int = 1) -> None:
    have = tally.get(POTH, 0)
    take = min(have, n)
    if not take:
        return
    if have == take:
        del tally[POTH]
    else:
        tally[POTH] = have - take
    fan = BY_KEY[by]
    for _ in range(take):
        excluded.append((POTH, by, msg("不重複: that pung is already counted in {name_en} ({name_zh})",
                                       name_en=fan.name_en, name_zh=fan.name_zh)))


def pung_adjustments(tally: dict[str, int], excluded: list[Excluded]) -> None:
    """Nine Gates keeps one terminal pung inside it; Big Three Winds keeps its three wind pungs."""
    if "nine_gates" in tally:
        _take_pung(tally, excluded, "nine_gates")
    if "big_three_winds" in tally and "all_honors" not in tally and "all_terminals_and_honors" not in tally:
        _take_pung(tally, excluded, "big_three_winds", 3)
