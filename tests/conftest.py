"""Fixtures: a real PostgreSQL for the session, a fresh database per test, the live app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from bot.config import BotConfig, Dashboard, Service
from bot.deps import Deps, build_deps
from bot.server import build_app
from bot.settings import Settings
from tests.support.live import serve_in_thread
from tests.support.localpg import LocalPostgres

ALERTMANAGER_TOKEN = "am-test-token"
API_TOKEN = "api-test-token"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def postgres() -> Iterator[LocalPostgres]:
    """One real PostgreSQL server for the whole run (missing binaries fail, never skip)."""
    with LocalPostgres() as server:
        yield server


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database of each supported kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'bot.db'}"
    server: LocalPostgres = request.getfixturevalue("postgres")
    return server.create_database()


@pytest.fixture
def config() -> BotConfig:
    return BotConfig(
        services=[
            Service(
                name="llama-chat",
                namespace="llm-serving",
                model="llama",
                responders=["U0RESPOND1"],
                dashboards=[
                    Dashboard(
                        title="vLLM",
                        url="https://grafana.example/d/vllm?var-ns={namespace}&from={from_ms}&to={to_ms}",
                    )
                ],
            )
        ],
        responders=["S0ONCALL"],
        approvers=["U0APPROVE"],
    )


def make_settings(database_url: str, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": database_url,
        "alertmanager_token": SecretStr(ALERTMANAGER_TOKEN),
        "api_token": SecretStr(API_TOKEN),
        "worker_threads": 1,
        "worker_poll_seconds": 0.05,
        "db_pool_size": 10,
    }
    values.update(overrides)
    return Settings.model_validate(values)


@pytest.fixture
def deps(database_url: str, config: BotConfig) -> Iterator[Deps]:
    built = build_deps(make_settings(database_url), config=config)
    built.db.upgrade()
    yield built
    built.close()


@pytest.fixture
def live(deps: Deps) -> Iterator[str]:
    """Base URL of the app serving on loopback, worker included."""
    with serve_in_thread(build_app(deps)) as url:
        yield url


@pytest.fixture
def client(live: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live, timeout=10) as c:
        yield c


def am_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {ALERTMANAGER_TOKEN}", "Content-Type": "application/json"}


def api_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {API_TOKEN}"}
