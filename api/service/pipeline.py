"""Photo to score, shared by ``POST /v1/photo-score`` and ``mjlens photo`` so both give the same object.

Also loads the detector: the service starts without it (scoring still works, ``/readyz`` says why), so a
missing model file is a reason string, not a crash.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from mjlens.i18n import msg
from mjlens.scoring.engine import rule_module, score
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import context_from_json
from mjlens.scoring.result import ScoreResult
from mjlens.scoring.tiles import is_playing
from mjlens.vision.hand.layout import FACE_DOWN_KONG

from .analysis import hand_in_progress

log = logging.getLogger("mjlens.api")

#: Codes of the warnings about the photo's row of dora indicators (a ``dora`` group, CONVENTIONS §4), in the
#: recognition's ``warning_details``: indicators given that differ from the photo's (the given ones are scored), and
#: a dora row under a rule system that has no dora (ignored).
DORA_OVERRIDDEN = "dora_overridden"
DORA_IGNORED = "dora_ignored"
#: The rule systems that count dora.
DORA_SYSTEMS = ("riichi",)
#: How a warning names an empty list of indicators.
NONE_GIVEN = msg("none")


class RecognizerLike(Protocol):
    """What the service needs from ``vision.recognize.Recognizer``: a thread-safe ``recognize``."""

    def recognize(self, data: bytes, name: str) -> dict[str, Any]: ...



def load_recognizer(model: Path, threads: int | None = None, classifier: str | None = None,
                    profile: Path | None = None) -> tuple[RecognizerLike | None, str | None]:
    """The tile reader loaded from ``model`` (and ``classifier``, ``profile``: see
    ``vision.reading.reader.load_tile_reader``), ``threads`` onnxruntime threads per inference; or None and the reason
    it
    is unavailable."""
    if not Path(model).is_file():
        return None, msg("model file {name} is not present", name=Path(model).name)
    try:
        from mjlens.vision.reading.reader import load_tile_reader
        from mjlens.vision.recognize import Recognizer
    except ImportError as err:
        return None, msg("the recognizer is not available in this build ({err})", err=err)
    from mjlens.vision.profile import ProfileError
    from mjlens.vision.runtime.detector import ModelError

    try:
        return Recognizer(model, detector=load_tile_reader(model, classifier=classifier, threads=threads,
                                                           profile=profile)), None
    except ProfileError as err:  # a bad default profile: said plainly, at start and in /readyz
        log.warning("the profile could not be loaded: %s", err.message)
        return None, msg("profile: {code}: {message}", code=err.code, message=err.message)
    except ModelError as err:  # a missing, bad or mismatched model: said plainly, at start and in /readyz
        log.warning("the tile reader could not be loaded: %s", err.message)
        return None, err.message
    except Exception as err:  # noqa: BLE001 - a bad model file must not stop the scoring service
        log.exception("the detector could not be loaded")
        return None, msg("the detector could not be loaded: {error}: {err}", error=type(err).__name__, err=err)


def recognizer_models(recognizer: RecognizerLike) -> dict[str, str | None]:
    """The model files the recognizer reads with (``/readyz``); empty for a recognizer that is not the product's."""
    reader = getattr(recognizer, "detector", None)
    if reader is None:
        return {}
    from mjlens.vision.reading.reader import loaded_models

    return loaded_models(reader)


def check_request(rules: str, context: dict[str, Any], kongs: Sequence[str] = ()) -> None:
    """Refuse an unknown rule system, a bad context or a kong's tile that is no playing tile (``bad_kong``) before
    spending a detector run (HandError)."""
    rule_module(rules)
    context_from_json(context)
    check_kongs(kongs)


def check_kongs(kongs: Sequence[str]) -> None:
    """Each answer to a concealed kong of four backs must be a playing tile's code (HandError ``bad_kong``)."""
    wrong = [code for code in kongs if not is_playing(code)]
    if wrong:
        raise HandError("bad_kong", msg("a kong's tile is a playing tile's code (1m..9m, 1p..9p, 1s..9s, "
                                        "1z..7z), not {wrong}", wrong=', '.join(repr(code) for code in wrong)))


def with_kongs(recognition: dict[str, Any], kongs: Sequence[str]) -> dict[str, Any]:
    """The recognition with its concealed kongs of four backs told their tiles (``vision.recognize.answer_kongs``);
    as it is when none are given."""
    if not kongs:
        return recognition
    from mjlens.vision.recognize import answer_kongs

    return answer_kongs(recognition, kongs)


def photo_score_result(recognition: dict[str, Any], rules: str, context: dict[str, Any],
                       options: dict[str, Any] | None = None) -> tuple[dict[str, Any], ScoreResult]:
    """The recognition with ``context`` laid over its hand's own, and the score of that hand."""
    recognition, context = with_photo_dora(recognition, rules, context)
    hand = recognition.get("hand")
    # a concealed kong of four backs whose tile was not given: the score says what to give, under the same code
    asked = [d["message"] for d in recognition.get("warning_details", ()) if d.get("code") == FACE_DOWN_KONG]
    if not hand and asked:
        return recognition, ScoreResult.invalid(rules, HandError(FACE_DOWN_KONG, asked[0]))
    if not hand:
        return recognition, ScoreResult.invalid(rules, HandError(
            "tile_count", msg("no hand could be assembled from the photo; correct the tiles and score again")))
    # a photo cannot show who is dealer: the reading's `dealer` is only its default seat's, so the seat given (or
    # `dealer` given) decides, as for a typed hand
    read = {k: v for k, v in (hand.get("context") or {}).items() if k != "dealer"}
    hand = {**hand, "context": {**read, **context}}
    return {**recognition, "hand": hand}, score(hand, rules, options or {})


def with_photo_dora(recognition: dict[str, Any], rules: str,
                    context: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The recognition and the context with the photo's dora indicators (its ``dora`` group) taken in: under a
    system with dora they are the context's ``dora_indicators`` unless indicators were given (the given ones win,
    with a warning ``DORA_OVERRIDDEN`` where they differ); under any other system they are ignored, with a warning
    ``DORA_IGNORED``. As they are where the photo shows no dora row."""
    found = [(g, group) for g, group in enumerate(recognition.get("groups") or ()) if group.get("role") == "dora"]
    if not found:
        return recognition, context
    g, group = found[0]
    tiles = recognition.get("tiles") or []
    codes = [tiles[i]["code"] for i in group.get("tiles", ()) if 0 <= i < len(tiles)]
    shown = " ".join(codes)
    if rules not in DORA_SYSTEMS:
        return _with_warning(recognition, DORA_IGNORED, g,
                             msg("the photo shows dora indicators ({shown}, group {g}): {rules} rules count no dora, "
                                 "so they are ignored", shown=shown, g=g, rules=rules)), context
    given = context.get("dora_indicators")
    if given is None:
        return recognition, {**context, "dora_indicators": codes}
    if sorted(given) != sorted(codes):
        recognition = _with_warning(recognition, DORA_OVERRIDDEN, g,
                                    msg("the dora indicators given ({given}) differ from the photo's ({shown}, group "
                                        "{g}): the given ones are scored", given=" ".join(given) or NONE_GIVEN,
                                        shown=shown, g=g))
    return recognition, context


def _with_warning(recognition: dict[str, Any], code: str, group: int, message: str) -> dict[str, Any]:
    """``recognition`` with one more warning a program acts on (``warnings`` and ``warning_details`` alike)."""
    return {**recognition, "warnings": [*recognition.get("warnings", ()), message],
            "warning_details": [*recognition.get("warning_details", ()),
                                {"code": code, "message": message, "group": group}]}


def photo_score(recognition: dict[str, Any], rules: str, context: dict[str, Any],
                options: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"recognition", "score"}``, the object ``POST /v1/photo-score`` and ``mjlens photo --json`` give, with
    ``waits`` or ``advice`` beside them when the hand does not win (``analysis.hand_in_progress``)."""
    recognition, result = photo_score_result(recognition, rules, context, options)
    return {"recognition": recognition, "score": result.to_json(),
            **hand_in_progress(recognition.get("hand"), rules, options, result)}
