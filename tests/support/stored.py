"""A pack's alert as the triage receives it: stored by the real intake, read back as a request."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from bot.config import BotConfig
from bot.deps import build_services
from bot.sandbox.pack import Pack
from bot.settings import Settings
from bot.store.db import create_database
from bot.triage.request import TriageRequest


def stored_request(pack: Pack, folder: Path, *, as_of: datetime | None = None) -> TriageRequest:
    """Intake stores the pack's alert in a throwaway SQLite file; the incident comes back as a request."""
    settings = Settings.model_validate({"database_url": f"sqlite:///{folder / 'intake.db'}"})
    db = create_database(settings.database_url, pool_size=2)
    db.upgrade()
    services = build_services(settings, config=BotConfig(), db=db)
    opened = services.intake.ingest(pack.alert)
    assert opened.incident_id is not None
    detail = services.incidents.get(opened.incident_id)
    db.dispose()
    return TriageRequest(incident=detail.incident, alerts=detail.alerts, as_of=as_of or pack.meta.as_of)
