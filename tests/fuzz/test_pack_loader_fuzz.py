"""The scenario pack loader under fuzzed files: a real pack with one file truncated, replaced by
random bytes, retyped, stripped of a field, given bad dates or bad OpenMetrics lines, or removed.
`load_pack` returns a Pack or raises PackError naming that file, never another exception; the CLI
reports a broken pack in one line, without a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from bot.errors import BotError
from bot.sandbox.pack import Pack, PackError, load_pack
from tests.conftest import ROOT
from tests.fuzz.mutations import RAN, counted, fuzz, json_value, odd_text, timestamps

# Each test runs its cases against a live app; on a loaded machine that takes longer than most.
pytestmark = pytest.mark.timeout(300)

SOURCE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"
FILES = ["scenario.yaml", "alert.json", "metrics.om", "logs.ndjson", "k8s.yaml", "gpus.json", "expected.yaml"]
KEEP_LINES = 40  # of metrics.om and logs.ndjson: the pack stays real, each load stays fast


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of a real pack, its two large files cut to their first lines (still a valid pack)."""
    root = tmp_path_factory.mktemp("fuzz") / "pack"
    shutil.copytree(SOURCE, root)
    metrics = [line for line in (root / "metrics.om").read_text().splitlines() if line != "# EOF"]
    (root / "metrics.om").write_text("\n".join([*metrics[:KEEP_LINES], "# EOF"]) + "\n")
    logs = (root / "logs.ndjson").read_text().splitlines()
    (root / "logs.ndjson").write_text("\n".join(logs[:KEEP_LINES]) + "\n")
    assert isinstance(load_pack(root), Pack)
    return root


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in items:
        yield (*path, key)
        yield from _paths(child, (*path, key))


def _structured(draw: st.DrawFn, name: str, original: str) -> bytes:
    """The file parsed, one value dropped, retyped or given an odd date, and written back."""
    many = name == "k8s.yaml"
    doc: Any = json.loads(original) if name.endswith(".json") else list(yaml.safe_load_all(original))
    if not many and not name.endswith(".json"):
        doc = doc[0]
    paths = list(_paths(doc))
    if paths:
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        how = draw(st.sampled_from(["drop", "retype", "date", "text"]))
        if how == "drop":
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw({"retype": json_value, "date": timestamps, "text": odd_text}[how])
    else:
        doc = draw(json_value)
    if name.endswith(".json"):
        return json.dumps(doc, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    unicode = draw(st.booleans())
    if many and isinstance(doc, list):
        return yaml.safe_dump_all(doc, allow_unicode=unicode).encode("utf-8", "surrogatepass")
    return yaml.safe_dump(doc, allow_unicode=unicode).encode("utf-8", "surrogatepass")


def _lines(draw: st.DrawFn, name: str, original: str) -> bytes:
    """metrics.om or logs.ndjson with an odd line put in, or its `# EOF` taken away."""
    lines = original.splitlines()
    if name == "metrics.om" and draw(st.booleans()):
        return "\n".join(line for line in lines if line != "# EOF").encode()
    if name == "metrics.om":
        odd = draw(
            st.one_of(
                odd_text,
                st.sampled_from(
                    ['up{job="x"}', 'up{job="x} 1', "up 1 2 3", "9up 1", 'up{="x"} 1', "up{job='x'} 1"]
                ),
            )
        )
    else:
        stamp = draw(timestamps)
        odd = draw(
            st.one_of(
                st.builds(lambda v: json.dumps(v), json_value),
                st.builds(lambda m: json.dumps({"@timestamp": stamp, "message": m}), odd_text),
                st.just(json.dumps({"message": "no time"})),
                odd_text,
            )
        )
    lines.insert(draw(st.integers(0, len(lines))), odd)
    return "\n".join(lines).encode("utf-8", "surrogatepass")


class Originals(dict[str, bytes]):
    """The pack's files as they were (a short repr: Hypothesis prints the strategy's arguments)."""

    def __repr__(self) -> str:
        return f"Originals({sorted(self)})"


@st.composite
def damage(draw: st.DrawFn, originals: Originals) -> tuple[str, bytes | None]:
    """Which file to damage and its new bytes (None: removed; b"/": made a directory)."""
    name = draw(st.sampled_from(FILES))
    original = originals[name]
    how = draw(st.sampled_from(["truncate", "bytes", "splice", "remove", "dir", "edit", "edit", "edit"]))
    if how == "truncate":
        return name, original[: draw(st.integers(0, len(original) - 1))]
    if how == "bytes":
        return name, draw(st.binary(max_size=300))
    if how == "splice":
        at = draw(st.integers(0, len(original)))
        return name, original[:at] + draw(st.binary(min_size=1, max_size=6)) + original[at:]
    if how == "remove":
        return name, None
    if how == "dir":
        return name, b"/"
    text = original.decode()
    if name in ("metrics.om", "logs.ndjson"):
        return name, _lines(draw, name, text)
    return name, _structured(draw, name, text)


def put(path: Path, content: bytes | None) -> None:
    if path.is_dir():
        path.rmdir()
    elif path.exists():
        path.unlink()
    if content == b"/":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)


def test_a_damaged_pack_loads_or_fails_naming_its_file(pack: Path) -> None:
    """Any other exception type, or a message without the damaged file's name, fails."""
    originals = Originals({name: (pack / name).read_bytes() for name in FILES})

    @fuzz(200)
    @given(change=damage(originals))
    @example(change=("scenario.yaml", b"name: x\nas_of: 0001-01-01T00:00:00+05:00\nnamespace: n\n"))
    @example(change=("scenario.yaml", b"name: x\nas_of: 2026-13-45T00:00:00Z\nnamespace: n\n"))
    @example(change=("metrics.om", b"up 1\n\xff\xfe\n# EOF\n"))
    @example(change=("k8s.yaml", b"apiVersion: v1\nkind: Pod\nmetadata: [a]\n"))
    @example(change=("k8s.yaml", b"kind: List\nitems: 3\n"))
    @example(change=("logs.ndjson", b'{"@timestamp": 1, "message": ' + b"9" * 5000 + b"}\n"))
    @example(change=("gpus.json", b"[" * 100_000))
    @example(change=("alert.json", b'{"version": "4", "alerts": [' * 2000))
    @example(change=("metrics.om", None))
    def check(change: tuple[str, bytes | None]) -> None:
        RAN["pack"] += 1
        name, content = change
        try:
            put(pack / name, content)
            try:
                loaded = load_pack(pack)
            except PackError as exc:
                assert isinstance(exc, BotError)
                assert name in exc.message, (name, exc.message)
            else:
                assert isinstance(loaded, Pack)
        finally:
            put(pack / name, originals[name])

    with counted("pack", 200):
        check()


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    RAN["pack-cli"] += 1
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("file", "content"),
    [("scenario.yaml", b"name: [unclosed\n"), ("alert.json", b'{"version": "4", "alerts": [' * 2000)],
)
def test_the_cli_reports_a_broken_pack_in_one_line(
    pack: Path, tmp_path: Path, file: str, content: bytes
) -> None:
    """`sandbox validate` exits 1 with one FAIL line naming the file; `eval` (which exits 0 and
    scores every pack) gives the pack one `error:` row naming it. No traceback from either."""
    broken = tmp_path / "packs" / "broken"
    shutil.copytree(pack, broken)
    (broken / file).write_bytes(content)
    checked = cli("sandbox", "validate", str(broken), cwd=tmp_path)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "Traceback" not in checked.stdout + checked.stderr, checked.stderr
    said = [line for line in checked.stdout.splitlines() if line.strip()]
    assert len(said) == 1 and said[0].startswith("FAIL") and f"broken/{file}:" in said[0], checked.stdout
    scored = cli("eval", str(broken.parent), cwd=tmp_path)
    assert "Traceback" not in scored.stdout + scored.stderr, scored.stderr
    rows = [line for line in scored.stdout.splitlines() if "error:" in line]
    assert len(rows) == 1 and f"broken/{file}:" in rows[0], scored.stdout
    assert scored.stdout.splitlines()[-1].startswith("total"), scored.stdout
