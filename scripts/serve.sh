#!/usr/bin/env bash
# Run the bot on embedded defaults: SQLite in ./incident-bot.db, no Slack, no token.
# Alerts POSTed to /webhooks/alertmanager open incidents; `incident-bot incidents list` shows them.
# Any incident-bot environment variable (see .env.example) overrides a default.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
exec .venv/bin/incident-bot serve "$@"
