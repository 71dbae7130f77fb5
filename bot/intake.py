"""Alertmanager notification → alerts → incident, idempotently.

One active incident per alert group (`groupKey`), guaranteed by a partial unique index; alerts
are deduplicated by fingerprint within the incident. Repeats of an unchanged alert only bump its
counters; a new alert, a resolution and a re-fire each write a timeline event. A notification
whose alerts are all resolved never opens an incident. Opening and every timeline event go
through `bot.lifecycle`, which queues the slow follow-up (announcement, triage) in the same
transaction, so an incident is never opened without its jobs.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.alertmanager import MODEL_LABELS, SERVICE_LABELS, UNNAMED_ALERT, WebhookAlert, WebhookPayload
from bot.clock import Clock, utc_now
from bot.config import BotConfig
from bot.domain import AlertStatus, EventKind, IncidentStatus, IntakeOutcome, IntakeResult
from bot.lifecycle import Lifecycle
from bot.promql import alert_namespace
from bot.store.db import Database
from bot.store.models import AlertRow, IncidentRow
from bot.store.upsert import insert_for

NAME_MAX = 200  # the name columns' length (String(200)): PostgreSQL refuses longer; the labels keep all


def _cut(value: str | None) -> str | None:
    return value[:NAME_MAX] if value is not None else None


class Intake:
    """Records notifications; `on_queued` is called after a commit that queued jobs (a new incident)."""

    def __init__(
        self,
        db: Database,
        config: BotConfig,
        lifecycle: Lifecycle,
        *,
        clock: Clock = utc_now,
        on_queued: Callable[[], None] | None = None,
    ) -> None:
        self._db = db
        self._config = config
        self._lifecycle = lifecycle
        self._clock = clock
        self._on_queued = on_queued

    def ingest(self, payload: WebhookPayload) -> IntakeResult:
        now = self._clock()
        with self._db.transaction() as session:
            incident_id, opened = self._incident_for(session, payload, now)
            if incident_id is None:
                return IntakeResult(
                    outcome=IntakeOutcome.IGNORED,
                    incident_id=None,
                    new_alerts=0,
                    updated_alerts=0,
                    reason="every alert is resolved and no incident is open for this group",
                )
            new = updated = 0
            for alert in payload.alerts:
                if self._record_alert(session, incident_id, alert, now):
                    new += 1
                else:
                    updated += 1
            if payload.truncatedAlerts:
                self._lifecycle.alerts_truncated(session, incident_id, payload.truncatedAlerts, now=now)
            all_resolved = not opened and self._all_resolved(session, incident_id, payload, now)
        if (opened or all_resolved) and self._on_queued is not None:
            self._on_queued()
        return IntakeResult(
            outcome=IntakeOutcome.OPENED if opened else IntakeOutcome.ATTACHED,
            incident_id=incident_id,
            new_alerts=new,
            updated_alerts=updated,
        )

    def _all_resolved(
        self, session: Session, incident_id: int, payload: WebhookPayload, now: datetime
    ) -> bool:
        """After a resolved notification: when no alert of the incident fires any more, say so."""
        if not any(a.status is AlertStatus.RESOLVED for a in payload.alerts):
            return False
        ends = session.execute(
            select(
                func.count().filter(AlertRow.status == AlertStatus.FIRING.value), func.max(AlertRow.ends_at)
            ).where(AlertRow.incident_id == incident_id)
        ).one()
        if ends[0]:
            return False
        row = session.get(IncidentRow, incident_id)
        assert row is not None
        stamp = ends[1].isoformat() if ends[1] else now.isoformat()
        self._lifecycle.alerts_resolved(session, row, now=now, stamp=stamp)
        return True

    # -- incident ------------------------------------------------------------------------------
    def _incident_for(
        self, session: Session, payload: WebhookPayload, now: datetime
    ) -> tuple[int | None, bool]:
        existing = self._active_incident(session, payload.group_hash)
        if existing is not None:
            return existing, False
        firing = [a for a in payload.alerts if a.status is AlertStatus.FIRING]
        if not firing:
            return None, False
        values = self._new_incident_values(payload, firing, now)
        created = self._lifecycle.open_from_group(session, values, group_labels=payload.groupLabels)
        if created is None:  # a concurrent notification of the same group won the race
            return self._active_incident(session, payload.group_hash), False
        return created, True

    @staticmethod
    def _active_incident(session: Session, group_hash: str) -> int | None:
        return session.scalar(
            select(IncidentRow.id).where(
                IncidentRow.group_hash == group_hash, IncidentRow.status != IncidentStatus.RESOLVED.value
            )
        )

    def _new_incident_values(
        self, payload: WebhookPayload, firing: list[WebhookAlert], now: datetime
    ) -> dict[str, object]:
        first = firing[0]
        service = payload.label(*SERVICE_LABELS)
        configured = self._config.service(service)
        alertname = payload.label("alertname") or first.alertname
        summary = payload.commonAnnotations.get("summary") or first.annotations.get("summary")
        title = summary or (f"{alertname} on {service}" if service else alertname)
        labels = dict(payload.commonLabels or first.labels)
        return {
            "title": title[:500],
            "status": IncidentStatus.OPEN.value,
            "severity": self._config.severity_for(payload.label("severity")).value,
            "group_key": payload.groupKey,
            "group_hash": payload.group_hash,
            "receiver": payload.receiver[:NAME_MAX],
            "service": _cut(service),
            "model": _cut(payload.label(*MODEL_LABELS) or (configured.model if configured else None)),
            "namespace": _cut(
                alert_namespace({**first.labels, **labels}, [a.query for a in payload.alerts])
                or (configured.namespace if configured else None)
            ),
            "alertname": alertname[:NAME_MAX],
            "query": first.query,
            "value": first.value(self._config.value_annotations),
            "labels": labels,
            "started_at": min(a.startsAt for a in firing),
            "opened_at": now,
        }

    # -- alerts --------------------------------------------------------------------------------
    def _record_alert(self, session: Session, incident_id: int, alert: WebhookAlert, now: datetime) -> bool:
        """Insert or update one alert; True when it is new to the incident."""
        values = {
            "status": alert.status.value,
            "labels": alert.labels,
            "annotations": alert.annotations,
            "starts_at": alert.startsAt,
            "ends_at": alert.ended_at,
            "generator_url": alert.generatorURL,
            "query": alert.query,
            "value": alert.value(self._config.value_annotations),
        }
        stmt = (
            insert_for(session, AlertRow)
            .values(
                incident_id=incident_id,
                fingerprint=alert.fingerprint,
                alertname=alert.alertname[:NAME_MAX],
                first_received_at=now,
                last_received_at=now,
                notifications=1,
                **values,
            )
            .on_conflict_do_nothing(index_elements=["incident_id", "fingerprint"])
            .returning(AlertRow.id)
        )
        data = {"fingerprint": alert.fingerprint, "value": values["value"]}
        resolved = alert.status is AlertStatus.RESOLVED
        if session.execute(stmt).scalar_one_or_none() is not None:
            text = _describe(alert, "resolved" if resolved else "firing")
            self._lifecycle.alert_changed(
                session, incident_id, now=now, resolved=resolved, text=text, data=data
            )
            if alert.unnamed:
                self._lifecycle.event(
                    session, incident_id, now, "alertmanager", EventKind.NOTE, *_unnamed(alert)
                )
            return True
        row = session.scalars(
            select(AlertRow)
            .where(AlertRow.incident_id == incident_id, AlertRow.fingerprint == alert.fingerprint)
            .with_for_update()
        ).one()
        previous = row.status
        for key, value in values.items():
            setattr(row, key, value)
        row.last_received_at = now
        row.notifications += 1
        if previous != alert.status.value:
            text = _describe(alert, "resolved" if resolved else "firing again")
            self._lifecycle.alert_changed(
                session, incident_id, now=now, resolved=resolved, text=text, data=data
            )
        return False


def _unnamed(alert: WebhookAlert) -> tuple[str, dict[str, object]]:
    """The note for an alert kept under the placeholder name, since it came without one."""
    text = (
        f"alert {alert.fingerprint} came without an alertname label and is recorded as {UNNAMED_ALERT} "
        f"(its labels: {', '.join(sorted(alert.labels)) or 'none'}): runbooks and dashboards matched by "
        "name will not apply"
    )
    return text, {"unnamed_alert": alert.fingerprint}


def _describe(alert: WebhookAlert, what: str) -> str:
    scope = ", ".join(f"{k}={alert.labels[k]}" for k in ("service", "pod", "node") if k in alert.labels)
    return f"{alert.alertname} {what}" + (f" ({scope})" if scope else "")
