"""``/v1/profiles``: a client makes a profile of its tile set from one calibration photo (docs/profiles.md), read
as a layout or labelled by its ``tiles``, keeps the token it gets once, names the profile (``profile`` and
``X-Profile-Token``) on ``/v1/recognize`` and ``/v1/photo-score``, and adds the tiles it corrects to it. An unknown
id and a wrong token both answer 404, so ids cannot be probed. ``/v1/profiles/preview`` reads a layout and keeps
nothing, so a client can show the reading and have it fixed before making the profile.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import re
import threading
from collections import Counter, OrderedDict
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, File, Form, Header, Request, UploadFile
from fastapi.responses import Response
from sqlalchemy.exc import SQLAlchemyError

from mjlens.api.service.errors import ApiError, ErrorBody
from mjlens.api.service.lang import JSONResponse
from mjlens.api.service.settings import Settings
from mjlens.api.service.uploads import IMAGE_ERROR_STATUS, check_image
from mjlens.i18n import msg
from mjlens.scoring.tiles import DETECTOR_CLASSES
from mjlens.vision.profile import Profile, ProfiledClassifier, ProfileError
from mjlens.vision.runtime.decode import DecodedImage, ImageError, load_image

from .answer_warnings import change_warnings, examples_warnings, row_warnings, tiles_warnings
from .store import ProfileStore, StoreError, StoreLimits, client_digest
from .tiles import BadTiles, TileLabel, in_photo, parse_tiles

TOKEN_HEADER = "X-Profile-Token"
#: StoreError code -> HTTP status.
STORE_ERROR_STATUS = {"profile_limit": 409, "profile_too_large": 413, "profile_store": 503,
                      "client_profile_limit": 429, "client_rate_limit": 429}
#: The profile paths that take a photo upload (the upload limit and the busy gate apply to them): these, and
#: each profile's examples (``EXAMPLES_PATH``).
UPLOAD_PATHS = ("/v1/profiles", "/v1/profiles/preview")
EXAMPLES_PATH = re.compile(r"/v1/profiles/[^/]+/examples")


class UploadPaths:
    """The service's upload paths for ``in``: ``exact`` and the profiles' (``UPLOAD_PATHS``, ``EXAMPLES_PATH``)."""

    def __init__(self, exact: tuple[str, ...]):
        self.exact = frozenset(exact + UPLOAD_PATHS)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and (path in self.exact or EXAMPLES_PATH.fullmatch(path) is not None)
#: Readers with a client's profile kept ready: each holds its own classifier session, and building one added
#: 0.4-0.5 s to the first photo read with it.
READERS_KEPT = 4
#: The header, declared on the routes so the schema shows it (the handlers read it from the request).
TokenHeader = Annotated[str | None, Header(alias=TOKEN_HEADER, description="the token POST /v1/profiles gave")]
NOT_FOUND = msg("no profile with this id and token: send the token POST /v1/profiles gave in X-Profile-Token")


def install(app: FastAPI, settings: Settings, dependencies: list, responses: dict) -> None:
    """The profile store on ``app.state.profiles`` and the routes under ``/v1``."""
    limits = StoreLimits(settings.max_profiles, settings.max_profile_bytes, settings.max_profiles_per_client,
                         settings.profiles_per_client_per_hour, settings.profile_examples_per_code)
    app.state.profiles = ProfileStore(settings.profile_db, limits)
    app.state.profile_readers = ProfileReaders()
    app.include_router(_router(), prefix="/v1", dependencies=dependencies, responses=responses)


def fingerprint(profile: Profile) -> str:
    """What a profile's reader is built from, in a few bytes: a reader built from an older copy of the profile (read
    from the store before examples were added) is never taken for the newer."""
    digest = hashlib.sha256(profile.features.tobytes())
    for part in (profile.codes, profile.example_codes, (str(profile.complete),), (profile.reliance.tobytes().hex(),)):
        digest.update("\x1f".join(part).encode())
    return digest.hexdigest()


class ProfileReaders:
    """The service's tile reader with a client's profile, the last ``READERS_KEPT`` kept by profile id, each with the
    ``fingerprint`` of the profile it reads with."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def reader(self, base: Any, profile_id: str, profile: Profile) -> Any:
        from mjlens.vision.recognize import Recognizer

        made_from = fingerprint(profile)
        with self._lock:
            kept = self._kept.get(profile_id)
            if kept is not None and kept[0] == made_from:
                self._kept.move_to_end(profile_id)
                return kept[1]
        reader = copy.copy(base)  # the same detector and thresholds, its own classifier
        reader.classifier = ProfiledClassifier(shipped_classifier(base), profile)
        recognizer = Recognizer(detector=reader)
        with self._lock:
            self._kept[profile_id] = (made_from, recognizer)
            self._kept.move_to_end(profile_id)
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
        raise ApiError(503, "model_unavailable", state.unavailable or msg("the detector is not loaded"))
    reader = getattr(state.recognizer, "detector", None)
    if shipped_classifier(reader) is None:
        raise ApiError(503, "model_unavailable", msg("profiles need the crop classifier; the service reads "
                                                     "with the detector alone"))
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
        retry = {"Retry-After": str(err.retry_after_s)} if err.retry_after_s is not None else None
        raise ApiError(STORE_ERROR_STATUS[err.code], err.code, err.message, retry) from None
    except ProfileError as err:  # examples of another crop classifier than the profile's
        raise ApiError(409, err.code, err.message) from None
    except SQLAlchemyError as err:
        raise ApiError(503, "profile_store", msg("the profile database failed: {error}",
                                                    error=type(err).__name__)) from None


def client_of(request: Request) -> str:
    """The client a profile counts against (``client_digest``): the API key when the service has one, so every
    holder of the key is one client, else the client's address."""
    settings: Settings = request.app.state.settings
    if settings.api_key:
        return client_digest("key", settings.api_key)
    return client_digest("address", request.client.host if request.client else "unknown")


def _decoded(reader: Any, data: bytes) -> DecodedImage:
    return load_image(data, target_side=reader.decode_side)


def _make_profile(reader: Any, features: Any, data: bytes) -> Profile:
    from mjlens.vision.profile.calibration import profile_from_sheets

    return profile_from_sheets(reader, [_decoded(reader, data)], features)


def _profile_of_tiles(reader: Any, features: Any, data: bytes, labels: list[TileLabel], layout: bool) -> Profile:
    """A profile of the photo's labelled tiles: learnt as a layout's (``layout``) or as corrections of a photo."""
    from mjlens.vision.profile.sources import profile_from_corrected_photo, profile_from_layout_tiles

    image = _decoded(reader, data)
    tiles = in_photo(labels, image.width, image.height)
    return (profile_from_layout_tiles if layout else profile_from_corrected_photo)(image, tiles, features)


def _read_layout(reader: Any, features: Any, data: bytes) -> tuple[Any, DecodedImage]:
    from mjlens.vision.profile.calibration import read_sheet

    image = _decoded(reader, data)
    return read_sheet(reader, image, features), image


def _features(request: Request, reader: Any) -> Any:
    """One feature reader of the shipped classifier for the app, made at the first profile."""
    from mjlens.vision.profile.features import FeatureReader

    state = request.app.state
    classifier = shipped_classifier(reader)
    kept = getattr(state, "profile_features", None)
    if kept is None or kept.classifier is not classifier:
        kept = state.profile_features = FeatureReader(classifier)
    return kept


async def _upload(request: Request, image: UploadFile) -> bytes:
    settings: Settings = request.app.state.settings
    data = await image.read()
    try:
        await asyncio.to_thread(check_image, data, settings.max_upload_bytes, settings.max_pixels)
    except ImageError as err:
        raise ApiError(IMAGE_ERROR_STATUS.get(err.code, 400), err.code, err.message) from None
    return data


def _tiles_field(request: Request, text: str) -> list[TileLabel]:
    settings: Settings = request.app.state.settings
    try:
        return parse_tiles(text, settings.max_profile_tiles, settings.max_json_bytes, settings.max_json_depth)
    except BadTiles as err:
        raise ApiError(400, "bad_tiles", str(err)) from None


async def _read(request: Request, fn: Any, *args: Any) -> Any:
    """``fn(reader, features, *args)`` on the service's workers, its errors as the service's."""
    reader = tile_reader(request)
    try:
        features = await asyncio.to_thread(_features, request, reader)
        return await request.app.state.pool.run(fn, reader, features, *args)
    except ImageError as err:
        raise ApiError(IMAGE_ERROR_STATUS.get(err.code, 400), err.code, err.message) from None
    except BadTiles as err:
        raise ApiError(400, "bad_tiles", str(err)) from None
    except ProfileError as err:
        raise ApiError(400, err.code, err.message) from None


TILES_DESCRIPTION = ('JSON list of {"code": "1m", "box": [x1, y1, x2, y2]}: the photo\'s tiles as labelled or '
                     'corrected, in pixels of the photo as decoded (EXIF orientation applied); face-down "back" tiles '
                     'are left out')
TOO_MANY = {429: {"model": ErrorBody, "description": "this client keeps or made its most profiles: "
                                                     "client_profile_limit, client_rate_limit (Retry-After)"}}


def _router() -> APIRouter:
    router = APIRouter(tags=["profiles"])

    @router.post("/profiles", summary="Make a profile of a tile set from a photo of it laid out, or of its tiles",
                 status_code=201, responses={409: {"model": ErrorBody, "description": "the service holds its most "
                                                                                     "profiles: profile_limit"},
                                             **TOO_MANY},
                 description="The set laid out face up in rows (docs/profiles.md), or any photo of its tiles with "
                             "`tiles` (a layout preview as fixed by the player). Answers `{id, token, codes, "
                             "warnings}`: keep the token, it is given once and reads, uses and deletes the profile.")
    async def create(request: Request, image: Annotated[UploadFile, File(description="JPEG/PNG/WebP/HEIC")],
                     tiles: Annotated[str | None, Form(description=TILES_DESCRIPTION)] = None) -> JSONResponse:
        labels = _tiles_field(request, tiles) if tiles is not None else None
        data = await _upload(request, image)
        tile_reader(request)
        client = client_of(request)
        await _in_store(request, "check_client", client)  # before the photo is read: over a limit costs nothing
        if labels is None:
            profile = await _read(request, _make_profile, data)
            warnings = row_warnings(profile.codes)
        else:
            profile = await _read(request, _profile_of_tiles, data, labels, True)
            warnings = tiles_warnings(profile, labels)
        created = await _in_store(request, "create", profile, client)
        return JSONResponse({"id": created.id, "token": created.token, "codes": list(profile.codes),
                             "warnings": warnings + change_warnings(profile)}, status_code=201)

    @router.post("/profiles/preview", summary="Read a photo of a tile set laid out, keeping nothing",
                 description="The layout read as `POST /v1/profiles` reads it: `{width, height, tiles: [{code, box, "
                             "row, confidence}], codes, warnings}`, or the same errors. Show it, let the player fix "
                             "it, then make the profile with `POST /v1/profiles` and `tiles`.")
    async def preview(request: Request, image: Annotated[UploadFile, File(description="JPEG/PNG/WebP/HEIC")]
                      ) -> JSONResponse:
        data = await _upload(request, image)
        reading, image = await _read(request, _read_layout, data)
        tiles = [{"code": tile.code, "box": [round(float(v), 1) for v in tile.box], "row": tile.row,
                  "confidence": round(tile.confidence, 3)} for tile in reading.tiles]
        return JSONResponse({"width": image.width, "height": image.height, "tiles": tiles, "codes": list(reading.codes),
                             "warnings": row_warnings(reading.codes)})

    @router.get("/profiles/{profile_id}", summary="What a profile holds (its token in X-Profile-Token)")
    async def read(request: Request, profile_id: str, token: TokenHeader = None) -> JSONResponse:
        profile = await _stored(request, profile_id)
        return JSONResponse({"id": profile_id, **profile.summary()})

    @router.post("/profiles/{profile_id}/examples", summary="Add a photo's corrected tiles to a profile (its token "
                                                            "in X-Profile-Token)",
                 responses={409: {"model": ErrorBody, "description": "examples of another crop classifier: "
                                                                     "profile_classifier"}},
                 description="Each face-up tile of `tiles` becomes an example of its code; past "
                             "`MJLENS_PROFILE_EXAMPLES_PER_CODE` examples of a code the oldest are dropped. Answers "
                             "`{id, codes, examples: {code: count}, added, warnings}`.")
    async def add_examples(request: Request, profile_id: str,
                           image: Annotated[UploadFile, File(description="JPEG/PNG/WebP/HEIC")],
                           tiles: Annotated[str, Form(description=TILES_DESCRIPTION)],
                           token: TokenHeader = None) -> JSONResponse:
        labels = _tiles_field(request, tiles)
        data = await _upload(request, image)
        tile_reader(request)
        before = await _stored(request, profile_id)  # 404 before the photo is read
        added = await _read(request, _profile_of_tiles, data, labels, False)
        result = await _in_store(request, "add_examples", profile_id, request.headers.get(TOKEN_HEADER), added)
        if result is None:  # deleted meanwhile
            raise ApiError(404, "profile_not_found", NOT_FOUND)
        request.app.state.profile_readers.forget(profile_id)  # the next photo reads with the new examples
        counts = Counter(result.profile.example_codes)
        warnings = examples_warnings(before, labels, result, request.app.state.settings.profile_examples_per_code)
        return JSONResponse({"id": profile_id, "codes": list(result.profile.codes),
                             "examples": {code: counts[code] for code in DETECTOR_CLASSES if counts[code]},
                             "added": result.added, "warnings": warnings})

    @router.delete("/profiles/{profile_id}", status_code=204, summary="Delete a profile (its token in "
                                                                      "X-Profile-Token)")
    async def delete(request: Request, profile_id: str, token: TokenHeader = None) -> Response:
        token = request.headers.get(TOKEN_HEADER)
        if not token or not await _in_store(request, "delete", profile_id, token):
            raise ApiError(404, "profile_not_found", NOT_FOUND)
        request.app.state.profile_readers.forget(profile_id)
        return Response(status_code=204)

    return router
