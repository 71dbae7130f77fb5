"""Engine and session set-up for SQLite (one process) and PostgreSQL (many replicas)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, ProgrammingError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from bot.errors import SchemaError, StoreError

MIGRATIONS = Path(__file__).parent / "migrations"
# Any 64-bit number will do: it only has to be the same for every replica running migrations.
MIGRATION_LOCK_ID = 0x1C1DE7B07
CONNECT_TIMEOUT_SECONDS = 5  # PostgreSQL: how long opening a connection may take


def normalise_url(url: str) -> str:
    """Use psycopg 3 for plain postgresql:// URLs (the psycopg2 default is not installed)."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


class Database:
    """The engine plus the two kinds of session the bot uses: write transactions and reads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._readers = sessionmaker(engine.execution_options(read_only=True), expire_on_commit=False)
        # SQLite has one writer at a time. Queueing this process's writers on a lock wakes the next
        # one at once; left to SQLite's busy handler they would sleep and poll (up to 100 ms a try).
        self._write_lock: threading.Lock | contextlib.nullcontext[None] = (
            threading.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext()
        )

    @property
    def suggested_writers(self) -> int:
        """How many concurrent write transactions are worth running in one process."""
        return 2 if self.dialect == "sqlite" else 8

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction, committed on success and rolled back on error."""
        with self._schema_needed(), self._write_lock, self._sessions.begin() as session:
            yield session

    @contextmanager
    def reader(self) -> Iterator[Session]:
        """A read-only session (on SQLite it does not take the write lock)."""
        with self._schema_needed(), self._readers() as session:
            yield session

    @contextmanager
    def _schema_needed(self) -> Iterator[None]:
        """A database nobody migrated says what to run, instead of "no such table" deep in a trace."""
        try:
            yield
        except (OperationalError, ProgrammingError) as exc:
            text = str(exc.orig or exc).lower()
            where = self.engine.url.render_as_string(hide_password=True)
            if "no such table" in text or ("relation" in text and "does not exist" in text):
                raise SchemaError(
                    f"the database {where} has no incident-bot tables yet: run `incident-bot db upgrade` "
                    "(`serve` applies the migrations itself)"
                ) from exc
            if "no such column" in text or ("column" in text and "does not exist" in text):
                raise SchemaError(
                    f"the database {where} has an older schema than this version: run `incident-bot db upgrade`"
                ) from exc
            raise

    def check_current(self) -> None:
        """Raise SchemaError unless the schema is at this version's head (a replica that does not migrate)."""
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        head = ScriptDirectory.from_config(cfg).get_current_head()
        try:
            with self.engine.connect() as conn:
                current = MigrationContext.configure(conn).get_current_revision()
        except SQLAlchemyError as exc:
            cause = getattr(exc, "orig", None) or exc
            raise StoreError(f"database unreachable: {type(cause).__name__}: {cause}") from exc
        if current != head:
            where = self.engine.url.render_as_string(hide_password=True)
            raise SchemaError(
                f"the database {where} is at schema revision {current or 'none'}, this version needs {head}: "
                "run `incident-bot db upgrade`"
            )

    def ping(self) -> None:
        """Raise StoreError unless the database answers a trivial query."""
        try:
            with self.engine.connect().execution_options(read_only=True) as conn:
                conn.execute(text("SELECT 1"))
        except SQLAlchemyError as exc:
            cause = getattr(exc, "orig", None) or exc
            raise StoreError(f"database unreachable: {type(cause).__name__}: {cause}") from exc

    def upgrade(self, revision: str = "head") -> None:
        """Apply Alembic migrations; replicas starting together serialise on an advisory lock."""
        self._migrate("upgrade", revision)

    def downgrade(self, revision: str) -> None:
        """Revert migrations down to `revision` ("base" drops everything)."""
        self._migrate("downgrade", revision)

    def _migrate(self, direction: str, revision: str) -> None:
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK_ID})
            cfg.attributes["connection"] = conn
            getattr(command, direction)(cfg, revision)

    def dispose(self) -> None:
        self.engine.dispose()


def create_database(url: str, *, pool_size: int = 20) -> Database:
    """Build the engine with the settings each backend needs for concurrent intake."""
    url = normalise_url(url)
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"pool_pre_ping": True}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise StoreError("SQLite needs a file (sqlite:///path.db): an in-memory database is per thread")
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        kwargs.update(pool_size=pool_size, max_overflow=pool_size, connect_args={"timeout": 30})
        engine = create_engine(url, **kwargs)
        _configure_sqlite(engine)
    else:
        kwargs.update(pool_size=pool_size, max_overflow=pool_size, pool_timeout=30)
        if "connect_timeout" not in parsed.query:
            # An unreachable server (a dropped route, a failover) fails a connection in seconds, so a
            # webhook answers 503 well within Alertmanager's timeout instead of waiting on TCP.
            kwargs["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_SECONDS}
        engine = create_engine(url, **kwargs)
    return Database(engine)


def _configure_sqlite(engine: Engine) -> None:
    """WAL, a busy timeout, foreign keys, and BEGIN IMMEDIATE for writes.

    Deferred transactions that later write can fail with "database is locked" without waiting;
    taking the write lock up front makes concurrent writers queue on the busy timeout instead.
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # let SQLAlchemy's begin event emit BEGIN
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        read_only = conn.get_execution_options().get("read_only", False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")
