"""Running the demo in a test: one session in this process, its terminal output in a string, and
the sandbox's cluster read back with the real kubectl."""

from __future__ import annotations

import io
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from bot.demo.session import DemoSession
from bot.demo.terminal import Summary, TerminalDemo
from bot.sandbox.pack import Pack
from bot.settings import Settings


@dataclass
class Run:
    summary: Summary
    output: str


def run_terminal(session: DemoSession, out_dir: Path, *, approve: bool = True, undo: bool = False) -> Run:
    """The terminal demo on a started session, answering its two questions with `approve`, `undo`."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None)
    demo = TerminalDemo(session, console, out_dir=out_dir, approve=lambda _: approve, undo=lambda _: undo)
    summary = demo.run()
    return Run(summary, buffer.getvalue())


def quiet(**values: Any) -> Settings:
    """The settings a demo process gets from a bare environment, with `values` set."""
    return Settings.model_validate({"log_level": "WARNING", **values})


def kubectl_get(kubeconfig: str, target: str, namespace: str) -> dict[str, Any] | None:
    """`kubectl get <kind>/<name> -o json`; None when the object is gone. Its discovery cache
    goes beside the sandbox's kubeconfig, which is removed with the sandbox."""
    cache = str(Path(kubeconfig).parent / "cache")
    done = subprocess.run(
        ["kubectl", "get", target, "-n", namespace, "-o", "json", "--cache-dir", cache],
        env={"KUBECONFIG": kubeconfig, "PATH": "/usr/bin:/bin:/usr/local/bin"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if done.returncode != 0:
        assert "NotFound" in done.stderr, done.stderr
        return None
    return dict(json.loads(done.stdout))


def original(pack: Pack, target: str) -> dict[str, Any]:
    """The object as the pack's k8s.yaml records it, before anything ran."""
    kind, _, name = target.partition("/")
    for obj in pack.objects:
        if str(obj.get("kind", "")).lower() == kind and obj.get("metadata", {}).get("name") == name:
            return obj
    raise AssertionError(f"{target} is not in the pack")
