"""Structured JSON logs that carry ids and codes, never content.

The formatter writes a fixed message and only the allow-listed ``extra=`` fields
(:data:`ALLOWED_FIELDS`), exceptions by type only; third-party records and Python
warnings become the same JSON lines, and loggers that echo request values stay at
WARNING. The rules and their reasons: ``docs/architecture.md``, "Logging".
"""

from __future__ import annotations

import json
import logging
import sys
import time

from app.http.correlation import current_correlation_id

__all__ = ["ALLOWED_FIELDS", "JsonFormatter", "configure_logging"]

ALLOWED_FIELDS = frozenset(
    {
        "action",
        "resource_kind",
        "reason",
        "status",
        "method",
        "route",
        "duration_ms",
        "run_id",
        "principal_id",
        "operation_id",
        "workers",
        "error",
        "trigger_kind",
        "dropped",
        "opa_calls",
        "sql_statements",
        "port",
        "session_id",
        "call",
        "outcome",
        "policy_revision",
        "acting_for",
    }
)


def _message(record: logging.LogRecord) -> str:
    try:
        return record.getMessage()
    except (TypeError, ValueError):
        # A library's malformed call must not lose the line or raise in a handler.
        return str(record.msg)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, correlation id, fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": _message(record),
        }
        correlation_id = current_correlation_id()
        if correlation_id:
            entry["correlation_id"] = correlation_id
        for name in ALLOWED_FIELDS:
            if name in record.__dict__:
                entry[name] = record.__dict__[name]
        if record.exc_info and record.exc_info[0] is not None:
            # The exception type only: a message or traceback may quote values.
            entry["exception"] = record.exc_info[0].__name__
        return json.dumps(entry, default=str)


def configure_logging(level: str = "INFO", stream: object = None) -> None:
    """Send every logger's records, Python warnings included, to ``stream`` (stderr)
    as JSON lines."""
    handler = logging.StreamHandler(stream or sys.stderr)  # type: ignore[arg-type]
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    # warnings.showwarning would print two plain lines (the warning and its source).
    # Released first: captureWarnings(True) does nothing while it holds an earlier hook.
    logging.captureWarnings(False)
    logging.captureWarnings(True)
    for noisy in ("connexion", "openapi_spec_validator", "uvicorn.access", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # SQLAlchemy logs result rows (content) at DEBUG; statements at INFO carry no
    # values because engines hide their parameters (repositories.engine.make_engine).
    sqlalchemy = logging.getLogger("sqlalchemy")
    if root.level < logging.INFO:
        sqlalchemy.setLevel(logging.INFO)
