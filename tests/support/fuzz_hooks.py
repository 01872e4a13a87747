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

Two client habits are mixed into the run (issue 19) without adding much to its time:

* every JSON body goes out under a ``Content-Type`` in one of several letter cases
  (media types are case-insensitive), chosen per case from its content, so every check
  of the run holds for ``APPLICATION/JSON`` as for ``application/json``;
* one case in :data:`SLASH_EVERY` is sent a second time with a trailing slash on its
  path, which must be 404 Problem JSON like any unknown path, with no ``Location``
  (``Host`` is set to another host to show that no URL is ever built from it).
"""

from __future__ import annotations

import json
import zlib
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
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


MEDIA_TYPES = (
    "application/json",
    "Application/json",
    "APPLICATION/JSON",
    "application/JSON; Charset=UTF-8",
)
# One case in this many is sent once more with a trailing slash.
SLASH_EVERY = 8


def _pick(case: Any, salt: str) -> int:
    """A number fixed by the case's content (the run is seeded, so are the picks)."""
    body = case.body if isinstance(case.body, dict | list | str | int | float) else None
    key = f"{salt}|{case.method}|{case.formatted_path}|{json.dumps(body, sort_keys=True)}"
    return zlib.crc32(key.encode("utf-8", "surrogatepass"))


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    """Send a JSON body under a media type in one of several letter cases."""
    if case.media_type != "application/json" or case.body is None:
        return
    scenario = getattr(getattr(getattr(case.meta, "phase", None), "data", None), "scenario", None)
    if getattr(scenario, "value", None) == "missing_parameter":
        return  # a case about a missing header (Authorization): sent exactly as generated
    headers = case.headers if case.headers is not None else {}
    if any(name.lower() == "content-type" for name in headers):
        return  # the case names its own (perhaps wrong) media type: keep it
    headers["Content-Type"] = MEDIA_TYPES[_pick(case, "media") % len(MEDIA_TYPES)]
    case.headers = headers


@schemathesis.check
def trailing_slash_is_an_unknown_path(ctx: Any, response: Any, case: Any) -> bool | None:
    """A sample of cases, again with a trailing slash: 404 Problem JSON, no redirect."""
    if _pick(case, "slash") % SLASH_EVERY:
        return None
    sent = response.request.copy()
    parts = urlsplit(sent.url)
    sent.url = urlunsplit(parts._replace(path=parts.path + "/"))
    sent.headers["Host"] = "evil.example"
    with requests.Session() as session:
        again = session.send(sent, allow_redirects=False, timeout=30)
    if again.status_code != 404 or "location" in again.headers:
        raise AssertionError(
            f"{case.method} {parts.path}/ answered {again.status_code} "
            f"(Location: {again.headers.get('location')}); expected 404 Problem JSON"
        )
    body = again.json()
    if body.get("code") != "not_found" or body.get("correlation_id") != again.headers.get(
        "x-correlation-id"
    ):
        raise AssertionError(f"{case.method} {parts.path}/ answered a 404 that is not the Problem")
    return None
