"""The calibration sheet: a tile set laid out face up in rows, in this order, each row read left to right and the
rows top to bottom. Any row may be left out (a set without flowers and seasons); none may be cut short."""

from __future__ import annotations

SHEET_ROWS: tuple[tuple[str, ...], ...] = (
    tuple(f"{n}m" for n in range(1, 10)),
    tuple(f"{n}p" for n in range(1, 10)),
    tuple(f"{n}s" for n in range(1, 10)),
    tuple(f"{n}z" for n in range(1, 8)),  # E S W N, then 白 發 中
    tuple(f"{n}f" for n in range(1, 9)),  # 春夏秋冬, then 梅蘭菊竹
)
