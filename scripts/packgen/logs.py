"""ECS log documents and the real wording of each engine's log lines.

`message` is the raw line the container wrote (what Filebeat/Fluent Bit ship); ECS fields
carry the parsed level, the Kubernetes metadata and, for errors, `error.type`/`error.message`.
Line formats: vLLM (`INFO 06-01 10:00:00 [file.py:123] ...`, with the `(APIServer pid=1)`
process prefix of 0.10+), uvicorn access lines, TGI's tracing lines, Triton's glog lines,
SGLang's `[2026-06-01 10:00:00] ...`, the kernel's NVRM lines, Envoy access logs.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .series import iso

Doc = dict[str, Any]


@dataclass(frozen=True)
class Source:
    """Where a line comes from: the Kubernetes metadata every document of one container shares."""

    service: str
    namespace: str | None
    pod: str | None
    node: str | None
    container: str | None
    dataset: str | None = None


def ecs(
    ts: datetime,
    message: str,
    src: Source,
    *,
    level: str = "info",
    error_type: str | None = None,
    error_message: str | None = None,
    stack: str | None = None,
    status: int | None = None,
    trace_id: str | None = None,
    logger: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Doc:
    doc: Doc = {
        "@timestamp": iso(ts, ms=True),
        "message": message,
        "log": {"level": level, **({"logger": logger} if logger else {})},
        "service": {"name": src.service},
    }
    kube: Doc = {}
    if src.namespace:
        kube["namespace"] = src.namespace
    if src.pod:
        kube["pod"] = {"name": src.pod}
    if src.node:
        kube["node"] = {"name": src.node}
    if kube:
        doc["kubernetes"] = kube
    if src.container:
        doc["container"] = {"name": src.container}
    if src.node:
        doc["host"] = {"name": src.node}
    if src.dataset:
        doc["event"] = {"dataset": src.dataset}
    if error_type or error_message:
        err: Doc = {}
        if error_type:
            err["type"] = error_type
        if error_message:
            err["message"] = error_message
        if stack:
            err["stack_trace"] = stack
        doc["error"] = err
    if status is not None:
        doc["http"] = {"response": {"status_code": status}}
    if trace_id:
        doc["trace"] = {"id": trace_id}
    if extra:
        doc.update(extra)
    return doc


class LogBook:
    """Collects documents; `dump()` sorts them by time and writes NDJSON."""

    def __init__(self) -> None:
        self.docs: list[Doc] = []

    def add(self, doc: Doc) -> None:
        self.docs.append(doc)

    def extend(self, docs: list[Doc]) -> None:
        self.docs.extend(docs)

    def dump(self) -> str:
        ordered = sorted(self.docs, key=lambda d: d["@timestamp"])
        return "".join(json.dumps(d, ensure_ascii=False, separators=(", ", ": ")) + "\n" for d in ordered)


# -- wording ---------------------------------------------------------------------------------------------------
LEVEL = {"INFO": "info", "WARNING": "warn", "ERROR": "error", "DEBUG": "debug", "CRITICAL": "critical"}


def vllm_line(ts: datetime, level: str, where: str, msg: str, proc: str | None = "APIServer pid=1") -> str:
    """vLLM's logger: `INFO 06-01 10:00:00 [loggers.py:123] msg`; 0.10+ prefixes the process."""
    head = f"{level} {ts.strftime('%m-%d %H:%M:%S')} [{where}] {msg}"
    return f"({proc}) {head}" if proc else head


def vllm_v0_line(ts: datetime, level: str, where: str, msg: str) -> str:
    """vLLM 0.6.x: `INFO 06-16 18:40:12 metrics.py:351] msg` (no brackets before the file)."""
    return f"{level} {ts.strftime('%m-%d %H:%M:%S')} {where}] {msg}"


def uvicorn_access(client: str, method: str, path: str, status: int, proc: str | None = None) -> str:
    text = STATUS_PHRASE.get(status, "")
    line = f'INFO:     {client} - "{method} {path} HTTP/1.1" {status} {text}'.rstrip()
    return f"({proc}) {line}" if proc else line


STATUS_PHRASE = {
    200: "OK",
    400: "Bad Request",
    408: "Request Timeout",
    422: "Unprocessable Entity",
    424: "Failed Dependency",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def tgi_line(ts: datetime, level: str, target: str, where: str, msg: str, span: str = "") -> str:
    """TGI (tracing-subscriber fmt): `2026-07-08T13:05:41.202913Z  INFO target: file:line: msg`."""
    stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond:06d}Z"
    pad = " " if level in ("INFO", "WARN") else ""
    span_part = f"{span}: " if span else ""
    return f"{stamp} {pad}{level} {span_part}{target}: {where}: {msg}"


def glog(ts: datetime, sev: str, where: str, msg: str, thread: int = 1) -> str:
    """Triton: `I0826 09:14:33.512345 1 model_lifecycle.cc:473] "msg"`."""
    return f"{sev}{ts.strftime('%m%d %H:%M:%S')}.{ts.microsecond:06d} {thread} {where}] {msg}"


def sglang_line(ts: datetime, msg: str, tp: int | None = None) -> str:
    tag = f" TP{tp}" if tp is not None else ""
    return f"[{ts.strftime('%Y-%m-%d %H:%M:%S')}{tag}] {msg}"


def envoy_gateway_access(
    ts: datetime,
    *,
    method: str = "POST",
    path: str = "/v1/chat/completions",
    status: int,
    flags: str = "-",
    details: str = "via_upstream",
    duration_ms: int,
    upstream: str | None,
    cluster: str,
    route: str,
    authority: str,
    client: str,
    user_agent: str,
    request_id: str,
    bytes_received: int = 2200,
    bytes_sent: int = 1800,
) -> str:
    """Envoy Gateway's default JSON access log line."""
    entry = {
        "start_time": iso(ts, ms=True),
        "method": method,
        "x-envoy-origin-path": path,
        "protocol": "HTTP/1.1",
        "response_code": status,
        "response_flags": flags,
        "response_code_details": details,
        "connection_termination_details": None,
        "upstream_transport_failure_reason": None,
        "bytes_received": bytes_received,
        "bytes_sent": bytes_sent,
        "duration": duration_ms,
        "x-envoy-upstream-service-time": str(max(0, duration_ms - 1)) if upstream else None,
        "x-forwarded-for": client,
        "user-agent": user_agent,
        "x-request-id": request_id,
        ":authority": authority,
        "upstream_host": upstream,
        "upstream_cluster": cluster,
        "upstream_local_address": None if upstream is None else "10.0.0.1:0",
        "downstream_local_address": "10.0.0.2:10080",
        "downstream_remote_address": f"{client}:0",
        "requested_server_name": None,
        "route_name": route,
    }
    return json.dumps(entry, separators=(",", ":"))


@dataclass
class Ids:
    """Deterministic ids: request ids, trace ids, client addresses, vLLM request names."""

    rng: random.Random
    counter: int = field(default=0)

    def hex(self, k: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(k))

    def request_id(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def trace(self) -> str:
        return self.hex(32)

    def client(self, prefix: str = "10.42") -> str:
        return (
            f"{prefix}.{self.rng.randint(0, 15)}.{self.rng.randint(2, 250)}:{self.rng.randint(32768, 60999)}"
        )

    def ip(self, prefix: str = "10.42") -> str:
        return f"{prefix}.{self.rng.randint(0, 15)}.{self.rng.randint(2, 250)}"

    def chatcmpl(self) -> str:
        return f"chatcmpl-{self.hex(32)}"

    def within(self, minute: datetime, lo: float = 0.0, hi: float = 59.9) -> datetime:
        return minute + timedelta(seconds=self.rng.uniform(lo, hi))


def envoy_default_access(
    ts: datetime,
    *,
    status: int,
    flags: str = "-",
    details: str = "via_upstream",
    duration_ms: int,
    upstream: str | None,
    client: str,
    user_agent: str,
    request_id: str,
    authority: str,
    method: str = "POST",
    path: str = "/v1/chat/completions",
    bytes_received: int = 2114,
    bytes_sent: int = 1650,
) -> str:
    """Envoy's default text access log format (Contour and plain Envoy deployments)."""
    svc_time = str(max(0, duration_ms - 1)) if upstream else "-"
    return (
        f'[{iso(ts, ms=True)}] "{method} {path} HTTP/1.1" {status} {flags} {details} - "-" {bytes_received} '
        f'{bytes_sent} {duration_ms} {svc_time} "{client}" "{user_agent}" "{request_id}" "{authority}" '
        f'"{upstream or "-"}"'
    )
