"""scenarios/README.md, written from the scenario modules and the packs they produced."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from .pack import Pack

HEAD = """# Scenario packs

Recorded-style incidents on inference platforms, one folder each, every file in the real format of
the system it comes from:

- `scenario.yaml` (required): `name` (`[a-z0-9-]`), `as_of` (the triage's "now", with a time
  zone), `namespace` (where the pack's objects live when they do not say), optional `logs_index`
  (default `logs-inference`) and `description`.
- `alert.json` (required): the Alertmanager webhook body (version 4) exactly as sent; the alert's
  PromQL is `g0.expr` of `generatorURL`.
- `metrics.om`: OpenMetrics with timestamps, ending in `# EOF`, named as the exporters name things
  (vLLM, TGI, Triton, SGLang, DCGM, kube-state-metrics, Envoy, SLO recording rules).
- `logs.ndjson`: one Elastic Common Schema document per line (`@timestamp`, `message`,
  `log.level`, `kubernetes.*`, ...).
- `k8s.yaml`: Kubernetes objects as `kubectl get -o yaml` prints them (several documents, or a
  `List`).
- `gpus.json`: NVML readings per GPU node at `as_of` (memory, utilisation, temperature, power, ECC,
  retired pages, Xid events).
- `expected.yaml`: the right answer, for `eval` only: `category`, `code`,
  `acceptable_first_actions` (`kind` and `target` such as `node/...` or `deployment/...`; empty when
  no catalog action helps); optionally `scope` (the incident's objects, `<kind>/<name>`: every
  proposed action must stay inside them), `forbidden_actions` (the pack's decoys: no action may be
  one of them) and `secondary` (`category` and `code` of a second cause the triage must also tell).

Unknown fields are ignored; a pack needs no configuration; the bot never reads `expected.yaml`
while triaging. `incident-bot sandbox validate DIR…` checks a pack the way `eval` loads it.

They are generated, deterministically, by `scripts/packgen` (one module per scenario under
`scripts/packgen/scenarios/`); do not edit them by hand:

```
.venv/bin/python scripts/packgen generate            # rewrite every pack (and this file)
.venv/bin/python scripts/packgen validate --prometheus
```

`validate` loads each `metrics.om` with `promtool tsdb create-blocks-from openmetrics`, checks the
webhook, the PromQL of `g0.expr` (`promtool check rules`, metric names present in the pack), the
Kubernetes objects, the ECS logs (timestamps inside the metrics window), the expected answer's
targets, pack size (< 3 MB), `bot.sandbox.pack.load_pack`, and, with `--prometheus`, that a real
Prometheus on the pack's blocks finds the alert firing at `startsAt` with the annotated value, still
firing at `as_of`, and not firing before the fault.

Each pack covers 60 minutes at one sample per minute ending at `as_of`; the alert starts a few
minutes after the fault. Names (namespaces, deployments, nodes, routes, models) are never shared
between packs. The answer is never written into labels: it has to be read from the evidence.

| pack | engine | what happens | category / code | acceptable first actions |
|---|---|---|---|---|
"""

TAIL = """
Conventions worth knowing when reading the packs:

- Metric families carry `# HELP`/`# TYPE`; counters are declared without `_total` and sampled with it;
  exporters whose counters have no `_total` suffix (Envoy, TGI, Triton) are declared `unknown`.
- Engine pods are scraped either by a ServiceMonitor (labels `instance`, `job`, `namespace`, `pod`,
  `service`) or by a PodMonitor (no `service` label, `job="<namespace>/<name>"`), as in real clusters.
- Counters restart from zero when a container restarts; a pod that cannot be scraped has no samples
  (and `up` 0 while it exists); pods deleted during the window only live on in metrics and logs.
- `generatorURL` escapes the expression like Prometheus (Go `url.QueryEscape`: spaces become `+`),
  so decode it with `urllib.parse.parse_qs`, not `unquote`.
- Access logs and Envoy logs are sampled (a few lines per minute per pod) but agree with the counters;
  every error line sits at or after the fault's onset.
"""


def write_readme(root: Path, modules: list[ModuleType], packs: list[Pack]) -> Path:
    rows = []
    for mod, pack in zip(modules, packs, strict=True):
        doc = (mod.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        exp = pack.expected
        assert exp is not None
        actions = ", ".join(f"`{k} {t}`" for k, t in exp.actions) or "none (empty list)"
        rows.append(f"| `{pack.name}` | {mod.ENGINE} | {doc} | `{exp.category}` / `{exp.code}` | {actions} |")
    stories = []
    for mod, pack in zip(modules, packs, strict=True):
        parts = (mod.__doc__ or "").strip().split("\n\n")
        body = " ".join(" ".join(part.split()) for part in parts[1:]) or parts[0]
        stories.append(
            f"### {pack.name}\n\n{body} As of `{pack.as_of:%Y-%m-%dT%H:%M:%SZ}`, namespace `{pack.namespace}`.\n"
        )
    path = root / "README.md"
    path.write_text(
        HEAD + "\n".join(rows) + "\n\n## The stories\n\n" + "\n".join(stories) + TAIL, encoding="utf-8"
    )
    return path
