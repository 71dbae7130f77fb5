"""Persistence: SQLAlchemy models, engine set-up and Alembic migrations (SQLite or PostgreSQL)."""

from bot.store.db import Database, create_database

__all__ = ["Database", "create_database"]
