"""Service settings, read once from the environment (prefix ``MJLENS_``) so a deployment needs no config file.

Every knob a person running ``mjlens serve`` on a LAN or behind a proxy may want is here, with a safe default.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from mjlens.models import DETECTOR_FILE, shipped
from mjlens.vision.runtime.sessions import cores, default_threads

DEFAULT_MODEL = shipped(DETECTOR_FILE)


class Settings(BaseSettings):
    """Environment variables: ``MJLENS_API_KEY``, ``MJLENS_CORS_ORIGINS``, ``MJLENS_MAX_UPLOAD_BYTES``..."""

    model_config = SettingsConfigDict(env_prefix="MJLENS_", extra="ignore")

    #: When set, every ``/v1`` call must send it in ``X-API-Key``; ``/healthz``, ``/readyz`` and the page stay open.
    api_key: str | None = None
    #: Origins allowed to call the API from a browser, comma-separated (``*`` for any); empty: same origin only.
    cors_origins: str = ""
    #: Largest accepted photo, in bytes (20 MiB: a full-resolution phone photo fits easily). The request around it
    #: may be ``FORM_OVERHEAD_BYTES`` more (the multipart form's boundaries and other fields).
    max_upload_bytes: int = Field(default=20 * 1024 * 1024, gt=0)
    #: Largest body of every other request (JSON), and of a JSON form field such as ``options``.
    max_json_bytes: int = Field(default=256 * 1024, gt=0)
    #: Deepest nesting of objects and arrays in any JSON the service parses (a Hand JSON nests 4 deep).
    max_json_depth: int = Field(default=32, gt=0)
    #: Photo uploads holding a place at once, from their first 64 KiB (or whole body) to their answer: being
    #: received, waiting or read. Default: twice the pool's capacity.
    max_uploads_in_flight: int | None = Field(default=None, gt=0)
    #: Bytes of photo uploads held at once, counted as they arrive.
    max_upload_bytes_in_flight: int = Field(default=256 * 1024 * 1024, gt=0)
    #: Photo uploads one client may have in flight at once. A client is its address: behind a reverse proxy, set
    #: ``forwarded_allow_ips`` so that the address is the client's, not the proxy's.
    max_uploads_per_client: int = Field(default=4, gt=0)
    #: Least rate, in bytes a second averaged from the end of the headers, at which a photo must arrive once
    #: ``upload_grace_s`` has passed (16 KiB/s: a 5 MB photo in 5 minutes); slower is 408 and frees its place.
    min_upload_rate: int = Field(default=16 * 1024, gt=0)
    #: Seconds an upload has before its rate is judged (a phone's connection may be slow to start).
    upload_grace_s: float = Field(default=5.0, gt=0)
    #: Of the uploads in flight, how many are kept for photos arriving at ``normal_upload_rate`` or faster, so that
    #: uploads trickling in just above the least rate cannot take them all. Default: half.
    reserved_upload_slots: int | None = Field(default=None, ge=0)
    #: The rate, in bytes a second, of a photo sent at a normal pace (128 KiB/s, about 1 Mbit/s): an upload in a
    #: reserved place must keep to it.
    normal_upload_rate: int = Field(default=128 * 1024, gt=0)
    #: Addresses of the reverse proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed,
    #: comma-separated addresses or networks (``127.0.0.1``, ``10.0.0.0/8``; ``*`` for any). Empty: none, so a
    #: client cannot choose the address its per-client limits count against.
    forwarded_allow_ips: str = ""
    #: Seconds a client has to send a request's headers (from the connection or the end of the previous answer).
    header_timeout_s: float = Field(default=10.0, gt=0)
    #: Seconds a client has to send a request's whole body, from the end of its headers.
    body_timeout_s: float = Field(default=60.0, gt=0)
    #: Seconds an idle keep-alive connection stays open between requests.
    keep_alive_s: float = Field(default=5.0, gt=0)
    #: Largest accepted image, in pixels (width x height), checked from the header before decoding.
    max_pixels: int = Field(default=50_000_000, gt=0)
    #: Threads running the detector: one per core by default.
    workers: int = Field(default_factory=cores, gt=0)
    #: onnxruntime threads inside one inference (``MJLENS_THREADS``, which the detector reads too). Default:
    #: cores // workers, at least 1, so that workers x threads fit the cores; oversubscribing them (each of
    #: ``workers`` sessions spinning ``cores`` threads) halved throughput in benchmarks/bench_service.py.
    threads: int | None = Field(default=None, gt=0)
    #: Requests allowed to wait for a worker; beyond ``workers + queue_size`` in flight the answer is 503.
    queue_size: int = Field(default=8, ge=0)
    #: Seconds a client is told to wait (``Retry-After``) when the queue is full.
    retry_after_s: int = Field(default=1, ge=0)
    #: The ONNX detector file; the service still answers scoring calls when it is absent.
    model: Path = DEFAULT_MODEL
    #: The ONNX crop classifier that names each tile the detector finds, or ``none`` for the detector alone.
    #: Default: the shipped one with the shipped detector (``vision.runtime.classifier.default_classifier_path``).
    classifier: str | None = None
    #: A profile of the players' tile set (``mjlens profile create``), read alongside the crop classifier for every
    #: photo: the service's default profile. None: the shipped classifier alone.
    profile: Path | None = None
    #: Where the profiles clients make (``POST /v1/profiles``) are kept: a path to a SQLite file, or any SQLAlchemy
    #: URL (``postgresql://...`` with its driver installed). Opened at the first profile call.
    profile_db: str = "mjlens-profiles.db"
    #: Most profiles kept at once (a whole set's is about 0.8 MB).
    max_profiles: int = Field(default=1000, gt=0)
    #: Largest profile kept, in bytes of its file.
    max_profile_bytes: int = Field(default=2 * 1024 * 1024, gt=0)
    #: Most tiles in the ``tiles`` field of a profile call (a whole layout is 42).
    max_profile_tiles: int = Field(default=200, gt=0)
    #: Most profiles one client keeps at once. A client is the API key when the service has one (so every holder
    #: of the key counts as one client), else the client's address.
    max_profiles_per_client: int = Field(default=20, gt=0)
    #: Most profiles one client makes in an hour (deleting one does not give its make back).
    profiles_per_client_per_hour: int = Field(default=10, gt=0)
    #: Examples kept of each code when corrections are added to a profile: the oldest are dropped past it.
    profile_examples_per_code: int = Field(default=16, gt=0)
    #: Level of the JSON logs.
    log_level: str = "INFO"

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        value = value.upper()
        if value not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ValueError("log level must be DEBUG, INFO, WARNING or ERROR")
        return value

    def uploads_in_flight(self) -> int:
        return self.max_uploads_in_flight or 2 * (self.workers + self.queue_size)

    @model_validator(mode="after")
    def _reserve_leaves_room(self) -> Settings:
        if self.reserved_upload_slots is not None and self.reserved_upload_slots >= self.uploads_in_flight():
            raise ValueError(f"reserved_upload_slots must be less than the uploads in flight "
                             f"({self.uploads_in_flight()})")
        return self

    def reserved_uploads(self) -> int:
        """Upload places kept for photos arriving at the normal rate."""
        if self.reserved_upload_slots is not None:
            return self.reserved_upload_slots
        return self.uploads_in_flight() // 2

    def inference_threads(self) -> int:
        return self.threads or default_threads(self.workers)

    def cors_list(self) -> list[str]:
        return [origin.strip() for origin in self.cors_origins.split(",") if origin.strip()]
