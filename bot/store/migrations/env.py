"""Alembic environment: runs on the connection handed over by Database.upgrade, or on a URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from bot.store.models import Base

config = context.config
target_metadata = Base.metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
        with engine.begin() as conn:
            _migrate(conn)
        return
    _migrate(connection)


def _migrate(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run()
