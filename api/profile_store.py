"""Profiles the service's clients made (``POST /v1/profiles``), kept in a database with SQLAlchemy: SQLite in a file
by default, any SQLAlchemy URL otherwise. Each profile belongs to the client that made it: a random token, given
once at creation, stored as its SHA-256 and compared in constant time. The table is created at start
(``create_all``); there are no migrations yet.
"""

from __future__ import annotations

import hashlib
import secrets
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import DateTime, LargeBinary, String, create_engine, func, select
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from mjlens.vision.profile import Profile, ProfileError

#: Bytes of randomness in a profile's id and in its token.
ID_BYTES, TOKEN_BYTES = 12, 32


class Base(DeclarativeBase):
    pass


class StoredProfile(Base):
    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_sha256: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)  # the profile file (.npz), as ``Profile.save`` writes it
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StoreError(Exception):
    """A profile the store cannot take (``code``: ``profile_limit``, ``profile_too_large``) or a database it cannot
    reach (``profile_store``)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class Created:
    id: str
    token: str


def database_url(setting: str) -> str:
    """A SQLAlchemy URL from ``MJLENS_PROFILE_DB``: a URL as it is, anything else a path to a SQLite file."""
    if "://" in setting:
        try:
            make_url(setting)
        except ArgumentError as err:
            raise StoreError("profile_store", f"MJLENS_PROFILE_DB is not a database URL: {err}") from None
        return setting
    return f"sqlite:///{Path(setting).expanduser().resolve()}"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def profile_bytes(profile: Profile) -> bytes:
    """The profile file's bytes (written whole by ``Profile.save``, so the format stays the file's)."""
    with tempfile.TemporaryDirectory(prefix="mjlens-profile-") as folder:
        return profile.save(Path(folder) / "profile.npz").read_bytes()


def profile_of(data: bytes) -> Profile:
    with tempfile.TemporaryDirectory(prefix="mjlens-profile-") as folder:
        path = Path(folder) / "profile.npz"
        path.write_bytes(data)
        return Profile.load(path)


class ProfileStore:
    """Profiles by id, each readable and deletable only with its token; at most ``max_profiles`` of at most
    ``max_bytes`` each."""

    def __init__(self, setting: str, max_profiles: int, max_bytes: int):
        """``setting``: ``MJLENS_PROFILE_DB`` (``database_url``)."""
        self.setting, self.max_profiles, self.max_bytes = setting, max_profiles, max_bytes
        self._engine: Engine | None = None
        self._lock = threading.Lock()  # the count check and the insert as one step within this process

    @property
    def engine(self) -> Engine:
        if self._engine is None:  # opened on first use: a service that never sees a profile makes no database
            try:
                engine = create_engine(database_url(self.setting))
                Base.metadata.create_all(engine)
            except SQLAlchemyError as err:
                raise StoreError("profile_store", f"the profile database cannot be opened: {type(err).__name__}"
                                 ) from None
            self._engine = engine
        return self._engine

    def create(self, profile: Profile) -> Created:
        data = profile_bytes(profile)
        if len(data) > self.max_bytes:
            raise StoreError("profile_too_large", f"the profile is {len(data)} bytes; the service keeps profiles of "
                                                  f"at most {self.max_bytes}")
        created = Created(secrets.token_urlsafe(ID_BYTES), secrets.token_urlsafe(TOKEN_BYTES))
        with self._lock, self._session() as session:
            if session.scalar(select(func.count()).select_from(StoredProfile)) >= self.max_profiles:
                raise StoreError("profile_limit", f"the service holds its most profiles ({self.max_profiles}): "
                                                  f"delete one first")
            session.add(StoredProfile(id=created.id, token_sha256=token_digest(created.token), data=data,
                                      created=datetime.now(UTC)))
            session.commit()
        return created

    def get(self, profile_id: str, token: str | None) -> Profile | None:
        """The profile, or None for an unknown id and for a wrong token alike."""
        with self._session() as session:
            row = self._owned(session, profile_id, token)
            data = row.data if row else None
        if data is None:
            return None
        try:
            return profile_of(data)
        except ProfileError:
            return None  # a row no longer readable (another format version) is as good as gone

    def delete(self, profile_id: str, token: str | None) -> bool:
        with self._session() as session:
            row = self._owned(session, profile_id, token)
            if row is None:
                return False
            session.delete(row)
            session.commit()
        return True

    def _session(self) -> Session:
        return Session(self.engine)

    @staticmethod
    def _owned(session: Session, profile_id: str, token: str | None) -> StoredProfile | None:
        row = session.get(StoredProfile, profile_id) if len(profile_id) <= 32 else None
        expected = row.token_sha256 if row else "0" * 64  # compared either way: no timing tells ids apart
        matches = secrets.compare_digest(token_digest(token or ""), expected)
        return row if row is not None and token and matches else None

