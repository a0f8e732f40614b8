"""The profile store on its own (no models): tokens, limits, examples added, and its Alembic migrations, on SQLite
always and on PostgreSQL when ``MJLENS_TEST_POSTGRES_URL`` names a database this test may empty (.ci/run makes
one)."""

from __future__ import annotations

import importlib.util
import os
import tomllib
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")

from alembic.autogenerate import compare_metadata  # noqa: E402
from alembic.migration import MigrationContext  # noqa: E402
from alembic.script import ScriptDirectory  # noqa: E402
from sqlalchemy import (  # noqa: E402
    Column,
    DateTime,
    LargeBinary,
    MetaData,
    String,
    Table,
    create_engine,
    inspect,
    select,
    text,
)

from mjlens.api.profiles.migrate import MIGRATIONS, alembic_config, head  # noqa: E402
from mjlens.api.profiles.store import (  # noqa: E402
    Base,
    ProfileCreation,
    ProfileStore,
    StoredProfile,
    StoreError,
    StoreLimits,
    client_digest,
    profile_bytes,
    token_digest,
    with_examples,
)
from mjlens.scoring.tiles import DETECTOR_CLASSES  # noqa: E402
from mjlens.vision.profile import Profile  # noqa: E402

POSTGRES_ENV = "MJLENS_TEST_POSTGRES_URL"
ALICE, BOB = client_digest("address", "192.0.2.1"), client_digest("address", "192.0.2.2")


def small_profile(codes=("1m", "2m", "5z"), source: str = "labels", start: int = 0) -> Profile:
    features = np.zeros((len(codes), 8), np.float32)
    features[np.arange(len(codes)), (np.arange(len(codes)) + start) % 8] = 1.0
    return Profile.of_examples(list(codes), features, "a" * 64, source)


def _empty(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as connection:
        for table in ("profile_creations", "profiles", "alembic_version"):
            connection.execute(text(f"DROP TABLE IF EXISTS {table}"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path) -> str:
    """A URL of an empty database: a SQLite file, or the PostgreSQL database of ``MJLENS_TEST_POSTGRES_URL``."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'profiles.db'}"
        return
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(f"{POSTGRES_ENV} is not set (.ci/run sets it where it can start PostgreSQL)")
    pytest.importorskip("psycopg")
    _empty(url)
    yield url
    _empty(url)


def test_tokens_are_kept_hashed_and_profiles_read_and_deleted(database):
    store = ProfileStore(database)
    created = store.create(small_profile(), ALICE)
    with store._session() as session:
        row = session.get(StoredProfile, created.id)
        assert row.token_sha256 == token_digest(created.token) and created.token not in row.token_sha256
        assert row.client == ALICE and row.updated is None
    assert store.get(created.id, created.token).codes == ("1m", "2m", "5z")
    assert store.get(created.id, "wrong") is None and store.get(created.id, None) is None
    assert store.get("x" * 200, created.token) is None
    assert not store.delete(created.id, "wrong")
    assert store.delete(created.id, created.token) and not store.delete(created.id, created.token)
    assert store.get(created.id, created.token) is None


def test_limits_on_count_size_and_clients(database):
    store = ProfileStore(database, StoreLimits(max_profiles=3, max_per_client=2, made_per_hour=3))
    kept = [store.create(small_profile(), ALICE) for _ in range(2)]
    with pytest.raises(StoreError) as err:
        store.create(small_profile(), ALICE)
    assert err.value.code == "client_profile_limit" and err.value.retry_after_s is None
    store.create(small_profile(), BOB)  # another client is not held by Alice's limits
    with pytest.raises(StoreError) as err:
        store.create(small_profile(), BOB)
    assert err.value.code == "profile_limit"  # three kept in all
    store.delete(kept[0].id, kept[0].token)
    store.create(small_profile(), ALICE)  # room again, and her third make this hour
    store.delete(kept[1].id, kept[1].token)
    with pytest.raises(StoreError) as err:  # deleting does not give a make back
        store.check_client(ALICE)
    assert err.value.code == "client_rate_limit" and 3500 < err.value.retry_after_s <= 3600
    with pytest.raises(StoreError) as err:
        ProfileStore(database, StoreLimits(max_bytes=100)).create(small_profile(), ALICE)
    assert err.value.code == "profile_too_large"


def test_examples_are_merged_the_oldest_dropped_past_the_cap(database):
    store = ProfileStore(database, StoreLimits(examples_per_code=3))
    created = store.create(small_profile(("1m", "2m")), ALICE)
    first = store.add_examples(created.id, created.token, small_profile(("1m", "1m", "3m"), "corrections", 2))
    assert first.added == 3 and first.dropped == {}
    assert first.profile.example_codes == ("1m", "2m", "1m", "1m", "3m")
    second = store.add_examples(created.id, created.token, small_profile(("1m",), "corrections", 5))
    assert second.dropped == {"1m": 1}
    stored = store.get(created.id, created.token)
    assert stored.example_codes == ("2m", "1m", "1m", "3m", "1m") and stored.codes == ("1m", "2m", "3m")
    assert stored.features[-1].argmax() == 5  # the newest kept, the first 1m gone
    assert stored.sources == ("labels", "corrections")
    with store._session() as session:
        assert session.get(StoredProfile, created.id).updated is not None
    assert store.add_examples(created.id, "wrong", small_profile()) is None
    with pytest.raises(StoreError) as err:
        ProfileStore(database, StoreLimits(max_bytes=len(profile_bytes(stored)))).add_examples(
            created.id, created.token, small_profile(("9p",) * 3, "corrections"))
    assert err.value.code == "profile_too_large"
    assert store.get(created.id, created.token).example_codes == stored.example_codes  # unchanged


def test_a_complete_profile_keeps_its_codes_and_completeness():
    complete = Profile.of_examples(["1m", "2m"], np.eye(2, 8, dtype=np.float32), "a" * 64, "sheet",
                                   codes=["1m", "2m", "3m"])
    merged, dropped = with_examples(complete, small_profile(("2m", "4p"), "corrections"), per_code=12)
    assert merged.complete and merged.codes == ("1m", "2m", "3m", "4p") and not dropped
    assert len(merged.reliance) == len(DETECTOR_CLASSES)


def _schema_matches(engine) -> list:
    with engine.connect() as connection:
        return compare_metadata(MigrationContext.configure(connection), Base.metadata)


def test_a_new_database_is_made_at_the_newest_revision(database):
    store = ProfileStore(database)
    store.create(small_profile(), ALICE)
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == head()
    assert _schema_matches(store.engine) == []
    ProfileStore(database).create(small_profile(), BOB)  # opened again: nothing to do


def test_a_database_made_before_migrations_is_adopted(database):
    """The table ``create_all`` made before there were migrations, with a profile in it."""
    old = MetaData()
    Table("profiles", old, Column("id", String(32), primary_key=True),
          Column("token_sha256", String(64), nullable=False), Column("data", LargeBinary, nullable=False),
          Column("created", DateTime(timezone=True), nullable=False))
    engine = create_engine(database)
    old.create_all(engine)
    with engine.begin() as connection:
        connection.execute(old.tables["profiles"].insert().values(
            id="old", token_sha256=token_digest("secret"), data=profile_bytes(small_profile()),
            created=datetime(2026, 1, 1)))
    engine.dispose()
    store = ProfileStore(database)
    assert store.get("old", "secret").codes == ("1m", "2m", "5z")
    assert set(inspect(store.engine).get_table_names()) >= {"profiles", "profile_creations", "alembic_version"}
    assert _schema_matches(store.engine) == []
    store.add_examples("old", "secret", small_profile(("7z",), "corrections"))
    with store._session() as session:
        assert session.get(StoredProfile, "old").client is None  # made before clients were kept
        assert session.scalars(select(ProfileCreation)).all() == []


def test_a_database_that_cannot_be_opened_is_a_store_error(tmp_path):
    with pytest.raises(StoreError) as err:
        ProfileStore(str(tmp_path / "no" / "such" / "folder" / "p.db")).get("x", "y")
    assert err.value.code == "profile_store"
    no_driver = [] if importlib.util.find_spec("pg8000") else ["postgresql+pg8000://x@y/z"]
    for url in ["nosuchdialect://x/y", "mssql+nosuchdriver://x/y", *no_driver]:
        with pytest.raises(StoreError) as err:
            ProfileStore(url).get("x", "y")
        assert err.value.code == "profile_store"


def test_an_in_memory_database_is_one_for_every_thread():
    store = ProfileStore("sqlite://")
    created = store.create(small_profile(), ALICE)
    with ThreadPoolExecutor(2) as pool:
        assert pool.submit(store.get, created.id, created.token).result().codes == ("1m", "2m", "5z")


def test_the_migrations_ship_in_the_wheel():
    """Each folder of migration scripts is a package of the wheel (its .py files ship), and the revisions form one
    line from 0001 to the head."""
    repo = Path(__file__).resolve().parent.parent
    packages = set(tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    for folder in (MIGRATIONS, *(p for p in MIGRATIONS.rglob("*") if p.is_dir() and p.name != "__pycache__")):
        assert ".".join(("mjlens", "api", "profiles", *folder.relative_to(MIGRATIONS.parent).parts)) in packages, folder
    revisions = [r.revision for r in ScriptDirectory.from_config(alembic_config()).walk_revisions()]
    assert revisions[-1] == "0001" and revisions[0] == head() and len(set(revisions)) == len(revisions)
