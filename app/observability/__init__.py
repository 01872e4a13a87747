"""Observability: Prometheus metrics and OpenTelemetry traces (``docs/operations.md``).

* :mod:`app.observability.metrics`: every metric, its closed label sets, and the
  observer methods the layers call;
* :mod:`app.observability.requests`, :mod:`app.observability.calls`,
  :mod:`app.observability.pools`: the observers of requests, OPA calls and
  connection pools;
* :mod:`app.observability.exposition`: the metrics listener, multiprocess mode;
* :mod:`app.observability.tracing`: the SDK, the instrumentations, and the
  allow-list every exported span passes.

Nothing here decides anything: the layers hold optional observers (``None`` when
metrics and tracing are off), wired in ``app/services.py``.
"""
