"""The pack loader: valid packs load; each kind of mistake names its file, line and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.sandbox.pack import PackError, load_pack
from tests.conftest import ROOT

EXAMPLE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"
NODE = "aks-gpua100-28391047-vmss000002"


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    target = tmp_path / "pack"
    shutil.copytree(EXAMPLE, target)
    return target


def test_example_pack_loads() -> None:
    loaded = load_pack(EXAMPLE)
    assert loaded.name == "kv-cache-preemption-traffic-surge"
    assert loaded.meta.as_of.isoformat() == "2026-06-16T19:05:00+00:00"
    assert loaded.alert.groupKey.startswith("{}/{severity=")
    assert {o["kind"] for o in loaded.objects} >= {"Deployment", "ReplicaSet", "Pod", "Node", "HTTPRoute"}
    assert loaded.gpus[NODE][0].utilization_gpu == 98
    assert loaded.expected is not None and loaded.expected.code == "ENG_KV_CACHE"
    assert len(loaded.logs) == 378 and loaded.metrics is not None
    assert loaded.files == {"metrics.om", "logs.ndjson", "k8s.yaml", "gpus.json", "expected.yaml"}


def test_unknown_fields_are_ignored(pack: Path) -> None:
    (pack / "scenario.yaml").write_text((pack / "scenario.yaml").read_text() + "future_field: {x: 1}\n")
    gpus = json.loads((pack / "gpus.json").read_text())
    gpus["nodes"][NODE][0]["nvlink_errors"] = 0
    gpus["collector"] = "dcgm"
    (pack / "gpus.json").write_text(json.dumps(gpus, indent=2))
    assert load_pack(pack).name == "kv-cache-preemption-traffic-surge"


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "scenario.yaml",
            "as_of: '2026-06-16T19:05:00Z'",
            "as_of: '2026-06-16T19:05:00'",
            "scenario.yaml:2: as_of",
        ),
        ("scenario.yaml", "name: kv-cache", "name: KV_cache", "scenario.yaml:1: name"),
        (
            "alert.json",
            '"version": "4"',
            '"version": "3"',
            "alert.json:46: not an Alertmanager v4 payload: version",
        ),
        (
            "alert.json",
            '"receiver": "incident-bot",',
            '"receiver": "incident-bot"',
            "alert.json:3: body is not valid JSON",
        ),
        (
            "expected.yaml",
            "kind: add_replica",
            "kind: delete_deployment",
            "expected.yaml:4: acceptable_first_actions[0].kind",
        ),
        ("expected.yaml", "code: ENG_KV_CACHE", "code: kv cache", "expected.yaml:2: code"),
        (
            "expected.yaml",
            "code: ENG_KV_CACHE",
            "code: ENG_KV_CACHED",
            "expected.yaml:2: code: 'ENG_KV_CACHED' is not a taxonomy code (did you mean 'ENG_KV_CACHE'?)",
        ),
        (
            "gpus.json",
            '"utilization_gpu": 98',
            '"utilization_gpu": 198',
            f"gpus.json:10: nodes.{NODE}[0].utilization_gpu",
        ),
        ("k8s.yaml", "kind: Deployment", "kind: ''", "k8s.yaml:1: kind: missing"),
    ],
)
def test_mistakes_name_file_line_and_field(pack: Path, file: str, old: str, new: str, expected: str) -> None:
    replace(pack / file, old, new)
    with pytest.raises(PackError) as info:
        load_pack(pack)
    assert expected in info.value.message


def test_bad_log_line_names_its_line(pack: Path) -> None:
    lines = (pack / "logs.ndjson").read_text().splitlines()
    lines[6] = '{"message": "no timestamp"}'
    (pack / "logs.ndjson").write_text("\n".join(lines) + "\n")
    with pytest.raises(PackError, match=r"logs\.ndjson:7: @timestamp: missing"):
        load_pack(pack)


def test_metrics_must_be_openmetrics(pack: Path) -> None:
    metrics = pack / "metrics.om"
    lines = metrics.read_text().splitlines()
    (pack / "metrics.om").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(PackError, match=r"must end with '# EOF'"):
        load_pack(pack)
    lines[3] = "vllm:num_requests_running{pod=unquoted} 1 1781633160"
    metrics.write_text("\n".join(lines) + "\n")
    with pytest.raises(PackError, match=r"metrics\.om:4: not an OpenMetrics sample"):
        load_pack(pack)


def test_required_files(pack: Path, tmp_path: Path) -> None:
    (pack / "alert.json").unlink()
    with pytest.raises(PackError, match=r"alert\.json: missing"):
        load_pack(pack)
    with pytest.raises(PackError, match="not a directory"):
        load_pack(tmp_path / "nowhere")


def test_optional_files_may_be_absent(pack: Path) -> None:
    for name in ("metrics.om", "logs.ndjson", "k8s.yaml", "gpus.json", "expected.yaml"):
        (pack / name).unlink()
    loaded = load_pack(pack)
    assert loaded.metrics is None and loaded.logs == [] and loaded.objects == [] and loaded.gpus == {}
    assert loaded.expected is None


def test_every_shipped_pack_validates(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2] / "scenarios"
    packs = sorted(p for p in root.iterdir() if (p / "scenario.yaml").exists())
    assert len(packs) >= 12
    done = subprocess.run(
        [sys.executable, "-m", "bot", "sandbox", "validate", *map(str, packs)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("\nok   ") + done.stdout.startswith("ok   ") == len(packs)
    broken = tmp_path / "broken"
    shutil.copytree(EXAMPLE, broken)
    (broken / "alert.json").write_text("{")
    bad = subprocess.run(
        [sys.executable, "-m", "bot", "sandbox", "validate", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and "FAIL" in bad.stdout and "alert.json:1" in bad.stdout
