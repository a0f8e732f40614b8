"""``/v1/profiles``: a client makes a profile of its tile set from one calibration photo (docs/profiles.md), keeps
the token it gets once, and names the profile (``profile`` and ``X-Profile-Token``) on ``/v1/recognize`` and
``/v1/photo-score``. An unknown id and a wrong token both answer 404, so ids cannot be probed.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections import OrderedDict
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, File, Header, Request, UploadFile
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError

from mjlens.vision.profile import Profile, ProfiledClassifier, ProfileError
from mjlens.vision.runtime.decode import ImageError, load_image

from .errors import ApiError, ErrorBody
from .profile_store import ProfileStore, StoreError
from .settings import Settings
from .uploads import IMAGE_ERROR_STATUS, check_image

TOKEN_HEADER = "X-Profile-Token"
#: StoreError code -> HTTP status.
STORE_ERROR_STATUS = {"profile_limit": 409, "profile_too_large": 413, "profile_store": 503}
#: Readers with a client's profile kept ready: each holds its own classifier session, and building one added
#: 0.4-0.5 s to the first photo read with it.
READERS_KEPT = 4
#: The header, declared on the routes so the schema shows it (the handlers read it from the request).
TokenHeader = Annotated[str | None, Header(alias=TOKEN_HEADER, description="the token POST /v1/profiles gave")]
NOT_FOUND = "no profile with this id and token: send the token POST /v1/profiles gave in X-Profile-Token"


def install(app: FastAPI, settings: Settings, dependencies: list, responses: dict) -> None:
    """The profile store on ``app.state.profiles`` and the routes under ``/v1``."""
    app.state.profiles = ProfileStore(settings.profile_db, settings.max_profiles, settings.max_profile_bytes)
    app.state.profile_readers = ProfileReaders()
    app.include_router(_router(), prefix="/v1", dependencies=dependencies, responses=responses)


class ProfileReaders:
    """The service's tile reader with a client's profile, the last ``READERS_KEPT`` kept by profile id."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def reader(self, base: Any, profile_id: str, profile: Profile) -> Any:
        from mjlens.vision.recognize import Recognizer

        with self._lock:
            if profile_id in self._kept:
                self._kept.move_to_end(profile_id)
                return self._kept[profile_id]
        reader = copy.copy(base)  # the same detector and thresholds, its own classifier
        reader.classifier = ProfiledClassifier(shipped_classifier(base), profile)
        recognizer = Recognizer(detector=reader)
        with self._lock:
            self._kept[profile_id] = recognizer
            while len(self._kept) > READERS_KEPT:
                self._kept.popitem(last=False)
        return recognizer

    def forget(self, profile_id: str) -> None:
        with self._lock:
            self._kept.pop(profile_id, None)


def shipped_classifier(reader: Any) -> Any:
    """The crop classifier of the service's reader, without the default profile it may read with."""
    classifier = getattr(reader, "classifier", None)
    return classifier.classifier if isinstance(classifier, ProfiledClassifier) else classifier


def tile_reader(request: Request) -> Any:
    """The service's two-stage reader; 503 when it is not loaded or runs the detector alone."""
    state = request.app.state
    if state.recognizer is None:
        raise ApiError(503, "model_unavailable", state.unavailable or "the detector is not loaded")
    reader = getattr(state.recognizer, "detector", None)
    if shipped_classifier(reader) is None:
        raise ApiError(503, "model_unavailable", "profiles need the crop classifier; the service reads with the "
                                                 "detector alone")
    return reader


async def recognizer_with(request: Request, profile_id: str) -> Any:
    """The recognizer that reads with the client's profile ``profile_id`` (its token in ``X-Profile-Token``)."""
    reader = tile_reader(request)
    state = request.app.state
    profile = await _stored(request, profile_id)
    try:
        return await state.pool.run(state.profile_readers.reader, reader, profile_id, profile)
    except ProfileError as err:  # a profile of another classifier than the service's now
        raise ApiError(409, err.code, err.message) from None


async def _stored(request: Request, profile_id: str) -> Profile:
    token = request.headers.get(TOKEN_HEADER)
    if not token:
        raise ApiError(404, "profile_not_found", NOT_FOUND)
    profile = await _in_store(request, "get", profile_id, token)
    if profile is None:
        raise ApiError(404, "profile_not_found", NOT_FOUND)
    return profile


async def _in_store(request: Request, action: str, *args: Any) -> Any:
    try:
        return await asyncio.to_thread(getattr(request.app.state.profiles, action), *args)
    except StoreError as err:
        raise ApiError(STORE_ERROR_STATUS[err.code], err.code, err.message) from None
    except SQLAlchemyError as err:
        raise ApiError(503, "profile_store", f"the profile database failed: {type(err).__name__}") from None


def _warnings(profile: Profile) -> list[str]:
    from mjlens.vision.profile.calibration import ROW_NAMES
    from mjlens.vision.profile.layout import SHEET_ROWS

    return [f"no {name} row in the photo: the set is taken to have none, and the reader reads none"
            for name, row in zip(ROW_NAMES, SHEET_ROWS, strict=True) if not set(row) & set(profile.codes)]


def _make_profile(reader: Any, features: Any, data: bytes) -> Profile:
    from mjlens.vision.profile.calibration import profile_from_sheets

    return profile_from_sheets(reader, [load_image(data, target_side=reader.decode_side)], features)


def _features(request: Request, reader: Any) -> Any:
    """One feature reader of the shipped classifier for the app, made at the first profile."""
    from mjlens.vision.profile.features import FeatureReader

    state = request.app.state
    classifier = shipped_classifier(reader)
    kept = getattr(state, "profile_features", None)
    if kept is None or kept.classifier is not classifier:
        kept = state.profile_features = FeatureReader(classifier)
    return kept


def _router() -> APIRouter:
    router = APIRouter(tags=["profiles"])

    @router.post("/profiles", summary="Make a profile of a tile set from a photo of it laid out",
                 status_code=201, responses={409: {"model": ErrorBody, "description": "the service holds its most "
                                                                                     "profiles: profile_limit"}},
                 description="The set laid out face up in rows (docs/profiles.md). Answers `{id, token, codes, "
                             "warnings}`: keep the token, it is given once and reads, uses and deletes the profile.")
    async def create(request: Request, image: Annotated[UploadFile, File(description="JPEG/PNG/WebP/HEIC")]
                     ) -> JSONResponse:
        state = request.app.state
        settings: Settings = state.settings
        data = await image.read()
        try:
            await asyncio.to_thread(check_image, data, settings.max_upload_bytes, settings.max_pixels)
        except ImageError as err:
            raise ApiError(IMAGE_ERROR_STATUS.get(err.code, 400), err.code, err.message) from None
        reader = tile_reader(request)
        try:
            features = await asyncio.to_thread(_features, request, reader)
            profile = await state.pool.run(_make_profile, reader, features, data)
        except ImageError as err:
            raise ApiError(IMAGE_ERROR_STATUS.get(err.code, 400), err.code, err.message) from None
        except ProfileError as err:
            raise ApiError(400, err.code, err.message) from None
        created = await _in_store(request, "create", profile)
        return JSONResponse({"id": created.id, "token": created.token, "codes": list(profile.codes),
                             "warnings": _warnings(profile)}, status_code=201)

    @router.get("/profiles/{profile_id}", summary="What a profile holds (its token in X-Profile-Token)")
    async def read(request: Request, profile_id: str, token: TokenHeader = None) -> JSONResponse:
        profile = await _stored(request, profile_id)
        return JSONResponse({"id": profile_id, **profile.summary()})

    @router.delete("/profiles/{profile_id}", status_code=204, summary="Delete a profile (its token in "
                                                                      "X-Profile-Token)")
    async def delete(request: Request, profile_id: str, token: TokenHeader = None) -> Response:
        token = request.headers.get(TOKEN_HEADER)
        if not token or not await _in_store(request, "delete", profile_id, token):
            raise ApiError(404, "profile_not_found", NOT_FOUND)
        request.app.state.profile_readers.forget(profile_id)
        return Response(status_code=204)

    return router
