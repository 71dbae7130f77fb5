"""Load generator for bench/intake: posts alerts to the bot from its own process.

Sends one webhook per alert, interleaving the groups so that every group's first notifications
race each other. Prints one JSON object with the latencies and the count of failed requests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import aiohttp


def payload(group: int, index: int) -> dict[str, object]:
    labels = {
        "alertname": "InferenceErrorBudgetBurn",
        "service": f"svc-{group:03d}",
        "severity": "page",
        "pod": f"svc-{group:03d}-pod-{index:04d}",
    }
    alert = {
        "status": "firing",
        "labels": labels,
        "annotations": {"summary": "burn", "value": "0.02"},
        "startsAt": "2026-06-01T09:58:00Z",
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": "http://prometheus:9090/graph?g0.expr=slo%3Asli_error%3Aratio_rate5m+%3E+0.0144",
        "fingerprint": f"{group:04x}{index:012x}",
    }
    return {
        "version": "4",
        "groupKey": f'{{}}:{{service="svc-{group:03d}"}}',
        "truncatedAlerts": 0,
        "status": "firing",
        "receiver": "incident-bot",
        "groupLabels": {"service": labels["service"]},
        "commonLabels": labels,
        "commonAnnotations": {},
        "externalURL": "http://alertmanager:9093",
        "alerts": [alert],
    }


async def main(url: str, alerts: int, groups: int, concurrency: int) -> dict[str, object]:
    per_group = alerts // groups
    bodies = [json.dumps(payload(g, i)).encode() for i in range(per_group) for g in range(groups)]
    latencies: list[float] = []
    failures: dict[str, int] = {}
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=60)
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as client:

        async def sender() -> None:
            while not queue.empty():
                body = queue.get_nowait()
                started = time.perf_counter()
                try:
                    async with client.post("/webhooks/alertmanager", data=body, headers=headers) as response:
                        await response.read()
                        key = None if response.status == 200 else str(response.status)
                except (aiohttp.ClientError, TimeoutError) as exc:
                    key = type(exc).__name__
                latencies.append(time.perf_counter() - started)
                if key:
                    failures[key] = failures.get(key, 0) + 1

        wall = time.perf_counter()
        await asyncio.gather(*(sender() for _ in range(concurrency)))
        wall = time.perf_counter() - wall
    latencies.sort()
    return {
        "sent": len(bodies),
        "failed": failures,
        "seconds": wall,
        "p50_ms": latencies[len(latencies) // 2] * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
        "alerts_per_s": len(bodies) / wall,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--alerts", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.url, args.alerts, args.groups, args.concurrency))))
