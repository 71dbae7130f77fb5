#!/usr/bin/env bash
# Check `incident-bot gpu-agent` on a real GPU machine: start it on the card(s) here, read
# GET /healthz, /v1/gpus and /v1/xids, and check the JSON against the agent's wire format
# (tools/gpu/readings.py) and, when nvidia-smi is here, against what nvidia-smi counts.
# Needs the NVIDIA driver (libnvidia-ml.so) on this host; it changes nothing on the GPUs.
#
#   scripts/gpu-agent-check.sh            # exit 0: the agent read every GPU; the JSON is printed
set -euo pipefail
cd "$(dirname "$0")/.."

BOT=.venv/bin/incident-bot
PY=.venv/bin/python
[ -x "$BOT" ] || { BOT=$(command -v incident-bot) && PY=python3; } || {
  echo "error: no incident-bot here (pip install -e . first)" >&2; exit 1; }

PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
LOG=$(mktemp)
NODE_NAME="${NODE_NAME:-$(hostname)}" "$BOT" gpu-agent --host 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 &
AGENT=$!
trap 'kill "$AGENT" 2>/dev/null || true; wait "$AGENT" 2>/dev/null || true; rm -f "$LOG"' EXIT

for _ in $(seq 1 60); do
  if ! kill -0 "$AGENT" 2>/dev/null; then
    echo "error: the agent exited:" >&2; cat "$LOG" >&2; exit 1
  fi
  "$PY" - "$URL" <<'PY' 2>/dev/null && break
import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/healthz", timeout=2).read()
PY
  sleep 0.5
done

EXPECTED=""
if command -v nvidia-smi >/dev/null 2>&1; then
  EXPECTED=$(nvidia-smi -L | grep -c '^GPU ' || true)
fi

"$PY" - "$URL" "$EXPECTED" <<'PY'
"""Read the three endpoints and check their shape; print what the agent saw."""
import json
import sys
import urllib.request

from tools.gpu.readings import Health, NodeGpus, XidList

url, expected = sys.argv[1], sys.argv[2]


def get(path: str) -> bytes:
    with urllib.request.urlopen(url + path, timeout=10) as response:
        assert response.status == 200, f"{path}: HTTP {response.status}"
        assert response.headers["content-type"].startswith("application/json"), path
        return response.read()


health = Health.model_validate_json(get("/healthz"))
node = NodeGpus.model_validate_json(get("/v1/gpus"))
xids = XidList.model_validate_json(get("/v1/xids?since=1970-01-01T00:00:00Z"))
problems = []
if health.status != "ok":
    problems.append(f"healthz status {health.status}")
if not health.watching_xids:
    problems.append("the Xid watcher is not running (see unsupported: 'xid events')")
if not node.gpus:
    problems.append("no GPU read")
if expected and len(node.gpus) != int(expected):
    problems.append(f"{len(node.gpus)} GPUs read, nvidia-smi lists {expected}")
if node.driver_version is None:
    problems.append("no driver version")
for gpu in node.gpus:
    if not gpu.uuid or not gpu.name or not gpu.memory_total_mib:
        problems.append(f"GPU {gpu.index}: uuid, name or memory missing")
    if gpu.mig_enabled and gpu.utilization_pct is not None:
        print(f"note: GPU {gpu.index} is in MIG mode and still reports utilisation")
print(json.dumps(json.loads(node.model_dump_json()), indent=2))
print(f"{len(node.gpus)} GPUs on {node.node}, driver {node.driver_version}; "
      f"{len(xids.events)} Xid events buffered; node-wide not read: {[u.field for u in node.unsupported]}")
for gpu in node.gpus:
    print(f"  GPU {gpu.index} {gpu.name}: not read: {[f'{u.field} ({u.reason})' for u in gpu.unsupported]}")
if problems:
    print("FAILED: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("ok")
PY
