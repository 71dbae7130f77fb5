"""Schema: the migrations build exactly the models, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from bot.deps import Deps
from bot.store.models import Base


def test_migrations_match_the_models(deps: Deps) -> None:
    with deps.db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    assert diff == []


def test_all_tables_exist(deps: Deps) -> None:
    tables = set(inspect(deps.db.engine).get_table_names())
    assert {
        "incidents",
        "alerts",
        "timeline_events",
        "triages",
        "action_proposals",
        "action_executions",
        "jobs",
    } <= tables


def test_downgrade_and_upgrade_again(deps: Deps) -> None:
    deps.db.downgrade("base")
    assert "incidents" not in inspect(deps.db.engine).get_table_names()
    deps.db.upgrade("head")
    assert "incidents" in inspect(deps.db.engine).get_table_names()
