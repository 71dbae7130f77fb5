"""A throwaway PostgreSQL cluster on loopback, for tests, benchmarks and local trials.

Uses the server binaries of Debian's `postgresql` package (or PG_BINDIR). PostgreSQL refuses
to run as root, so as root the cluster belongs to the `postgres` system user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from types import TracebackType

from bot.errors import StoreError
from bot.sandbox.server import free_port


def find_bindir() -> Path:
    """Directory holding initdb and pg_ctl; StoreError (with the fix) when there is none."""
    explicit = os.environ.get("PG_BINDIR")
    candidates = [explicit] if explicit else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    which = shutil.which("initdb")
    if which:
        candidates.append(str(Path(which).parent))
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    raise StoreError("PostgreSQL server binaries not found: apt-get install postgresql, or set PG_BINDIR")


def _version(path: str) -> float:
    try:
        return float(Path(path).parent.name)
    except ValueError:
        return 0.0


class LocalPostgres:
    """Start with `start()` (or as a context manager); `url` then points at database `postgres`."""

    def __init__(self, *, durable: bool = False, max_connections: int = 300) -> None:
        self.bindir = find_bindir()
        self.port = free_port()
        self.durable = durable
        self.max_connections = max_connections
        self.root = Path(tempfile.mkdtemp(prefix="incident-bot-pg-"))
        self.data = self.root / "data"
        self._user: str | None = "postgres" if os.geteuid() == 0 else None

    @property
    def url(self) -> str:
        return self.url_for("postgres")

    def url_for(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> LocalPostgres:
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self._launch()
        return self

    def halt(self, mode: str = "fast") -> None:
        """Stop the server but keep its data directory (`resume()` starts it again on the same port);
        `fast` ends open sessions and rolls their transactions back, as a planned restart does."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def resume(self) -> None:
        """Start the server again on the data directory and port `halt()` left."""
        self._launch()

    def restart(self, *, down_seconds: float = 0.0, mode: str = "fast") -> None:
        """Stop, stay down for `down_seconds`, start again: clients see their connections cut."""
        self.halt(mode)
        time.sleep(down_seconds)
        self.resume()

    def _launch(self) -> None:
        options = [
            f"-p {self.port}",
            "-c listen_addresses=127.0.0.1",
            f"-k {self.root}",
            f"-c max_connections={self.max_connections}",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            " ".join(options),
            "start",
        )

    def create_database(self, name: str | None = None) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        name = name or f"t_{uuid.uuid4().hex[:12]}"
        dsn = f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url_for(name)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()

    def _run(self, tool: str, *args: str, check: bool = True) -> None:
        result = subprocess.run(
            [str(self.bindir / tool), *args],
            capture_output=True,
            text=True,
            user=self._user,
            cwd=self.root,
            timeout=120,
            check=False,
        )
        if check and result.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise StoreError(f"{tool} failed ({result.returncode}): {result.stderr.strip()}\n{tail}")
