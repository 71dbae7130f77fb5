"""GPU agents: found on which nodes, reachable, watching for Xids, and what NVML gives on each card
(MIG mode, fields the driver refuses), through the same discovery the triage uses."""

from __future__ import annotations

from bot.config import BotConfig
from bot.doctor.report import BackendReport, Finding, Verdict
from bot.errors import ConfigError
from bot.settings import Settings
from bot.triage.backends import gpu_tool, kube_client
from tools.gpu.readings import Health, NodeGpus
from tools.result import Gap


def check_gpu(settings: Settings, config: BotConfig, *, timeout: float) -> BackendReport:
    del config  # the agents are found from the settings alone
    try:
        kube = None if settings.gpu_agent_urls else kube_client(settings)
        tool = gpu_tool(settings, kube, timeout=timeout)
    except ConfigError as exc:
        return BackendReport.unusable("gpu", None, exc.message)
    if tool is None:
        return BackendReport.absent(
            "gpu", "no GPU_AGENT_URLS and no Kubernetes API to find the gpu-agent pods"
        )
    target = (
        "GPU_AGENT_URLS"
        if settings.gpu_agent_urls
        else f"pods {settings.gpu_agent_selector} in {settings.gpu_agent_namespace}"
    )
    try:
        health, readings = tool.health(), tool.readings()
    finally:
        tool.close()
        if kube is not None:
            kube.close()
    if isinstance(health, Gap):
        return BackendReport.unusable("gpu", target, f"{health.what}: {health.reason}")
    if not health:
        finding = Finding("no gpu-agent pod is Ready: deploy deploy/kubernetes/gpu-agent.yaml", ok=False)
        return BackendReport.judged("gpu", target, "no agents found", [finding])
    findings: list[Finding] = []
    for node in sorted(health):
        read = readings.get(node) if isinstance(readings, dict) else readings
        findings += _node(node, health[node], read)
    reachable = sum(isinstance(h, Health) for h in health.values())
    summary = f"{reachable} of {len(health)} agents answer"
    if not reachable:  # every node's GPU state would be a gap
        return BackendReport("gpu", Verdict.UNUSABLE, summary, target, findings)
    return BackendReport.judged("gpu", target, summary, findings)


def _node(node: str, health: Health | Gap, read: NodeGpus | Gap | None) -> list[Finding]:
    if isinstance(health, Gap):
        return [Finding(f"{node}: {health.reason}", ok=False)]
    if not isinstance(read, NodeGpus):
        reason = read.reason if isinstance(read, Gap) else "no reading"
        return [Finding(f"{node}: readings: {reason}", ok=False)]
    models = sorted({g.name or "unknown" for g in read.gpus})
    watching = (
        "watching Xid events" if health.watching_xids else "NOT watching Xid events: past Xids will be missed"
    )
    count = f"{len(read.gpus)} GPU{'' if len(read.gpus) == 1 else 's'}"
    found = [Finding(f"{node}: {count} ({', '.join(models)}), {watching}", ok=health.watching_xids)]
    if read.node != node:
        found.append(
            Finding(f"{node}: its agent says it runs on {read.node}: is the node named right?", ok=False)
        )
    for gpu in read.gpus:
        name = f"{node} GPU {gpu.index} ({gpu.name or 'unknown'})"
        if gpu.mig_enabled:
            found.append(Finding(f"{name}: MIG on, {len(gpu.mig_devices)} instances"))
        if gpu.unsupported:
            fields = ", ".join(f"{u.field} ({u.reason})" for u in gpu.unsupported)
            found.append(Finding(f"{name}: not read: {fields}"))
    found += [Finding(f"{node}: not read: {u.field} ({u.reason})", ok=False) for u in read.unsupported]
    return found
