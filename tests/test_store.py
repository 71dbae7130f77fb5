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


def test_triages_stored_before_runs_existed_become_runs(database_url: str) -> None:
    """Before 0002 a retried job could store an incident's triage twice; the upgrade numbers them."""
    from sqlalchemy import text

    from bot.store.db import create_database

    db = create_database(database_url, pool_size=2)
    db.upgrade("0001")
    now = "2026-06-01 10:00:00"
    with db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO incidents (id, title, status, severity, labels, started_at, opened_at) "
                "VALUES (1, 't', 'open', 'major', '{}', :now, :now), (2, 'u', 'open', 'major', '{}', :now, :now)"
            ),
            {"now": now},
        )
        for _ in range(2):
            conn.execute(
                text(
                    "INSERT INTO triages (incident_id, created_at, engine, hypothesis, result) "
                    "VALUES (1, :now, 'rules', 'h', '{}')"
                ),
                {"now": now},
            )
        conn.execute(
            text(
                "INSERT INTO timeline_events (incident_id, at, actor, kind, text, data) "
                "VALUES (1, :now, 'incident-bot', 'announced', 'announced', '{}')"
            ),
            {"now": now},
        )
    db.upgrade("head")
    with db.engine.connect() as conn:
        runs = conn.execute(text("SELECT run FROM triages WHERE incident_id = 1 ORDER BY id")).scalars().all()
        counters = {i: n for i, n in conn.execute(text("SELECT id, triage_runs FROM incidents")).all()}
        announced = (
            conn.execute(text("SELECT id FROM incidents WHERE announced_at IS NOT NULL")).scalars().all()
        )
    assert list(runs) == [1, 2] and counters == {1: 2, 2: 0} and list(announced) == [1]
    db.dispose()
