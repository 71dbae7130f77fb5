#!/usr/bin/env bash
# The demo from a fresh clone: installs what is missing (Prometheus, .venv), then `incident-bot demo`.
# Arguments go to the demo, e.g. scripts/demo.sh --yes, --web, --scenario NAME, --list.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_demo_servers
ensure_venv
exec .venv/bin/incident-bot demo "$@"
