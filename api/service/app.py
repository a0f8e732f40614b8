"""The HTTP API (CONVENTIONS §6) and the phone web page, in one FastAPI app.

``create_app(settings, recognizer)`` builds an app (tests inject a recognizer, ``mjlens serve`` its settings);
``app`` is the one ``uvicorn mjlens.api.service.app:app`` runs. The detector loads once, at start-up; inference runs
in a bounded thread pool (api.service.queue) so the event loop stays free and overload gets a quick 503; every failure
answers ``{"error": {"code", "message"}}`` (api.service.errors) and every answer carries ``X-Request-ID``.
"""


import asyncio
import logging
import secrets
from contextlib import asynccontextmanager
from pathlib import Path, PurePath
from typing import Annotated, Any, Literal

import swagger_ui_bundle
from fastapi import APIRouter, Body, Depends, FastAPI, File, Form, Query, Request, UploadFile
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.security import APIKeyHeader
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from mjlens.api.profiles import routes as profiles
from mjlens.i18n import msg, page_words
from mjlens.scoring.engine import catalog, rule_module, score
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand
from mjlens.vision.runtime.decode import ImageError

from . import errors, examples
from .analysis import analysis_router
from .errors import REQUEST_ERROR_CODES, ApiError, ErrorBody
from .jsonlimits import json_form_field
from .lang import JSONResponse, LangMiddleware, lang_var
from .logs import configure as configure_logs
from .middleware import (
    ApiKeyGate,
    BodyLimitMiddleware,
    BusyGate,
    JsonLimitMiddleware,
    RequestIdMiddleware,
    UploadLimits,
)
from .pipeline import (
    RecognizerLike,
    check_kongs,
    check_request,
    load_recognizer,
    photo_score,
    recognizer_models,
    with_kongs,
)
from .queue import InferencePool
from .settings import Settings
from .uploads import IMAGE_ERROR_STATUS, check_image

STATIC = Path(__file__).resolve().parent / "static"
#: POST paths that take a photo upload (multipart): the upload limit and the busy gate apply to them.
UPLOAD_PATHS = profiles.UploadPaths(("/v1/recognize", "/v1/photo-score"))
#: Room in an upload request for the multipart boundaries and the other form fields, beside the photo itself.
FORM_OVERHEAD_BYTES = 64 * 1024
#: Paths open without the API key when one is set: the phone page, its own files (it asks for the key itself
#: and sends it on its API calls) and the health checks. Everything else needs the key, /docs and the schema too.
OPEN_PATHS = frozenset({"/", "/favicon.ico", "/healthz", "/readyz", "/v1/messages"})
OPEN_PREFIXES = ("/static/",)
log = logging.getLogger("mjlens.api")

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text} for status, text in {
        400: "bad input (see error.code)", 401: "missing or wrong X-API-Key",
        404: "no profile with this id and token (profile, X-Profile-Token)",
        408: "the body did not arrive in time, or a photo arrived slower than the least rate (request_timeout)",
        413: "upload too large", 415: "not a JPEG/PNG/WebP/HEIC image",
        503: "busy (Retry-After; the message says what is full) or the detector is not loaded",
    }.items()
}
#: The photo routes' own 429.
UPLOAD_LIMIT_RESPONSE = {429: {"model": ErrorBody, "description": "this client has its most photos in flight "
                                                                  "(client_upload_limit, Retry-After)"}}


# -- request bodies --------------------------------------------------------------------------------------------
class ScoreRequest(BaseModel):
    """``POST /v1/score``: a Hand JSON (CONVENTIONS §2) and the rule system to score it under."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "rules": "mcr",
        "hand": {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z"],
                 "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"], "concealed": False}],
                 "winning_tile": "9s", "flowers": [], "context": {"self_drawn": True}},
        "options": {},
    }]})

    rules: str = Field(description="mcr, taiwan, cantonese or riichi (GET /v1/rules lists them)")
    hand: dict[str, Any] = Field(description="Hand JSON")
    options: dict[str, Any] = Field(default_factory=dict, description="scoring options and house rules")


Wind = Literal["E", "S", "W", "N"]
KONGS_DESCRIPTION = ("the tile of a concealed kong laid with all four tiles face down (asked by the warning "
                     "face_down_kong), one field per such kong, in the order of their groups")


class PhotoForm(BaseModel):
    """The form fields of ``POST /v1/photo-score`` beside the image: the rule system and the win context."""

    rules: str = Field(description="mcr, taiwan, cantonese or riichi")
    self_drawn: bool | None = None
    seat_wind: Wind | None = None
    round_wind: Wind | None = None
    dealer: bool | None = None
    dealer_streak: int | None = Field(default=None, ge=0, le=99)
    last_tile: bool | None = None
    kong_replacement: bool | None = None
    robbing_kong: bool | None = None
    last_of_kind: bool | None = None
    heavenly: bool | None = None
    earthly: bool | None = None
    human: bool | None = None
    declared_ready: bool | None = None
    # riichi's context (CONVENTIONS §2)
    riichi: bool | None = None
    double_riichi: bool | None = None
    ippatsu: bool | None = None
    dora_indicators: list[str] | None = Field(default=None, description="riichi: a dora indicator's tile code, one "
                                                                        "field per indicator; left out, the photo's "
                                                                        "row of dora indicators counts (a dora group)")
    ura_indicators: list[str] | None = Field(default=None, description="riichi: an ura dora indicator's tile code, "
                                                                       "one field per indicator")
    honba: int | None = Field(default=None, ge=0, le=99)
    riichi_sticks: int | None = Field(default=None, ge=0, le=99)
    options: str | None = Field(default=None, description="scoring options as a JSON object")
    profile: str | None = Field(default=None, description="a profile's id (POST /v1/profiles), its token in "
                                                          "X-Profile-Token: the photo read with it")
    kongs: list[str] = Field(default_factory=list, description=KONGS_DESCRIPTION)

    def context(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump(exclude={"rules", "options", "profile", "kongs"}).items()
                if v is not None}

    def options_json(self, settings: Settings) -> dict[str, Any]:
        if not self.options:
            return {}
        value = json_form_field("options", self.options, settings.max_json_bytes, settings.max_json_depth)
        if not isinstance(value, dict):
            raise ApiError(400, "bad_option", msg("'options' must be a JSON object"))
        return value


# -- the app ---------------------------------------------------------------------------------------------------
def create_app(settings: Settings | None = None, recognizer: RecognizerLike | None = None) -> FastAPI:
    """A new app. ``recognizer`` replaces the detector loaded from ``settings.model`` (tests, benchmarks)."""
    settings = settings or Settings()
    configure_logs(settings.log_level)

    def new_pool() -> InferencePool:
        return InferencePool(settings.workers, settings.queue_size, settings.retry_after_s)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if app.state.pool.closed:  # an app started again after a shutdown (tests) gets fresh workers
            app.state.pool = new_pool()
        if app.state.recognizer is None:
            loaded, reason = await asyncio.to_thread(load_recognizer, settings.model, settings.inference_threads(),
                                                     settings.classifier, settings.profile)
            app.state.recognizer, app.state.unavailable = loaded, reason
            if loaded:
                log.info("tile reader loaded", extra=recognizer_models(loaded))
            else:
                log.warning("tile reader unavailable: photos answer 503 until it loads", extra={"reason": reason})
        yield
        app.state.pool.shutdown()

    app = FastAPI(
        title="mjlens", version="1.0", lifespan=lifespan, docs_url=None, redoc_url=None,
        summary="Score a mahjong hand from a photo: tile recognition and itemized scoring.",
    )
    app.state.settings = settings
    app.state.recognizer = recognizer
    app.state.unavailable = None if recognizer else msg("the detector is loading")
    app.state.pool = new_pool()

    errors.install(app)
    # the last added is the outermost: request ids, then CORS (so early 401/413/503 answers carry its headers
    # too), then the key (a request without it learns nothing else, not even a limit), then the guards that need
    # only the headers and the raw body, before any route parses anything
    app.add_middleware(JsonLimitMiddleware, max_depth=settings.max_json_depth)
    app.add_middleware(BusyGate, pool_of=lambda: app.state.pool, paths=UPLOAD_PATHS, limits=_upload_limits(settings))
    app.add_middleware(BodyLimitMiddleware, limit_of=_body_limit(settings), timeout_s=settings.body_timeout_s)
    app.add_middleware(ApiKeyGate, api_key=settings.api_key, open_paths=OPEN_PATHS, open_prefixes=OPEN_PREFIXES)
    app.add_middleware(LangMiddleware)  # around the guards, so their refusals are said in the request's language
    if settings.cors_list():
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_list(), allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Content-Type", "X-API-Key", "X-Request-ID", profiles.TOKEN_HEADER],
                           expose_headers=["X-Request-ID", "Retry-After"])
    app.add_middleware(RequestIdMiddleware)

    app.include_router(_health_router())
    app.include_router(_page_router(), prefix="/v1")
    app.include_router(_v1_router(settings), prefix="/v1")
    app.include_router(analysis_router(), prefix="/v1", responses=ERROR_RESPONSES,
                       dependencies=[Depends(_api_key_dependency(settings))])
    profiles.install(app, settings, dependencies=[Depends(_api_key_dependency(settings))], responses=ERROR_RESPONSES)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # Swagger UI from a local copy, so /docs works on a LAN without internet like the page at /
    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json", title="mjlens API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js", swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon-32x32.png",
        )

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.api_route("/favicon.ico", methods=["GET", "HEAD"], include_in_schema=False)
    async def favicon() -> FileResponse:  # asked for by every browser whatever the page links
        return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon",
                            headers={"Cache-Control": "max-age=86400"})

    return app


def _health_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", summary="Liveness: the process answers")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/readyz", summary="Readiness: the detector is loaded",
                responses={503: {"model": ErrorBody, "description": "the detector is not loaded"}})
    async def readyz(request: Request) -> dict[str, str | None]:
        recognizer = request.app.state.recognizer
        if recognizer is None:
            raise ApiError(503, "model_unavailable", request.app.state.unavailable or msg("the detector is not loaded"))
        return {"status": "ready", **recognizer_models(recognizer)}

    for path, check in (("/healthz", healthz), ("/readyz", readyz)):  # HEAD for probes that send it
        router.add_api_route(path, check, methods=["HEAD"], include_in_schema=False)
    return router


def _body_limit(settings: Settings):
    """Request -> (the largest body in bytes, what the 413 message calls it): a photo and its form for a form
    posted to an upload path, a JSON body for everything else."""
    upload = (settings.max_upload_bytes + FORM_OVERHEAD_BYTES,
              msg("a photo upload ({photo} bytes of photo + {form} of form)", photo=settings.max_upload_bytes,
                  form=FORM_OVERHEAD_BYTES))
    other = (settings.max_json_bytes, msg("a JSON body"))

    def limit_of(path: str, content_type: bytes) -> tuple[int, str]:
        return upload if path in UPLOAD_PATHS and content_type.startswith(b"multipart/form-data") else other

    return limit_of


def _upload_limits(settings: Settings) -> UploadLimits:
    return UploadLimits(places=settings.uploads_in_flight(), reserved=settings.reserved_uploads(),
                        max_bytes=settings.max_upload_bytes_in_flight, per_client=settings.max_uploads_per_client,
                        min_rate=settings.min_upload_rate, normal_rate=settings.normal_upload_rate,
                        grace_s=settings.upload_grace_s)


def _api_key_dependency(settings: Settings):
    header = APIKeyHeader(name="X-API-Key", auto_error=False, description="needed when MJLENS_API_KEY is set")

    async def check(key: Annotated[str | None, Depends(header)]) -> None:  # ApiKeyGate checked it first
        if settings.api_key and not (key and secrets.compare_digest(key.encode(), settings.api_key.encode())):
            raise ApiError(401, "unauthorized", msg("send the service's API key in the X-API-Key header"))

    return check


def _page_router() -> APIRouter:
    router = APIRouter(tags=["page"], responses=ERROR_RESPONSES)

    @router.get("/messages", summary="The phone page's sentences in a language",
                description="English template -> its translation, for every sentence of the phone page (docs/i18n.md); "
                            "the language is the query's lang, else Accept-Language. Open, as the page itself is.")
    def messages(lang: Annotated[Literal["en", "zh"] | None, Query(description="en or zh")] = None) -> JSONResponse:
        said = lang_var.get()  # ``lang`` is declared for the API docs: LangMiddleware has read it (or the header)
        return JSONResponse({"lang": said, "messages": page_words(said)}, headers={"Cache-Control": "no-cache"})

    return router


def _v1_router(settings: Settings) -> APIRouter:
    router = APIRouter(dependencies=[Depends(_api_key_dependency(settings))], responses=ERROR_RESPONSES)

    @router.get("/rules", tags=["scoring"], summary="The rule systems and their scoring items")
    def rules() -> JSONResponse:
        return JSONResponse(catalog())

    @router.post("/score", tags=["scoring"], summary="Score a Hand JSON",
                 responses=examples.json_example(winning=examples.SCORE, not_winning=examples.NOT_WINNING),
                 description="A hand that parses but does not win is a 200 with `valid: false`; a malformed hand, "
                             "an unknown rule system or a bad option is a 400.")
    def score_hand(body: Annotated[ScoreRequest, Body()]) -> JSONResponse:
        context = body.hand.get("context")
        if context is not None and not isinstance(context, dict):
            raise ApiError(400, "bad_context", msg("'context' must be a JSON object"))
        try:
            rule_module(body.rules)
            hand = Hand.from_json(body.hand)
        except HandError as err:
            raise ApiError(400, err.code, err.message) from None
        result = score(hand, body.rules, body.options)
        if result.error is not None and result.error.code in REQUEST_ERROR_CODES:
            raise ApiError(400, result.error.code, result.error.message)
        return JSONResponse(result.to_json())

    @router.post("/recognize", tags=["vision"], summary="Read the tiles in a photo (Recognition JSON)",
                 responses={**examples.json_example(recognition=examples.RECOGNITION), **UPLOAD_LIMIT_RESPONSE})
    async def recognize(request: Request, image: Annotated[UploadFile, File(description="JPEG/PNG/WebP/HEIC")],
                        profile: Annotated[str | None, Form(description=PhotoForm.model_fields["profile"].description)]
                        = None, kongs: Annotated[list[str] | None, Form(description=KONGS_DESCRIPTION)] = None
                        ) -> JSONResponse:
        try:
            check_kongs(kongs or ())
        except HandError as err:
            raise ApiError(400, err.code, err.message) from None
        recognition = await _recognize(request, image, profile)
        return JSONResponse(await asyncio.to_thread(with_kongs, recognition, kongs or ()))

    @router.post("/photo-score", tags=["vision", "scoring"], summary="Read the tiles in a photo and score the hand",
                 responses={**examples.json_example(scored={"recognition": examples.RECOGNITION,
                                                            "score": examples.SCORE}), **UPLOAD_LIMIT_RESPONSE},
                 description="Answers `{\"recognition\": <Recognition JSON>, \"score\": <Score JSON>}`; the context "
                             "fields are laid over the context the photo gives.")
    async def photo(request: Request, image: Annotated[UploadFile, File(description="JPEG/PNG/WebP/HEIC")],
                    form: Annotated[PhotoForm, Form()]) -> JSONResponse:
        unknown = sorted(set((await request.form()).keys()) - set(PhotoForm.model_fields) - {"image"})
        if unknown:
            raise ApiError(400, "bad_field", msg("unknown form field(s): {unknown}", unknown=', '.join(unknown)))
        context, options = form.context(), form.options_json(settings)
        try:
            check_request(form.rules, context, form.kongs)
        except HandError as err:
            raise ApiError(400, err.code, err.message) from None
        recognition = await asyncio.to_thread(with_kongs, await _recognize(request, image, form.profile), form.kongs)
        out = await asyncio.to_thread(photo_score, recognition, form.rules, context, options)
        if out["score"].get("error", {}).get("code") == "bad_option":
            raise ApiError(400, "bad_option", out["score"]["error"]["message"])
        return JSONResponse(out)

    return router


async def _recognize(request: Request, image: UploadFile, profile: str | None = None) -> dict[str, Any]:
    """Check the upload, then run the detector in the bounded pool (with the client's ``profile`` when named);
    image problems become 4xx."""
    state = request.app.state
    settings: Settings = state.settings
    data = await image.read()
    try:  # off the event loop: even a header can take Pillow a while to parse
        await asyncio.to_thread(check_image, data, settings.max_upload_bytes, settings.max_pixels)
    except ImageError as err:
        raise ApiError(IMAGE_ERROR_STATUS.get(err.code, 400), err.code, err.message) from None
    if state.recognizer is None:
        raise ApiError(503, "model_unavailable", state.unavailable or msg("the detector is not loaded"))
    name = PurePath(image.filename or "upload").name[:200] or "upload"
    recognizer = state.recognizer if profile is None else await profiles.recognizer_with(request, profile)
    try:
        return await state.pool.run(recognizer.recognize, data, name)
    except ImageError as err:
        raise ApiError(IMAGE_ERROR_STATUS.get(err.code, 400), err.code, err.message) from None


def __getattr__(name: str) -> Any:
    """``mjlens.api.service.app:app`` (what ``uvicorn mjlens.api.service.app:app`` loads) is built on first use, not at
    import, so importing this module reads no environment and a bad ``MJLENS_*`` value is reported where the app is
    wanted."""
    if name == "app":
        globals()["app"] = create_app()
        return globals()["app"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
