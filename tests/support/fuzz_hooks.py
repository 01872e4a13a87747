"""schemathesis hooks for the fuzzing run (loaded through ``hooks`` in its config).

The built-in ``positive_data_acceptance`` check is told to accept 422, because some
operations have rules OpenAPI cannot state (an id that must name an existing
entity, a limit bounded by configuration). This check then makes the 422 honest: a
422 for a schema-valid request is accepted only when every violation it lists is at
a path the operation declares under ``x-semantic-422`` (the rules are described in
the operation's description), or when it only reports text PostgreSQL cannot store,
a rule the spec states once for every body (``x-unstorable-text-422``). Any other
422 for a valid request, and any Problem
JSON whose ``X-Correlation-Id`` header differs from its body, fails the run.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

# The message of the body-wide text rule (app/http/validation.py).
_TEXT = "NUL or unpaired surrogate"


@schemathesis.check
def documented_semantic_422(ctx: Any, response: Any, case: Any) -> bool | None:
    """A 422 for a schema-valid request names only the operation's declared rule paths."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    declared = set(case.operation.definition.raw.get("x-semantic-422", []))
    try:
        errors = json.loads(response.content).get("errors", [])
    except (ValueError, AttributeError):
        errors = []
    if case.operation.schema.raw_schema.get("x-unstorable-text-422") is True:
        # The spec states this rule once for every body (info.description).
        errors = [e for e in errors if not (isinstance(e, dict) and e.get("message") == _TEXT)]
        if not errors:
            return None
    paths = {error.get("path") for error in errors if isinstance(error, dict)}
    undeclared = sorted(str(path) for path in paths - declared) if paths else ["<none listed>"]
    if undeclared:
        raise AssertionError(
            f"422 for a schema-valid request at {', '.join(undeclared)}: state the rule in "
            "the schema, or declare the path under x-semantic-422 and describe it"
        )
    return None


@schemathesis.check
def problem_correlation(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every response has X-Correlation-Id; a Problem body repeats it."""
    # schemathesis' headers: lower-case names, each with a list of values.
    correlation = response.headers.get("x-correlation-id") or []
    if len(correlation) != 1:
        raise AssertionError("response without exactly one X-Correlation-Id")
    content_type = " ".join(response.headers.get("content-type") or [])
    if "application/problem+json" in content_type:
        body = json.loads(response.content)
        if body.get("correlation_id") != correlation[0]:
            raise AssertionError("Problem correlation_id differs from the X-Correlation-Id header")
    return None
