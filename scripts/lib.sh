# Shared set-up steps for scripts/demo.sh, scripts/serve.sh and scripts/test.sh (sourced, not run).
# Each step is idempotent and installs only what is missing.

die() { echo "error: $*" >&2; exit 1; }

# python3.11 or newer, as an absolute path.
find_python() {
  local candidate
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  die "Python 3.11 or newer is required"
}

have_initdb() { compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1; }
have_alertmanager() { command -v prometheus-alertmanager >/dev/null 2>&1 || command -v alertmanager >/dev/null 2>&1; }

# Install the Debian packages named (as root), or say how to; each is checked by a command it ships.
ensure_debian() {
  local missing=() entry package probe
  for entry in "$@"; do
    package="${entry%%:*}"; probe="${entry#*:}"
    eval "$probe" >/dev/null 2>&1 || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    die "missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})"
  fi
  echo "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

PROMETHEUS='prometheus:command -v prometheus && command -v promtool'

# The demo's sandbox runs the real Prometheus (promtool loads the scenario's metrics).
ensure_demo_servers() { ensure_debian "$PROMETHEUS"; }

# Debian packages the tests need: a real PostgreSQL, Prometheus (with promtool), Alertmanager,
# kubectl (kubernetes-client), which the Kubernetes stand-in's tests drive, and Chromium, in which
# the demo's web view is tested.
ensure_test_servers() {
  ensure_debian \
    'postgresql:have_initdb' \
    "$PROMETHEUS" \
    'prometheus-alertmanager:have_alertmanager' \
    'kubernetes-client:command -v kubectl' \
    'chromium:command -v chromium'
}

# .venv with the project installed (extras in $1, e.g. "dev"); reinstalls when pyproject.toml changes.
ensure_venv() {
  local extras="${1:-}" python stamp hash
  python="$(find_python)"
  hash="$(sha256sum pyproject.toml | cut -c1-16)"
  stamp=".venv/.installed-${hash}-${extras:-base}"
  if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv || die "could not create .venv (on Debian: apt-get install python3-venv)"
  fi
  # a venv with the dev extras has everything the base install has
  if [ -z "$extras" ] && compgen -G ".venv/.installed-${hash}-*" >/dev/null; then
    return 0
  fi
  if [ ! -f "$stamp" ]; then
    echo "installing Python packages into .venv"
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null
    if [ -n "$extras" ]; then
      .venv/bin/python -m pip install -q -e ".[$extras]"
    else
      .venv/bin/python -m pip install -q -e .
    fi
    rm -f .venv/.installed-*
    touch "$stamp"
  fi
}
