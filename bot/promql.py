"""What an alert's own PromQL names: its label matchers, and the route and namespace in gateway names.

Alert rules often aggregate the labels away (`sum by (route)`), so the expression is where the
namespace, the pods and the model are still spelled out. Intake and the triage's scope both read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)\s*"((?:[^"\\]|\\.)*)"')
# Envoy Gateway names its clusters httproute/<namespace>/<route>/rule/<n>.
ENVOY_ROUTE = re.compile(r"httproute/([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*)/rule")
ENVOY_NAMESPACE = re.compile(r"httproute/([a-z0-9][-a-z0-9]*)/")
NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


THRESHOLD = re.compile(
    r"^(?P<signal>.*\S)\s*(?P<op>>=|<=|==|!=|>|<)\s*(?:bool\s+)?(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$",
    re.S,
)


def split_threshold(expr: str) -> tuple[str, str, float] | None:
    """`signal > 0.08` → ("signal", ">", 0.08): what the alert measures, and where it fires.

    An alert's expression keeps only the samples past its threshold; a chart needs the signal
    itself, before and after. None when the expression does not end in a comparison to a number.
    """
    match = THRESHOLD.match(expr.strip())
    if match is None or match["signal"].count("(") != match["signal"].count(")"):
        return None
    return match["signal"], match["op"], float(match["value"])


def matchers(expr: str | None) -> dict[str, list[str]]:
    """Equality and regex label matchers of a PromQL expression: {label: [values]}."""
    found: dict[str, list[str]] = {}
    for label, op, value in MATCHER.findall(expr or ""):
        if op in ("=", "=~") and value:
            found.setdefault(label, []).append(value)
    return found


def envoy_routes(names: Iterable[str | None]) -> list[tuple[str, str]]:
    """(namespace, route) of every Envoy Gateway cluster name among `names` (regexes included)."""
    return [(m.group(1), m.group(2)) for name in names if name and (m := ENVOY_ROUTE.search(name))]


# Where an alert names its namespace: the plain label, then the labels exporters put it under when
# a scrape's own `namespace` took the name (ingress-nginx), or a mesh's (Istio's destination).
NAMESPACE_LABELS = (
    "namespace",
    "exported_namespace",
    "destination_service_namespace",
    "destination_workload_namespace",
)
# Contour names an Envoy cluster after the Service it balances, `<namespace>/<service>/<port>/<hash>`,
# and its stats after `<namespace>_<service>_<port>` (the cluster's alt_stat_name).
CONTOUR_CLUSTER = re.compile(
    r"^([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*)/\d+/[0-9a-f]{10}$|^([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9.]*)_\d+$"
)


# An alert's own matcher is often a regex over a Service's clusters: `<ns>/<service>/.*`.
CONTOUR_PREFIX = re.compile(r"^([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9]*)/(?:\.\*|\.\+|\d+)")


def contour_services(names: Iterable[str | None]) -> list[tuple[str, str]]:
    """(namespace, service) of every Contour cluster name (or regex over one) among `names`."""
    found = []
    for name in names:
        if not name or name.startswith("httproute/"):
            continue
        if m := CONTOUR_CLUSTER.match(name):
            found.append((m.group(1) or m.group(3), m.group(2) or m.group(4)))
        elif m := CONTOUR_PREFIX.match(name):
            found.append((m.group(1), m.group(2)))
    return found


def alert_namespace(labels: Mapping[str, str], queries: Iterable[str | None]) -> str | None:
    """The namespace an alert names: its labels, else its PromQL's matchers, else its gateway cluster."""
    for label in NAMESPACE_LABELS:
        if labels.get(label):
            return labels[label]
    exprs = [q for q in queries if q]
    for label in NAMESPACE_LABELS:
        for expr in exprs:
            for value in matchers(expr).get(label, []):
                if NAMESPACE.match(value):  # a plain name, not a regex over several namespaces
                    return value
    clusters = [labels.get("envoy_cluster_name", "")]
    clusters += [c for expr in exprs for c in matchers(expr).get("envoy_cluster_name", [])]
    for cluster in clusters:
        if match := ENVOY_NAMESPACE.search(cluster):
            return match.group(1)
    contour = contour_services(clusters)
    return contour[0][0] if contour else None
