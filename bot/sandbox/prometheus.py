"""A real Prometheus serving a pack's metrics: backfilled with promtool, started on loopback.

Debian's `prometheus` package provides both binaries. Retention is set far beyond the samples'
age so the TSDB never drops the recorded incident, whatever today's date.
"""

from __future__ import annotations

import contextlib
import ctypes
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import httpx

from bot.errors import BotError
from bot.sandbox.server import free_port

RETENTION = "100y"
PR_SET_PDEATHSIG = 1


class PrometheusError(BotError):
    """Prometheus or promtool is missing, or the metrics could not be loaded or served."""


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise PrometheusError(f"{name} not found: apt-get install prometheus")
    return found


def _die_with_parent() -> None:
    """Linux: have the kernel stop Prometheus when the process that started it dies, even by
    SIGKILL, so a killed test run or sandbox never leaves a server behind. (The signal follows the
    starting *thread*: start the runner from a thread that outlives it, as every caller here does.)"""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def backfill(metrics: Path, data: Path) -> None:
    """Turn the pack's OpenMetrics into TSDB blocks with promtool, as Prometheus would read them."""
    result = subprocess.run(
        [_binary("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(metrics), str(data)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip()[-1500:]
        raise PrometheusError(f"{metrics}: promtool could not backfill it: {detail}")


def check_metrics(metrics: Path) -> None:
    """Fail as the sandbox would on metrics promtool cannot load (`sandbox validate` agrees with `eval`)."""
    with tempfile.TemporaryDirectory(prefix="incident-bot-check-") as folder:
        backfill(metrics, Path(folder) / "data")


class PrometheusRunner:
    """`with PrometheusRunner(pack.metrics) as prom: prom.url` — stopped and cleaned up on exit."""

    def __init__(self, metrics: Path, *, startup_timeout: float = 60.0) -> None:
        self.metrics = metrics
        self.startup_timeout = startup_timeout
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="incident-bot-prom-"))
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = self.root / "prometheus.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PrometheusRunner:
        try:
            self._backfill()
            self._launch()
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _backfill(self) -> None:
        backfill(self.metrics, self.root / "data")

    def _launch(self) -> None:
        config = self.root / "prometheus.yml"
        config.write_text("global:\n  scrape_interval: 1m\nscrape_configs: []\n")
        with self._log.open("wb") as log:
            self._proc = subprocess.Popen(
                [
                    _binary("prometheus"),
                    f"--config.file={config}",
                    f"--storage.tsdb.path={self.root / 'data'}",
                    f"--storage.tsdb.retention.time={RETENTION}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--web.enable-lifecycle",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        assert self._proc is not None
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise PrometheusError(f"prometheus exited ({self._proc.returncode}): {self._tail()}")
            try:
                if httpx.get(f"{self.url}/-/ready", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise PrometheusError(f"prometheus not ready after {self.startup_timeout:.0f} s: {self._tail()}")

    def _tail(self) -> str:
        return self._log.read_text(errors="replace")[-1500:] if self._log.exists() else ""

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        self._proc = None
        shutil.rmtree(self.root, ignore_errors=True)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def __enter__(self) -> PrometheusRunner:
        return self.start()

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()
