# syntax=docker/dockerfile:1
# incident-bot's image: `docker build -t incident-bot:0.1.0 .` (deploy/kubernetes runs it).
#
# Two stages: the builder makes the project's wheel and installs it, with its dependencies, into a
# virtualenv at /opt/incident-bot; the runtime stage copies only that virtualenv, so no compiler,
# source tree or pip cache ships. The wheel carries every data file the bot reads at start-up
# (runbooks, prompts, attribution rules and the learned model, the signal catalog, the Alembic
# migrations, the demo page): tests/test_dockerfile.py builds the wheel from the same COPY lines
# and loads them from an installed copy. Secrets never enter the image; they come from the
# environment (a Kubernetes Secret, see deploy/kubernetes/secret.example.yaml).
#
# No HEALTHCHECK: Kubernetes ignores it and probes the pod itself (GET /healthz for liveness and
# start-up, GET /readyz for readiness, in deploy/kubernetes/deployment.yaml).

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/incident-bot
# Only what the wheel is built from (tests/test_dockerfile.py builds from exactly these lines).
COPY pyproject.toml README.md ./
COPY bot/ bot/
COPY tools/ tools/
COPY runbooks/ runbooks/
COPY prompts/ prompts/
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
    && /opt/incident-bot/bin/python -m pip install --no-cache-dir /wheels/*.whl

FROM ${PYTHON_IMAGE}
# A fixed numeric user and group, so that runAsUser/fsGroup in the pod spec match the files here.
ARG UID=10001
ARG GID=10001
RUN groupadd --system --gid "${GID}" incident-bot \
    && useradd --system --uid "${UID}" --gid "${GID}" --home-dir /var/lib/incident-bot \
       --no-create-home --shell /usr/sbin/nologin incident-bot \
    && install -d -o "${UID}" -g "${GID}" -m 0750 /var/lib/incident-bot
COPY --from=builder /opt/incident-bot /opt/incident-bot
# pip compiled the bytecode in the builder: nothing writes into the (read-only) root filesystem.
# HOME and matplotlib's cache go to /tmp, an emptyDir in the pod.
ENV PATH=/opt/incident-bot/bin:${PATH} \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    MPLCONFIGDIR=/tmp/matplotlib
# The default DATABASE_URL (sqlite:///./incident-bot.db) lands here: mount a volume on it.
WORKDIR /var/lib/incident-bot
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["incident-bot"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
