"""Profiles the service's clients made (``POST /v1/profiles``), kept in a database with SQLAlchemy: SQLite in a file
by default, any SQLAlchemy URL otherwise. Each profile belongs to the client that made it: a random token, given
once at creation, stored as its SHA-256 and compared in constant time. The schema is brought to the newest Alembic
revision when the database is first opened (``migrate``).

Limits: profiles kept in all, bytes of one profile, and per client (a digest of its API key or address, never the
key itself) profiles kept and profiles made in the last hour; examples per code once corrections are added.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import secrets
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import DateTime, Index, Integer, LargeBinary, String, create_engine, delete, func, select
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.pool import StaticPool

from mjlens.i18n import msg
from mjlens.vision.profile import Profile, ProfileError

#: Bytes of randomness in a profile's id and in its token.
ID_BYTES, TOKEN_BYTES = 12, 32
#: The window of the per-client limit on profiles made.
RATE_WINDOW = timedelta(hours=1)


class Base(DeclarativeBase):
    pass


class StoredProfile(Base):
    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_sha256: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)  # the profile file (.npz), as ``Profile.save`` writes it
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    client: Mapped[str | None] = mapped_column(String(64), index=True)  # None: made before clients were kept
    updated: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # examples last added


class ProfileCreation(Base):
    """One profile made by a client, kept for ``RATE_WINDOW`` (deleting the profile does not give the make back)."""

    __tablename__ = "profile_creations"
    __table_args__ = (Index("ix_profile_creations_client_created", "client", "created"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StoreError(Exception):
    """A profile the store cannot take (``code``: ``profile_limit``, ``profile_too_large``, ``client_profile_limit``,
    ``client_rate_limit`` with ``retry_after_s``) or a database it cannot reach (``profile_store``)."""

    def __init__(self, code: str, message: str, retry_after_s: int | None = None):
        super().__init__(message)
        self.code, self.message, self.retry_after_s = code, message, retry_after_s


@dataclass(frozen=True)
class StoreLimits:
    max_profiles: int = 1000  # kept at once, all clients together
    max_bytes: int = 2 * 1024 * 1024  # one profile's file
    max_per_client: int = 20  # kept at once by one client
    made_per_hour: int = 10  # made by one client in the last hour
    examples_per_code: int = 16  # kept per code when examples are added, the oldest dropped


@dataclass(frozen=True)
class Created:
    id: str
    token: str


@dataclass(frozen=True)
class ExamplesAdded:
    profile: Profile  # as now stored
    added: int  # examples given
    dropped: dict[str, int]  # per code, the oldest examples dropped to keep the cap


def database_url(setting: str) -> str:
    """A SQLAlchemy URL from ``MJLENS_PROFILE_DB``: a URL as it is, anything else a path to a SQLite file."""
    if "://" in setting:
        try:
            make_url(setting)
        except ArgumentError as err:
            raise StoreError("profile_store", msg("MJLENS_PROFILE_DB is not a database URL: {err}", err=err)) from None
        return setting
    return f"sqlite:///{Path(setting).expanduser().resolve()}"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def client_digest(kind: str, identity: str) -> str:
    """What the store keeps of a client: the SHA-256 of its kind (``key``, ``address``) and identity."""
    return token_digest(f"{kind}:{identity}")


def profile_bytes(profile: Profile) -> bytes:
    """The profile file's bytes (written whole by ``Profile.save``, so the format stays the file's)."""
    with tempfile.TemporaryDirectory(prefix="mjlens-profile-") as folder:
        return profile.save(Path(folder) / "profile.npz").read_bytes()


def profile_of(data: bytes) -> Profile:
    with tempfile.TemporaryDirectory(prefix="mjlens-profile-") as folder:
        path = Path(folder) / "profile.npz"
        path.write_bytes(data)
        return Profile.load(path)


def with_examples(stored: Profile, added: Profile, per_code: int) -> tuple[Profile, dict[str, int]]:
    """``stored`` with ``added``'s examples merged in (``Profile.merged``: codes, completeness, sources, reliance),
    keeping the newest ``per_code`` examples of each code; and how many of each code were dropped."""
    merged = stored.merged(added)  # ProfileError profile_classifier for examples of another classifier
    names = stored.example_codes + added.example_codes
    features = np.concatenate([stored.features, added.features])
    seen: Counter[str] = Counter()
    kept = []
    for i in range(len(names) - 1, -1, -1):  # newest first
        seen[names[i]] += 1
        if seen[names[i]] <= per_code:
            kept.append(i)
    kept.reverse()
    dropped = {code: n - per_code for code, n in seen.items() if n > per_code}
    return dataclasses.replace(merged, example_codes=tuple(names[i] for i in kept), features=features[kept]), dropped


def _engine(url: str) -> Engine:
    if make_url(url).get_backend_name() == "sqlite" and make_url(url).database in (None, "", ":memory:"):
        # one in-memory database for every thread, not one per connection
        return create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})
    return create_engine(url)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite gives back naive UTC times


class ProfileStore:
    """Profiles by id, each readable, extendable and deletable only with its token, within ``StoreLimits``."""

    def __init__(self, setting: str, limits: StoreLimits | None = None):
        """``setting``: ``MJLENS_PROFILE_DB`` (``database_url``)."""
        self.setting, self.limits = setting, limits or StoreLimits()
        self._engine: Engine | None = None
        self._lock = threading.Lock()  # a limit's check and the write it allows as one step within this process

    @property
    def engine(self) -> Engine:
        if self._engine is None:  # opened on first use: a service that never sees a profile makes no database
            from .migrate import upgrade

            try:
                engine = _engine(database_url(self.setting))
                upgrade(engine)
            except SQLAlchemyError as err:
                raise StoreError("profile_store", msg("the profile database cannot be opened: {error}",
                                                      error=type(err).__name__)
                                 ) from None
            except ImportError as err:  # a URL whose driver is not installed (postgresql:// wants psycopg2)
                raise StoreError("profile_store", msg("the profile database's driver is not installed: {name}",
                                                      name=err.name)
                                 ) from None
            self._engine = engine
        return self._engine

    def create(self, profile: Profile, client: str) -> Created:
        """Store ``profile`` for ``client`` (``client_digest``) under a new id and token."""
        data = self._within_size(profile_bytes(profile))
        created = Created(secrets.token_urlsafe(ID_BYTES), secrets.token_urlsafe(TOKEN_BYTES))
        now = datetime.now(UTC)
        with self._lock, self._session() as session:
            self._check_limits(session, client, now)
            session.add(StoredProfile(id=created.id, token_sha256=token_digest(created.token), data=data,
                                      created=now, client=client))
            session.execute(delete(ProfileCreation).where(ProfileCreation.created < now - RATE_WINDOW))
            session.add(ProfileCreation(client=client, created=now))
            session.commit()
        return created

    def check_client(self, client: str) -> None:
        """``StoreError`` when ``client`` may not make a profile now (the limits ``create`` checks again)."""
        with self._session() as session:
            self._check_limits(session, client, datetime.now(UTC))

    def get(self, profile_id: str, token: str | None) -> Profile | None:
        """The profile, or None for an unknown id and for a wrong token alike."""
        with self._session() as session:
            row = self._owned(session, profile_id, token)
            data = row.data if row else None
        return self._readable(data)

    def add_examples(self, profile_id: str, token: str | None, added: Profile) -> ExamplesAdded | None:
        """Merge ``added``'s examples into the profile (``with_examples``, the limit on bytes checked after); None
        for an unknown id and a wrong token alike."""
        with self._lock, self._session() as session:
            row = self._owned(session, profile_id, token)
            stored = self._readable(row.data if row else None)
            if row is None or stored is None:
                return None
            merged, dropped = with_examples(stored, added, self.limits.examples_per_code)
            row.data = self._within_size(profile_bytes(merged))
            row.updated = datetime.now(UTC)
            session.commit()
        return ExamplesAdded(merged, len(added.example_codes), dropped)

    def delete(self, profile_id: str, token: str | None) -> bool:
        with self._session() as session:
            row = self._owned(session, profile_id, token)
            if row is None:
                return False
            session.delete(row)
            session.commit()
        return True

    def _check_limits(self, session: Session, client: str, now: datetime) -> None:
        limits = self.limits
        if session.scalar(select(func.count()).select_from(StoredProfile)) >= limits.max_profiles:
            raise StoreError("profile_limit", msg("the service holds its most profiles ({max_profiles}): "
                                                  "delete one first", max_profiles=limits.max_profiles))
        kept = session.scalar(select(func.count()).select_from(StoredProfile).where(StoredProfile.client == client))
        if kept >= limits.max_per_client:
            raise StoreError("client_profile_limit", msg("this client keeps its most profiles "
                                                         "({max_per_client}): delete one first",
                                                         max_per_client=limits.max_per_client))
        made = select(ProfileCreation.created).where(ProfileCreation.client == client,
                                                     ProfileCreation.created >= now - RATE_WINDOW)
        recent = session.scalars(made.order_by(ProfileCreation.created)).all()
        if len(recent) >= limits.made_per_hour:
            free_at = _aware(recent[len(recent) - limits.made_per_hour]) + RATE_WINDOW
            wait = max(1, math.ceil((free_at - now).total_seconds()))
            raise StoreError("client_rate_limit", msg("this client made its most profiles in an hour "
                                                      "({made_per_hour}): retry in {wait} s",
                                                      made_per_hour=limits.made_per_hour, wait=wait),
                                                      retry_after_s=wait)

    def _within_size(self, data: bytes) -> bytes:
        if len(data) > self.limits.max_bytes:
            raise StoreError("profile_too_large", msg("the profile is {n_data} bytes; the service keeps "
                                                      "profiles of at most {max_bytes}",
                                                      n_data=len(data), max_bytes=self.limits.max_bytes))
        return data

    @staticmethod
    def _readable(data: bytes | None) -> Profile | None:
        if data is None:
            return None
        try:
            return profile_of(data)
        except ProfileError:
            return None  # a row no longer readable (another format version) is as good as gone

    def _session(self) -> Session:
        return Session(self.engine)

    @staticmethod
    def _owned(session: Session, profile_id: str, token: str | None) -> StoredProfile | None:
        row = session.get(StoredProfile, profile_id) if len(profile_id) <= 32 else None
        expected = row.token_sha256 if row else "0" * 64  # compared either way: no timing tells ids apart
        matches = secrets.compare_digest(token_digest(token or ""), expected)
        return row if row is not None and token and matches else None
