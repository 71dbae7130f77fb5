"""Findings: candidate causes read off the evidence, each with a code, a layer, an onset and targets.

A finding is "cause-grade" when it names a specific fault (an attributed error line, a node
condition, an Xid, a saturated KV cache, a quality drop). Generic symptoms (latency up, error
ratio up, GPU busy) are not findings: they feed the symptom rules in `classify`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from bot.triage.envelope import unwrap
from bot.triage.taxonomy import prefix
from tools.result import Evidence, Source
from tools.xid import application_fault

# Kubernetes reasons that say a container is unhealthy without saying why: a model that is still
# loading fails its startup probe, and any crash ends in back-off. They never name a cause alone.
SYMPTOM_REASONS = frozenset(
    {
        "Unhealthy",
        "BackOff",
        "Killing",
        "ProbeWarning",
        "CrashLoopBackOff",
        "Error",
        "Completed",
        "ContainerCannotRun",
    }
)
# Two onsets this close are "together" on the timeline (the earliest-cause rule's tie, and the
# rules that ask whether one thing came before another).
TIE = timedelta(minutes=2)
# The target kind of nodes that a fault of their own points at (a kernel line, a node condition,
# a card's or a port's reading), as opposed to nodes that merely host a failing pod.
NODE_FAULT = "node_fault"
# Findings that make a node itself suspect (its card, its link, its disk), not only a process on it.
NODE_CODES = frozenset({"INF_GPU_XID", "INF_NCCL", "INF_NODE_NOT_READY", "INF_DISK"})
# The kubelet's lines about a container it restarts or probes say that it is unhealthy, not why.
SYMPTOM_LINE = re.compile(
    r"CrashLoopBackOff|Back-off restarting failed container|(?:Readiness|Liveness|Startup) probe failed"
)
# A node's bad condition → (code, strength): not ready first, disk pressure second.
NODE_CONDITIONS = (("INF_NODE_NOT_READY", 0.6), ("INF_DISK", 0.4))
# The codes these readers name themselves (the rest come from the attribution rules): the taxonomy
# must declare each, which is checked when the data files are loaded.
FINDING_CODES = frozenset(
    {"INF_NODE_NOT_READY", "INF_DISK", "INF_GPU_XID", "INF_CUDA_ERROR", "INF_OOM_KILLED", "INF_NCCL"}
    | {"ENG_KV_CACHE"}
    | {"MOD_QUALITY_REGRESSION", "MOD_OUTPUT_FORMAT", "GW_RATE_LIMIT", "ENG_QUEUE_FULL"}
)


class Attributed(Protocol):
    @property
    def code(self) -> str: ...

    @property
    def rule(self) -> str | None: ...

    @property
    def attributed(self) -> bool: ...

    @property
    def confidence(self) -> float | None: ...


class Attributes(Protocol):
    def attribute(self, message: str) -> Attributed: ...


@dataclass
class Finding:
    """One candidate cause."""

    code: str
    onset: datetime | None
    strength: float
    evidence: list[str]
    source: Source
    targets: dict[str, set[str]] = field(default_factory=dict)
    note: str = ""
    symptom: bool = False  # says something is unhealthy, not why (probe failures, restart back-off)
    rules: set[str] = field(default_factory=set)  # what said so: attribution rules, signals
    learned: bool = False  # the code is only the learned stage's guess: no rule or signal said so

    @property
    def layer(self) -> str:
        return prefix(self.code)

    def add_target(self, kind: str, *names: str) -> None:
        for name in names:
            if name:
                self.targets.setdefault(kind, set()).add(name)

    def merge(self, other: Finding) -> None:
        """Fold another finding of the same code in; a symptom never moves a real finding's onset."""
        if other.symptom and not self.symptom:
            take_onset = False
        elif self.symptom and not other.symptom:
            take_onset = True
            self.onset, self.note = None, ""
        else:
            take_onset = True
        if take_onset and other.onset is not None and (self.onset is None or other.onset < self.onset):
            self.onset = other.onset
            self.note = other.note or self.note
        self.symptom = self.symptom and other.symptom
        self.strength = max(self.strength, other.strength) + min(self.strength, other.strength) * 0.25
        self.evidence.extend(e for e in other.evidence if e not in self.evidence)
        self.rules |= other.rules
        self.learned = self.learned and other.learned
        for kind, names in other.targets.items():
            self.add_target(kind, *names)


def signal(evidence: Iterable[Evidence], name: str) -> list[Evidence]:
    return [e for e in evidence if e.labels.get("signal") == name]


def abnormal(evidence: Iterable[Evidence], name: str) -> list[Evidence]:
    return [e for e in signal(evidence, name) if e.labels.get("abnormal") == "true"]


def kind(evidence: Iterable[Evidence], name: str) -> list[Evidence]:
    return [e for e in evidence if e.labels.get("kind") == name]


def _split(value: str | None) -> list[str]:
    return [v for v in (value or "").split(",") if v]


def from_logs(evidence: list[Evidence], attributor: Attributes) -> list[Finding]:
    out = []
    for sig in kind(evidence, "signature"):
        text = signature_text(sig)
        got = attributor.attribute(text)
        if not got.attributed:
            continue
        finding = Finding(
            code=got.code,
            onset=sig.onset,
            strength=(float(sig.labels.get("share", "0")) or 0.05) * _belief(got),
            evidence=[sig.id],
            source=Source.ELASTICSEARCH,
            note=f"“{sig.labels.get('sample', '')[:140]}”{_learned_note(got)}",
            symptom=bool(SYMPTOM_LINE.search(text)),
            rules={got.rule} if got.rule else set(),
            learned=_guessed(got),
        )
        pods, nodes = _split(sig.labels.get("pods")), _split(sig.labels.get("nodes"))
        finding.add_target("pod", *pods)
        finding.add_target("node", *nodes)
        if not pods and got.code in NODE_CODES:  # the node's own kernel or driver says it is at fault
            finding.add_target(NODE_FAULT, *nodes)
        out.append(finding)
    return out


def _belief(got: Attributed) -> float:
    """A rule's code is taken at its word; the learned stage's only as far as its probability."""
    return got.confidence if got.confidence is not None else 1.0


def _guessed(got: Attributed) -> bool:
    """Whether only the learned stage gave the code (it alone reports a confidence)."""
    return got.confidence is not None


def _learned_note(got: Attributed) -> str:
    return f" (code by the learned stage, p={got.confidence:.2f})" if _guessed(got) else ""


def signature_text(sig: Evidence) -> str:
    """The line to attribute: ECS puts the exception in error.type / error.message, and the line
    itself may only say "failed". The sample is unwrapped first: a JSON record's message joined to
    the tail would no longer parse."""
    parts = [
        unwrap(sig.labels.get("sample") or sig.labels.get("signature", "")),
        sig.labels.get("tail", ""),
        sig.labels.get("error", ""),
    ]
    return " ".join(p for p in parts if p)


def from_kubernetes(evidence: list[Evidence], attributor: Attributes) -> list[Finding]:
    out = []
    for event in kind(evidence, "event"):
        text = f"{event.labels.get('reason', '')}: {event.labels.get('message', '')}"
        got = attributor.attribute(text)
        if not got.attributed:
            continue
        finding = Finding(
            code=got.code,
            onset=event.onset,
            strength=0.3 * _belief(got),
            evidence=[event.id],
            source=Source.KUBERNETES,
            note=f"event {text[:140]}{_learned_note(got)}",
            learned=_guessed(got),
            # A series already running before the incident did not start it.
            symptom=event.labels.get("reason", "") in SYMPTOM_REASONS or "recurring_since" in event.labels,
        )
        finding.add_target(event.labels.get("object_kind", ""), event.labels.get("object", ""))
        out.append(finding)
    for pod in kind(evidence, "pod"):
        for reason in _split(pod.labels.get("reasons")):
            got = attributor.attribute(reason)
            if not got.attributed:
                continue
            finding = Finding(
                code=got.code,
                onset=pod.onset,
                strength=0.3 * _belief(got),
                evidence=[pod.id],
                source=Source.KUBERNETES,
                note=pod.summary,
                symptom=reason in SYMPTOM_REASONS,
                learned=_guessed(got),
            )
            finding.add_target("pod", pod.labels.get("pod", ""))
            finding.add_target("node", pod.labels.get("node", ""))
            out.append(finding)
    for node in kind(evidence, "node"):
        if node.labels.get("healthy") != "false":
            continue
        if "GPUs allocatable" in node.summary:  # the device plugin withdrew a card it found unhealthy
            out.append(_node_finding("INF_GPU_XID", 0.4, node, Source.KUBERNETES))
        code, strength = NODE_CONDITIONS[0] if "Ready=" in node.summary else NODE_CONDITIONS[1]
        if code == "INF_DISK" and "DiskPressure=True" not in node.summary:
            continue
        out.append(_node_finding(code, strength, node, Source.KUBERNETES))
    return out


def from_gpu(evidence: list[Evidence]) -> list[Finding]:
    """A card with a hardware Xid, ECC errors or pages to retire is suspect; an application-fault
    Xid (NVIDIA: restart the application) only says that the process's CUDA context is gone."""
    gpus = [e for e in evidence if e.source is Source.GPU]
    return [
        *(_node_finding("INF_GPU_XID", 0.7, g, Source.GPU) for g in gpus if g.labels.get("faulty") == "true"),
        *(
            _node_finding("INF_CUDA_ERROR", 0.5, g, Source.GPU)
            for g in gpus
            if g.labels.get("app_fault") == "true"
        ),
    ]


def _node_finding(code: str, strength: float, item: Evidence, source: Source) -> Finding:
    finding = Finding(
        code=code, onset=item.onset, strength=strength, evidence=[item.id], source=source, note=item.summary
    )
    finding.add_target("node", item.labels.get("node", ""))
    finding.add_target(NODE_FAULT, item.labels.get("node", ""))
    return finding


def from_metrics(evidence: list[Evidence]) -> list[Finding]:
    out: list[Finding] = []

    def add(code: str, items: list[Evidence], strength: float, target_label: str | None = None) -> None:
        if not items:
            return
        onsets = [e.onset for e in items if e.onset is not None]
        finding = Finding(
            code=code,
            onset=min(onsets) if onsets else None,
            strength=strength,
            evidence=[e.id for e in items],
            source=Source.PROMETHEUS,
            note=items[0].summary,
        )
        finding.rules.add(f"signal:{items[0].labels.get('signal', '')}")
        if target_label:
            for e in items:
                finding.add_target(target_label, e.labels.get(target_label, ""))
                if target_label == "node" and e.layer == "INF":  # a reading of the node itself
                    finding.add_target(NODE_FAULT, e.labels.get("node", ""))
        out.append(finding)

    xids = [e for e in signal(evidence, "xid_errors") if _positive(e)]
    add("INF_GPU_XID", [e for e in xids if not application_fault(_xid(e))], 0.6, "node")
    add("INF_CUDA_ERROR", [e for e in xids if application_fault(_xid(e))], 0.4, "node")
    add("INF_GPU_XID", [e for e in signal(evidence, "ecc_errors") if _positive(e)], 0.5, "node")
    add("INF_NODE_NOT_READY", abnormal(evidence, "node_not_ready"), 0.6, "node")
    add("INF_NCCL", abnormal(evidence, "fabric_port_state"), 0.6, "node")
    add("INF_DISK", abnormal(evidence, "volume_free_ratio"), 0.5)
    kv = abnormal(evidence, "kv_cache_usage")
    preempt = abnormal(evidence, "preemptions")
    if kv or preempt:
        add("ENG_KV_CACHE", kv + preempt, 0.6 if kv and preempt else 0.35, "pod")
    add("GW_RATE_LIMIT", abnormal(evidence, "ratelimited"), 0.6)
    add("ENG_QUEUE_FULL", abnormal(evidence, "engine_rejected"), 0.5, "pod")
    add("MOD_QUALITY_REGRESSION", abnormal(evidence, "canary_pass_rate"), 0.7)
    add(
        "MOD_OUTPUT_FORMAT",
        abnormal(evidence, "empty_response_rate") + abnormal(evidence, "output_validity_rate"),
        0.5,
    )
    oom = [e for e in abnormal(evidence, "last_terminated_reason") if e.labels.get("reason") == "OOMKilled"]
    add("INF_OOM_KILLED", oom, 0.4, "pod")
    return out


def _xid(e: Evidence) -> int:
    """The Xid a DCGM series reports: its `xid` label (the count exporter), else its value (the
    XID_ERRORS gauge holds the last Xid's number)."""
    raw = e.labels.get("xid") or (str(int(e.value)) if isinstance(e.value, int | float) else "0")
    return int(raw) if raw.isdigit() else 0


def _positive(e: Evidence) -> bool:
    return isinstance(e.value, int | float) and e.value > 0


def merged(findings: list[Finding]) -> list[Finding]:
    """One finding per code, keeping the earliest onset and every piece of evidence."""
    by_code: dict[str, Finding] = {}
    for finding in findings:
        if finding.code in by_code:
            by_code[finding.code].merge(finding)
        else:
            by_code[finding.code] = finding
    return list(by_code.values())
