"""Dialect-aware INSERT .. ON CONFLICT, the primitive behind idempotent intake and job dedup."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session


def insert_for(session: Session, table: Any) -> Any:
    """An INSERT construct of the session's dialect, which supports `on_conflict_do_*`."""
    name = session.get_bind().dialect.name
    if name == "postgresql":
        return postgresql.insert(table)
    if name == "sqlite":
        return sqlite.insert(table)
    raise NotImplementedError(f"unsupported database dialect: {name}")
