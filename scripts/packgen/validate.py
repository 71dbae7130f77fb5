"""Checks every written pack against the format and against itself.

- metrics.om loads with `promtool tsdb create-blocks-from openmetrics`;
- alert.json is an Alertmanager v4 webhook with every field, a 16-hex fingerprint, a generator URL
  whose `g0.expr` parses as PromQL (`promtool check rules`) and names only metrics of the pack;
- k8s.yaml is multi-document YAML of known kinds, Pods carry their ReplicaSet's hash, every node a
  pod runs on exists, expected targets exist;
- logs.ndjson is one ECS JSON document per line, every `@timestamp` inside the metrics range;
- scenario.yaml matches the folder, `as_of` is covered by the metrics, the alert starts before it;
- names (namespaces, deployments, nodes, services, models) are not shared between packs;
- the pack stays under ~3 MB; `bot.sandbox.pack.load_pack` accepts it when that module exists;
- with `--prometheus`: a real Prometheus on the pack's blocks finds the alert expression firing at
  the alert's start and at `as_of`, and not firing 20 minutes into the window (before the fault).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
KINDS = {"Node", "Pod", "Deployment", "ReplicaSet", "Event", "Service", "HTTPRoute", "ConfigMap"}
KINDS |= {"Ingress", "ServiceEntry", "VirtualService", "DestinationRule"}  # ingress-nginx and Istio packs
CATEGORIES = {"infrastructure", "model_config", "inference_engine", "operational"}
CODES = {
    "INF_GPU_OOM",
    "INF_GPU_XID",
    "INF_CUDA_ERROR",
    "INF_NCCL",
    "INF_NODE_NOT_READY",
    "INF_POD_EVICTED",
    "INF_OOM_KILLED",
    "INF_SCHEDULING",
    "INF_DISK",
    "INF_IMAGE_PULL",
    "INF_GPU_OVERLOAD",
    "DEP_EXTERNAL_TIMEOUT",
    "DEP_VECTOR_DB",
    "DEP_CACHE",
    "DEP_STORAGE",
    "MOD_LOAD_FAILED",
    "MOD_TOKENIZER",
    "MOD_OUTPUT_FORMAT",
    "MOD_NUMERIC",
    "MOD_CONFIG_MISMATCH",
    "MOD_QUALITY_REGRESSION",
    "ENG_KV_CACHE",
    "ENG_QUEUE_FULL",
    "ENG_CRASH",
    "ENG_TIMEOUT",
    "GW_UPSTREAM",
    "GW_TIMEOUT",
    "GW_RATE_LIMIT",
    "GW_ROUTING",
    "BIZ_INPUT_TOO_LONG",
    "BIZ_PARAM_INVALID",
    "BIZ_AUTH",
}
ACTIONS = {"reroute", "restart_pod", "cordon_node", "rollback_deployment", "add_replica"}
MAX_BYTES = 3_000_000
SELECTOR = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{")
WEBHOOK_FIELDS = (
    "version",
    "groupKey",
    "truncatedAlerts",
    "status",
    "receiver",
    "groupLabels",
    "commonLabels",
    "commonAnnotations",
    "externalURL",
    "alerts",
)
ALERT_FIELDS = ("status", "labels", "annotations", "startsAt", "endsAt", "generatorURL", "fingerprint")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


class Report:
    def __init__(self, name: str) -> None:
        self.name = name
        self.errors: list[str] = []
        self.notes: list[str] = []

    def fail(self, msg: str) -> None:
        self.errors.append(msg)

    def check(self, ok: bool, msg: str) -> None:
        if not ok:
            self.fail(msg)


def metric_range(path: Path) -> tuple[int, int, set[str]]:
    lo, hi, names = 1 << 62, 0, set()
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            name = line.split("{", 1)[0].split(" ", 1)[0]
            names.add(name)
            ts = int(line.rsplit(" ", 1)[1])
            lo, hi = min(lo, ts), max(hi, ts)
    return lo, hi, names


def check_promtool(rep: Report, pack: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run(
            ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(pack / "metrics.om"), tmp],
            capture_output=True,
            text=True,
            check=False,
        )
        rep.check(res.returncode == 0, f"promtool create-blocks failed: {res.stderr.strip()[-400:]}")


def alert_expr(alert: dict[str, Any]) -> str:
    url = alert["alerts"][0]["generatorURL"]
    query = urllib.parse.urlparse(url).query
    return urllib.parse.parse_qs(query)["g0.expr"][0]


def check_alert(
    rep: Report, pack: Path, names: set[str], lo: int, hi: int, as_of: datetime
) -> dict[str, Any]:
    alert = json.loads((pack / "alert.json").read_text())
    for key in WEBHOOK_FIELDS:
        rep.check(key in alert, f"alert.json: {key} missing")
    rep.check(alert.get("version") == "4", "alert.json: version must be '4'")
    rep.check(
        "summary" in alert.get("commonAnnotations", {}), "alert.json: commonAnnotations.summary missing"
    )
    rep.check("value" in alert.get("commonAnnotations", {}), "alert.json: commonAnnotations.value missing")
    for a in alert.get("alerts", []):
        for key in ALERT_FIELDS:
            rep.check(key in a, f"alert.json: alerts[].{key} missing")
        rep.check(bool(re.fullmatch(r"[0-9a-f]{16}", a.get("fingerprint", ""))), "fingerprint is not 16 hex")
        rep.check(a.get("endsAt") == "0001-01-01T00:00:00Z", "endsAt of a firing alert must be the zero time")
        starts = parse_time(a["startsAt"])
        rep.check(lo <= starts.timestamp() <= hi, "startsAt outside the metrics range")
        rep.check(starts < as_of, "startsAt must be before as_of")
    expr = alert_expr(alert)
    used = set(SELECTOR.findall(expr))
    rep.check(bool(used), "g0.expr names no metric selector")
    for name in used:
        rep.check(name in names, f"g0.expr uses {name}, which metrics.om does not contain")
    with tempfile.TemporaryDirectory() as tmp:
        rules = Path(tmp) / "rules.yaml"
        rules.write_text(
            yaml.safe_dump({"groups": [{"name": "pack", "rules": [{"alert": "X", "expr": expr}]}]})
        )
        res = subprocess.run(
            ["promtool", "check", "rules", str(rules)], capture_output=True, text=True, check=False
        )
        rep.check(
            res.returncode == 0, f"g0.expr is not valid PromQL: {res.stdout.strip()} {res.stderr.strip()}"
        )
    return alert


def check_objects(rep: Report, pack: Path) -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all((pack / "k8s.yaml").read_text()) if d]
    nodes = {d["metadata"]["name"] for d in docs if d.get("kind") == "Node"}
    rs = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ReplicaSet"}
    for d in docs:
        rep.check(d.get("kind") in KINDS, f"k8s.yaml: unexpected kind {d.get('kind')}")
        rep.check(
            bool(d.get("apiVersion")) and bool(d.get("metadata", {}).get("name")),
            "k8s.yaml: object without apiVersion/name",
        )
        if d.get("kind") == "Pod":
            name = d["metadata"]["name"]
            h = d["metadata"]["labels"].get("pod-template-hash")
            owner = d["metadata"]["ownerReferences"][0]["name"]
            rep.check(owner in rs, f"pod {name}: owner ReplicaSet {owner} not in k8s.yaml")
            rep.check(
                bool(h) and owner.endswith("-" + h) and name.startswith(owner + "-"),
                f"pod {name}: hash mismatch",
            )
            node = d["spec"].get("nodeName")
            rep.check(node is None or node in nodes, f"pod {name}: node {node} not in k8s.yaml")
        if d.get("kind") == "ReplicaSet":
            rep.check(
                "deployment.kubernetes.io/revision" in d["metadata"].get("annotations", {}),
                f"ReplicaSet {d['metadata']['name']}: no revision annotation",
            )
    return docs


def check_logs(rep: Report, pack: Path, lo: int, hi: int) -> list[dict[str, Any]]:
    docs = []
    for n, line in enumerate((pack / "logs.ndjson").read_text().splitlines(), 1):
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            rep.fail(f"logs.ndjson:{n}: not JSON: {exc}")
            continue
        for key in ("@timestamp", "message"):
            rep.check(key in d, f"logs.ndjson:{n}: {key} missing")
        ts = parse_time(d["@timestamp"]).timestamp()
        rep.check(lo <= ts <= hi, f"logs.ndjson:{n}: @timestamp {d['@timestamp']} outside the metrics range")
        docs.append(d)
    return docs


def check_expected(rep: Report, pack: Path, objects: list[dict[str, Any]]) -> dict[str, Any]:
    exp = yaml.safe_load((pack / "expected.yaml").read_text())
    rep.check(exp.get("category") in CATEGORIES, f"expected.yaml: category {exp.get('category')}")
    rep.check(exp.get("code") in CODES, f"expected.yaml: code {exp.get('code')}")
    have = {f"{d['kind'].lower()}/{d['metadata']['name']}" for d in objects}
    for action in exp.get("acceptable_first_actions", []):
        rep.check(action["kind"] in ACTIONS, f"expected.yaml: unknown action {action['kind']}")
        rep.check(action["target"] in have, f"expected.yaml: target {action['target']} not in k8s.yaml")
    return exp


def check_load_pack(rep: Report, pack: Path) -> None:
    if not (ROOT / "bot" / "sandbox" / "pack.py").exists():
        rep.notes.append("bot/sandbox/pack.py absent: load_pack not run")
        return
    code = "import sys; from bot.sandbox.pack import load_pack; load_pack(sys.argv[1])"
    res = subprocess.run(
        [sys.executable, "-c", code, str(pack)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    rep.check(res.returncode == 0, f"load_pack failed: {res.stderr.strip()[-600:]}")


def identities(objects: list[dict[str, Any]]) -> set[str]:
    out = set()
    for d in objects:
        kind = d["kind"]
        if kind in ("Node", "Deployment", "Service", "HTTPRoute"):
            out.add(f"{kind}/{d['metadata']['name']}")
        if "namespace" in d.get("metadata", {}) and kind != "Event":
            out.add(f"Namespace/{d['metadata']['namespace']}")
    return out


# -- Prometheus -------------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def query(port: int, expr: str, at: float) -> list[Any]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode(
        {"query": expr, "time": f"{at:.3f}"}
    )
    with urllib.request.urlopen(url, timeout=10) as resp:
        body = json.load(resp)
    return list(body["data"]["result"])


def check_prometheus(rep: Report, pack: Path, alert: dict[str, Any], lo: int, as_of: datetime) -> None:
    if shutil.which("prometheus") is None:
        rep.notes.append("prometheus binary absent: alert not evaluated")
        return
    expr = alert_expr(alert)
    starts = parse_time(alert["alerts"][0]["startsAt"])
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        res = subprocess.run(
            ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(pack / "metrics.om"), str(data)],
            capture_output=True,
            text=True,
            check=False,
        )
        if res.returncode:
            rep.fail("promtool failed; Prometheus check skipped")
            return
        config = Path(tmp) / "prometheus.yml"
        config.write_text("global: {scrape_interval: 1m}\n")
        port = free_port()
        proc = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={config}",
                f"--storage.tsdb.path={data}",
                "--storage.tsdb.retention.time=20y",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.time() + 30
            while time.time() < deadline:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=1) as r:
                        if r.status == 200:
                            break
                except OSError:
                    time.sleep(0.3)
            at_fire = query(port, expr, starts.timestamp())
            at_start = query(port, expr, (starts + timedelta(seconds=50)).timestamp())
            at_now = query(port, expr, as_of.timestamp())
            before = query(port, expr, lo + 20 * 60)
            rep.check(bool(at_start), f"alert expression returns nothing at startsAt+50s ({starts})")
            rep.check(bool(at_now), "alert expression returns nothing at as_of")
            rep.check(not before, "alert expression already fires 20 minutes into the window")
            annotated = alert["commonAnnotations"].get("value", "")
            if at_fire:
                got = float(at_fire[0]["value"][1])
                rep.notes.append(f"value at startsAt {got:.4g} (annotation {annotated})")
                try:
                    want = float(annotated)
                except ValueError:
                    want = got
                rep.check(
                    abs(got - want) <= 0.05 * max(abs(want), 1e-9),
                    f"annotation value {annotated} but Prometheus says {got:.4g}",
                )
            else:
                rep.fail(f"alert expression returns nothing at startsAt ({starts})")
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def validate_pack(pack: Path, prometheus: bool) -> tuple[Report, set[str]]:
    rep = Report(pack.name)
    meta = yaml.safe_load((pack / "scenario.yaml").read_text())
    rep.check(meta.get("name") == pack.name, "scenario.yaml name differs from the folder")
    as_of = parse_time(str(meta["as_of"]))
    lo, hi, names = metric_range(pack / "metrics.om")
    rep.check(lo <= as_of.timestamp() <= hi, "as_of outside the metrics range")
    rep.check(hi >= as_of.timestamp(), "metrics end before as_of")
    minutes = (hi - lo) / 60
    rep.check(58 <= minutes <= 80, f"metrics cover {minutes:.0f} minutes (want about 60-75)")
    rep.check((pack / "metrics.om").read_text().rstrip().endswith("# EOF"), "metrics.om must end with # EOF")
    check_promtool(rep, pack)
    alert = check_alert(rep, pack, names, lo, hi, as_of)
    objects = check_objects(rep, pack)
    if (pack / "logs.ndjson").exists():  # optional in the format: a cluster without a logs backend
        check_logs(rep, pack, lo, hi)
    else:
        rep.notes.append("no logs.ndjson")
    check_expected(rep, pack, objects)
    size = sum(f.stat().st_size for f in pack.iterdir() if f.is_file())
    rep.check(size <= MAX_BYTES, f"pack is {size / 1e6:.2f} MB (limit ~3 MB)")
    rep.notes.append(f"{size / 1e6:.2f} MB, {minutes:.0f} min")
    check_load_pack(rep, pack)
    if prometheus:
        check_prometheus(rep, pack, alert, lo, as_of)
    return rep, identities(objects)


def validate_all(root: Path, names: list[str], *, prometheus: bool) -> int:
    failed = 0
    owners: dict[str, list[str]] = defaultdict(list)
    for name in names:
        pack = root / name
        if not pack.is_dir():
            print(f"FAIL {name}: not found under {root}")
            failed += 1
            continue
        rep, ids = validate_pack(pack, prometheus)
        for ident in ids:
            owners[ident].append(name)
        status = "ok  " if not rep.errors else "FAIL"
        print(f"{status} {name}: {'; '.join(rep.notes)}")
        for err in rep.errors:
            print(f"     - {err}")
        failed += bool(rep.errors)
    shared = {k: v for k, v in owners.items() if len(v) > 1}
    for ident, packs in sorted(shared.items()):
        print(f"FAIL shared between packs: {ident}: {', '.join(packs)}")
        failed += 1
    print(f"{len(names) - failed}/{len(names)} packs passed" if not shared else "name clashes between packs")
    return 1 if failed else 0
