"""Hypothesis strategies shared by the fuzz tests: odd text, odd JSON, odd times, and a snapshot of
the store to prove that a refused request wrote nothing."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from bot.config import BotConfig, Service
from bot.deps import Deps, build_deps
from bot.server import build_app
from bot.store.db import Database
from bot.store.models import Base
from tests.conftest import make_settings
from tests.support.live import serve_in_thread
from tests.support.localpg import LocalPostgres

# Deterministic, no example database: the same cases run on every machine and in CI.
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def fuzz(examples: int) -> settings:
    """The shared settings with `examples` generated cases (explicit examples come on top)."""
    return settings(FUZZ, max_examples=examples)


# What each fuzz test ran, printed at the end of the module (`pytest -s`) and asserted per test.
RAN: Counter[str] = Counter()


@contextmanager
def counted(name: str, at_least: int) -> Iterator[None]:
    """The cases counted under `name` while the block runs: printed, and at least `at_least`."""
    start = RAN[name]
    yield
    ran = RAN[name] - start
    print(f"{name}: {ran} cases")
    assert ran >= at_least


# Characters that break naive handling: lone surrogates, NUL, bidi and zero-width marks, BOM,
# astral characters, quotes and escapes.
ODD_CHARS = [
    "\ud800",
    "\udfff",
    "\x00",
    "\u202e",
    "\u200f",
    "\u200b",
    "\ufeff",
    "\U0001f600",
    "\U0010ffff",
    "\uffff",
    "\n",
    '"',
    "\\",
    "é",
    "\x7f",
]
SIZES = [0, 1, 63, 64, 65, 199, 200, 201, 300, 500, 501, 4001, 70_000]

odd_text = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(ODD_CHARS) | st.text(max_size=3), max_size=8).map("".join),
    st.sampled_from(SIZES).map(lambda n: "x" * n),
    st.sampled_from(SIZES).map(lambda n: "\U0001f600" * n),
)
odd_numbers = st.one_of(
    st.integers(),
    st.sampled_from([-1, 0, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
)
json_leaf = st.one_of(st.none(), st.booleans(), odd_numbers, odd_text)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(odd_text, inner, max_size=4),
    max_leaves=10,
)
zones = st.one_of(
    st.none(),
    st.just(UTC),
    st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m))),
)


def _stamp(moment: datetime, zulu: bool) -> str:
    written = moment.isoformat()
    return written.replace("+00:00", "Z") if zulu else written


timestamps = st.one_of(
    st.builds(_stamp, st.datetimes(timezones=zones), st.booleans()),
    st.sampled_from(
        [
            "0001-01-01T00:00:00Z",
            "0001-01-01T00:00:00+05:00",
            "0001-01-01T00:00:00-05:00",
            "9999-12-31T23:59:59-05:00",
            "9999-12-31T23:59:59+05:00",
            "2026-02-30T00:00:00Z",
            "2026-06-09T15:13:23",
            "2026-06-09T15:13:23.123456789Z",
            "2026-06-09 15:13:23+00:00",
            "2026-06-09",
            "1718000000",
            "",
            "now",
        ]
    ),
    st.integers(),
    st.floats(),
)


def deep(depth: int, kind: str) -> Any:
    """A value nested `depth` levels deep in lists or objects."""
    value: Any = "leaf"
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


def encode(doc: Any, ascii_only: bool) -> bytes:
    """JSON as a sender might write it: escaped (`\\ud800`) or raw, where a lone surrogate becomes
    bytes that are not UTF-8."""
    if ascii_only:
        return json.dumps(doc, ensure_ascii=True).encode()
    return json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")


# -- the store -------------------------------------------------------------------------------------
def snapshot(db: Database) -> dict[str, object]:
    """Row counts of every table and a digest of every row: any write shows up as a difference."""
    state: dict[str, object] = {}
    with db.reader() as session:
        for table in Base.metadata.sorted_tables:
            state[table.name] = int(session.scalar(select(func.count()).select_from(table)) or 0)
            rows = session.execute(select(table).order_by(*table.primary_key.columns)).all()
            state[f"{table.name}#"] = hashlib.sha256(repr(rows).encode()).hexdigest()
    return state


@dataclass
class Served:
    """The app on loopback (no worker: only the fuzzed requests write) and its database."""

    client: httpx.Client
    db: Database
    deps: Deps


CONFIG = BotConfig(
    services=[Service(name="llama-chat", namespace="llm-serving", model="llama", responders=["U0RESPOND1"])],
    responders=["S0ONCALL"],
    approvers=["U0APPROVE"],
)


@contextmanager
def serve(request: pytest.FixtureRequest, tmp: Path) -> Iterator[Served]:
    """Serve the app on an empty database of `request.param` (sqlite, or the session's PostgreSQL)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp / 'fuzz.db'}"
    else:
        server: LocalPostgres = request.getfixturevalue("postgres")
        url = server.create_database()
    deps = build_deps(make_settings(url), config=CONFIG)
    deps.db.upgrade()
    try:
        with (
            serve_in_thread(build_app(deps, run_worker=False)) as base,
            httpx.Client(base_url=base, timeout=30) as client,
        ):
            yield Served(client, deps.db, deps)
    finally:
        deps.close()


def refusal(response: httpx.Response) -> str:
    """The reason a 4xx gives, as JSON `{"error": ...}`; fails when there is none."""
    body = response.json()
    assert isinstance(body, dict) and isinstance(body.get("error"), str), response.text
    assert body["error"].strip(), response.text
    return str(body["error"])
