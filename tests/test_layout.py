"""The shape the code keeps: the sandbox is a leaf the server never loads, tools know nothing of the
bot, modules stay small, and modules share only public names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SHIPPED = sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "tools").rglob("*.py")])
MAX_LINES = 400


def imports(path: Path) -> list[ast.ImportFrom | ast.Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def test_the_server_loads_no_sandbox_module() -> None:
    """Production imports none of the stand-ins: `serve` pulls in the server, the API and the worker."""
    probe = (
        "import sys, bot.server, bot.deps, bot.cli\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('bot.sandbox'))\n"
        "print(','.join(loaded))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == ""


def test_only_entry_points_import_the_sandbox() -> None:
    """The sandbox imports the bot, never the other way: only the CLI (inside its commands) and the
    demo, an entry point on the sandbox that only the CLI imports, reach in."""
    offenders = []
    for path in SHIPPED:
        relative = path.relative_to(ROOT)
        if relative.parts[:2] in (("bot", "sandbox"), ("bot", "cli"), ("bot", "demo")):
            continue
        for node in imports(path):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            offenders += [f"{relative}: {n}" for n in names if n.startswith(("bot.sandbox", "bot.demo"))]
    assert offenders == []


def test_tools_import_nothing_from_the_bot() -> None:
    offenders = []
    for path in (ROOT / "tools").rglob("*.py"):
        for node in imports(path):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            offenders += [f"{path.name}: {n}" for n in names if n == "bot" or n.startswith("bot.")]
    assert offenders == []


def test_every_shipped_module_is_small() -> None:
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in SHIPPED}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_modules_share_only_public_names() -> None:
    """A name starting with `_` is its module's own; importing it from elsewhere couples the two."""
    offenders = []
    for path in [*SHIPPED, *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]:
        for node in imports(path):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("bot", "tools", "tests")):
                offenders += [
                    f"{path.relative_to(ROOT)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert offenders == []
