"""Example answers shown in the OpenAPI document (``/docs``), in the formats of CONVENTIONS §3-§4, so an app
developer sees the shape of each 200 without running the service. ``SCORE`` is what the mcr scorer answered
for the hand of docs/api.md's curl example (123m 456p 78s 11z [555z] +9s, self-drawn)."""

from __future__ import annotations

from typing import Any

SCORE = {
    "rules": "mcr", "valid": True, "total": 17, "unit": "fan",
    "items": [{"key": "mixed_straight", "name_zh": "花龍", "name_en": "Mixed Straight", "value": 8, "count": 1,
               "points": 8},
              {"key": "all_types", "name_zh": "五門齊", "name_en": "All Types", "value": 6, "count": 1, "points": 6},
              {"key": "dragon_pung", "name_zh": "箭刻", "name_en": "Dragon Pung", "value": 2, "count": 1,
               "points": 2},
              {"key": "self_drawn", "name_zh": "自摸", "name_en": "Self-Drawn", "value": 1, "count": 1, "points": 1}],
    "excluded": [], "minimum": 8, "meets_minimum": True,
    "decomposition": [["5z", "5z", "5z"], ["1m", "2m", "3m"], ["4p", "5p", "6p"], ["7s", "8s", "9s"], ["1z", "1z"]],
    "settlement": {"E": 75, "S": -25, "W": -25, "N": -25}, "warnings": [],
}

NOT_WINNING = {"rules": "mcr", "valid": False, "error": {"code": "not_winning",
                                                          "message": "the tiles do not form a winning hand"},
               "unit": "fan", "warnings": []}

RECOGNITION = {
    "image": "table.jpg", "width": 4032, "height": 3024,
    "tiles": [{"code": "1m", "box": [812.0, 1630.5, 1004.2, 1899.0], "confidence": 0.97,
               "alternatives": [{"code": "7m", "confidence": 0.02}], "group": 0}],
    "groups": [{"role": "concealed", "tiles": [0]}],
    "hand": {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z"],
             "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"], "concealed": False}],
             "winning_tile": "9s", "flowers": [], "context": {}},
    "warnings": [],
    "warning_details": [],
}


def json_example(**named: Any) -> dict[str, Any]:
    """A ``responses`` entry for status 200 with named examples."""
    return {200: {"content": {"application/json": {"examples": {k: {"value": v} for k, v in named.items()}}}}}
