"""The profile store's schema, brought to the newest revision with Alembic when the store opens its database. The
revisions are package data (``migrations/versions``), so an installed wheel migrates as a checkout does. A database
made before migrations (the ``profiles`` table of revision 0001, no ``alembic_version``) is stamped at 0001 first.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection, Engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The revision whose schema is the one ``create_all`` made before there were migrations.
FIRST_REVISION = "0001"


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, built here instead of read from an alembic.ini."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))  # the ini's interpolation
    config.attributes["connection"] = connection
    return config


def head() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest revision, adopting one made before migrations."""
    with engine.begin() as connection:
        config = alembic_config(connection)
        tables = set(inspect(connection).get_table_names())
        if "profiles" in tables and "alembic_version" not in tables:
            command.stamp(config, FIRST_REVISION)
        command.upgrade(config, "head")
