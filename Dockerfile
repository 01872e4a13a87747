# Image of the API process. OPA runs beside it as a separate container (sidecar):
# see docker-compose.yml and deploy/k8s/. Not built in CI: the development machine
# has no Docker engine.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --home-dir /app --no-create-home \
       --shell /usr/sbin/nologin app

WORKDIR /app

# The process runs from this source tree: openapi/openapi.yaml and the Alembic
# migrations are read relative to it, and the installed wheel does not carry the
# spec. `pip install .` provides the pinned dependency ranges of pyproject.toml;
# PYTHONPATH puts /app ahead of the installed copy whatever the working directory.
COPY pyproject.toml README.md ./
COPY app ./app
COPY repositories ./repositories
COPY world ./world
COPY openapi ./openapi
COPY examples ./examples
# The shared wire contracts (agent_sdk.contracts) the app imports.
COPY agent_sdk ./agent_sdk
RUN pip install . \
    && rm -rf build ./*.egg-info
ENV PYTHONPATH=/app

USER app

# Configuration keys come from the environment (docs/configuration.md): at least
# DATABASE_URL and OPA_URL. HOST must not be loopback inside a container.
ENV HOST=0.0.0.0 \
    PORT=8080
EXPOSE 8080
# The Prometheus metrics listener, when METRICS_PORT=9464 and METRICS_HOST=0.0.0.0 are
# set (docs/operations.md); with several workers PROMETHEUS_MULTIPROC_DIR must be a
# writable directory (the serve command makes one under the temp dir otherwise).
EXPOSE 9464

HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8080'), timeout=2)"]

CMD ["python", "-m", "app", "serve"]
