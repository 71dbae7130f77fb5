#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, then lint, types and tests.
# Extra arguments go to pytest (e.g. scripts/test.sh -k intake).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_test_servers
ensure_venv dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest "$@"
