"""Alembic's environment for the profile store. The service runs it from ``migrate.upgrade`` with its own
open connection (``config.attributes["connection"]``); there is no alembic.ini and no offline (SQL script) mode."""

from alembic import context

from mjlens.api.profiles.store import Base

if context.is_offline_mode():
    raise SystemExit("the profile store's migrations run only from the service, on its own connection")

context.configure(connection=context.config.attributes["connection"], target_metadata=Base.metadata,
                  render_as_batch=True)  # SQLite alters a table by copying it: batch mode does that
with context.begin_transaction():
    context.run_migrations()
