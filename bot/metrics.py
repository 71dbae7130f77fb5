"""Prometheus metrics of the bot itself, on a registry per application instance."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from bot import jobs
from bot.store.db import Database


class QueueDepthCollector(Collector):
    """Reads the job queue's depth from the database at scrape time (shared by all replicas)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "incident_bot_job_queue_depth", "Jobs in the queue by status", labels=["status"]
        )
        try:
            with self._db.reader() as session:
                counts = jobs.depth(session)
        except Exception:
            return
        for status, count in counts.items():
            family.add_metric([status], count)
        yield family


class Metrics:
    """The counters and histograms the server updates."""

    def __init__(self, db: Database) -> None:
        self.registry = CollectorRegistry()
        self.alerts_received = Counter(
            "incident_bot_alerts_received",
            "Alerts received from Alertmanager",
            ["status"],
            registry=self.registry,
        )
        self.webhooks = Counter(
            "incident_bot_webhooks", "Webhook requests by outcome", ["outcome"], registry=self.registry
        )
        self.incidents_opened = Counter(
            "incident_bot_incidents_opened", "Incidents opened from alert groups", registry=self.registry
        )
        self.webhook_latency = Histogram(
            "incident_bot_webhook_duration_seconds",
            "Time to answer an Alertmanager webhook",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.registry.register(QueueDepthCollector(db))
