"""A real Alertmanager (Debian's prometheus-alertmanager) on loopback, pointed at the bot."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import yaml

from bot.sandbox.server import free_port


def binary() -> str:
    found = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    if found is None:
        raise RuntimeError("Alertmanager not found: apt-get install prometheus-alertmanager")
    return found


@contextmanager
def running_alertmanager(webhook_url: str, token: str) -> Iterator[str]:
    """Start Alertmanager routing every alert to `webhook_url` with a bearer token; yield its URL."""
    root = Path(tempfile.mkdtemp(prefix="incident-bot-am-"))
    config = {
        "route": {
            "receiver": "incident-bot",
            "group_by": ["alertname", "service"],
            "group_wait": "1s",
            "group_interval": "1s",
            "repeat_interval": "1h",
        },
        "receivers": [
            {
                "name": "incident-bot",
                "webhook_configs": [
                    {
                        "url": webhook_url,
                        "send_resolved": True,
                        "http_config": {"authorization": {"type": "Bearer", "credentials": token}},
                    }
                ],
            }
        ],
    }
    (root / "am.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = (root / "am.log").open("w")
    proc = subprocess.Popen(
        [
            binary(),
            f"--config.file={root / 'am.yml'}",
            f"--storage.path={root / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--cluster.listen-address=",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/-/ready", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Alertmanager did not start:\n" + (root / "am.log").read_text()[-2000:])
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(root, ignore_errors=True)
