"""Dialect-aware INSERT .. ON CONFLICT, the primitive behind idempotent intake and job dedup."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from bot.store.models import Base


def insert_for(session: Session, model: type[Base]) -> Any:
    """A Core INSERT of the session's dialect, which supports `on_conflict_do_*`.

    Core, not the ORM's bulk path: intake runs this per webhook and the ORM layer doubles its cost.
    """
    table = model.__table__
    assert isinstance(table, Table)
    name = session.get_bind().dialect.name
    if name == "postgresql":
        return postgresql.insert(table)
    if name == "sqlite":
        return sqlite.insert(table)
    raise NotImplementedError(f"unsupported database dialect: {name}")
