"""The Score result (CONVENTIONS §3): the itemized value of a hand, its exclusions and its settlement."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import HandError


@dataclass
class Item:
    """One scoring item that applies: ``points`` = ``value`` x ``count``."""

    key: str
    name_zh: str
    name_en: str
    value: int
    count: int = 1

    @property
    def points(self) -> int:
        return self.value * self.count

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "name_zh": self.name_zh, "name_en": self.name_en,
                "value": self.value, "count": self.count, "points": self.points}


@dataclass
class Excluded:
    """An item the hand has but that is not counted, the item that excluded it, and the principle why."""

    key: str
    by: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "by": self.by, "reason": self.reason}


@dataclass
class ScoreResult:
    rules: str
    valid: bool = True
    total: int = 0
    unit: str = ""
    items: list[Item] = field(default_factory=list)
    excluded: list[Excluded] = field(default_factory=list)
    minimum: int | None = None
    meets_minimum: bool | None = None
    decomposition: list[list[str]] = field(default_factory=list)
    settlement: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    error: HandError | None = None
    #: System-specific top-level fields (``points``, ``capped_from``, ``winning_tile``...).
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def invalid(cls, rules: str, error: HandError, unit: str = "") -> ScoreResult:
        return cls(rules=rules, valid=False, unit=unit, error=error)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rules": self.rules, "valid": self.valid}
        if not self.valid:
            assert self.error is not None
            out["error"] = self.error.to_json()
            if self.unit:
                out["unit"] = self.unit
            if self.items:  # below_minimum: show what the hand is worth
                out["total"] = self.total
                out["items"] = [i.to_json() for i in self.items]
            out["warnings"] = self.warnings
            return out
        out.update({
            "total": self.total,
            "unit": self.unit,
            "items": [i.to_json() for i in self.items],
            "excluded": [e.to_json() for e in self.excluded],
            "minimum": self.minimum,
            "meets_minimum": self.meets_minimum,
            "decomposition": self.decomposition,
            "settlement": self.settlement,
            "warnings": self.warnings,
        })
        out.update(self.extra)
        return out
