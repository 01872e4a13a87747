"""Configuration: one schema of named keys with types, defaults and descriptions.

Every limit, window and address the service uses is a key of :data:`SCHEMA`. Values
come from, in rising precedence, the defaults below, an optional YAML file named by
``CONFIG_FILE`` (flat ``key: value`` pairs using the dotted key names) and environment
variables named after the key in upper case with dots and dashes as underscores
(``agent.context_max_bytes`` is ``AGENT_CONTEXT_MAX_BYTES``). Code and docs name the
key, never the number, so that an operator can find every knob in one place:
``docs/configuration.md`` is generated from this schema and CI checks it is current.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from app.http.client_address import parse_networks

__all__ = ["SCHEMA", "ConfigError", "Key", "Settings", "load_settings", "render_reference"]


class ConfigError(ValueError):
    """A configuration value is missing, of the wrong type or out of range."""


@dataclass(frozen=True)
class Key:
    """One configuration key: its dotted name, type, default and meaning."""

    name: str
    type: type
    default: Any
    description: str
    minimum: float | None = None
    # Accepts a parsed value or not (e.g. one of a few words, a URL scheme).
    check: Callable[[Any], bool] | None = None
    # An upper bound where the contract states one (a maxItems that depends on the key).
    maximum: float | None = None

    @property
    def env_name(self) -> str:
        """The environment variable that overrides this key."""
        return self.name.upper().replace(".", "_").replace("-", "_")

    def parse(self, raw: Any, source: str) -> Any:
        """Convert ``raw`` to the key's type and check its minimum and maximum.

        Raises:
            ConfigError: the value cannot be converted or lies outside its bounds; the
                message names the key and the source, never a secret value.
        """
        try:
            if self.type is bool:
                value: Any = _parse_bool(raw)
            elif isinstance(raw, bool) or (self.type is int and isinstance(raw, float)):
                # YAML's `true` is an int to Python; `port: true` is a typo, not 1.
                raise ValueError
            else:
                value = self.type(raw)
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{self.name} ({source}): expected {self.type.__name__}") from exc
        if self.minimum is not None and value < self.minimum:
            raise ConfigError(f"{self.name} ({source}): must be at least {self.minimum:g}")
        if self.check is not None and not self.check(value):
            # Never echo the value: a storage URL may carry a password.
            raise ConfigError(
                f"{self.name} ({source}): not an accepted value (see docs/configuration.md)"
            )
        if self.maximum is not None and value > self.maximum:
            raise ConfigError(f"{self.name} ({source}): must be at most {self.maximum:g}")
        return value


def _matches(pattern: str) -> Callable[[Any], bool]:
    """A check that the whole text matches ``pattern``."""
    return lambda value: re.fullmatch(pattern, value) is not None


def _networks(value: Any) -> bool:
    try:
        parse_networks(value)
    except ValueError:
        return False
    return True


def _parse_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    raise ValueError(raw)


def _per_principal_minute(name: str, default: int, requests: str) -> Key:
    """A rate limit of one class of ``requests`` per principal and minute (0: none)."""
    description = f"Requests per principal and minute for {requests}; 0 disables."
    return Key(name, int, default, description, minimum=0)


SCHEMA: tuple[Key, ...] = (
    Key(
        "database.url",
        str,
        "postgresql://postgres@127.0.0.1:5432/agent_authz",
        "PostgreSQL URL of the service database (`postgresql://` is served by psycopg2).",
    ),
    Key("database.pool_size", int, 10, "Connections kept open per app process.", minimum=1),
    Key(
        "database.pool_ping_after_idle_seconds",
        float,
        10.0,
        "A pooled connection that has been idle at least this long is checked with one "
        "round trip when a request takes it; a dead one (the database restarted) is "
        "replaced before the request uses it. Connections in steady use are never "
        "checked, so the hot path gains no round trip; 0 checks on every checkout.",
        minimum=0,
    ),
    Key(
        "database.statement_timeout_ms",
        int,
        5000,
        "Server-side statement timeout; a slower statement fails the request (503).",
        minimum=1,
    ),
    Key("opa.url", str, "http://127.0.0.1:8181", "Base URL of the OPA sidecar."),
    Key(
        "opa.timeout_seconds",
        float,
        2.0,
        "Timeout of one OPA decision; a slower answer fails closed (503).",
        minimum=0.001,
    ),
    Key("opa.pool_size", int, 16, "Keep-alive connections to OPA per app process.", minimum=1),
    Key("host", str, "127.0.0.1", "Interface the HTTP server binds to."),
    Key(
        "server.workers",
        int,
        0,
        "uvicorn worker processes of `python -m app serve`; 0 means one per CPU core.",
        minimum=0,
    ),
    Key("port", int, 8080, "TCP port of the HTTP server.", minimum=1),
    Key("log.level", str, "INFO", "Log level of the app logger (DEBUG, INFO, WARNING, ERROR)."),
    Key(
        "http.max_body_bytes",
        int,
        1048576,
        "Largest request body in bytes; a longer one is answered 413 payload_too_large as "
        "soon as Content-Length or the bytes received exceed it, before it is parsed.",
        minimum=1,
    ),
    Key(
        "http.max_json_depth",
        int,
        32,
        "Deepest nesting of arrays and objects in a JSON request body; deeper is 400 "
        "invalid_request.",
        minimum=1,
    ),
    Key(
        "http.max_json_containers",
        int,
        10000,
        "Most arrays and objects in a JSON request body, counted on its bytes before it "
        "is parsed; more is 400 invalid_request. Each costs the parser and the depth "
        "check far more than its bytes: a megabyte of tiny arrays would cost a hundred "
        "times a normal request.",
        minimum=1,
    ),
    Key(
        "http.max_validation_errors",
        int,
        20,
        "Most violations a 422 validation_failed answer lists in `errors`; validation "
        "stops collecting there and `errors_omitted` says how many more were found. The "
        "contract's Problem.errors holds at most the maximum.",
        minimum=1,
        maximum=100,
    ),
    Key(
        "http.max_json_integer_digits",
        int,
        18,
        "Most digits of one integer literal in a JSON request body; longer is 400 "
        "invalid_request. 18 keeps every integer within a signed 64-bit range, which "
        "orjson, OPA's input and PostgreSQL's bigint share.",
        minimum=1,
    ),
    Key(
        "http.max_header_bytes",
        int,
        65536,
        "Largest request line plus headers in bytes, enforced by the HTTP server before "
        "the app runs; longer is 400 invalid_request and the connection is closed.",
        minimum=1024,
    ),
    Key(
        "agent.context_message_max_bytes",
        int,
        16384,
        "Largest content_md of one run-context element in UTF-8 bytes; longer content is "
        "cut at a character boundary and marked truncated.",
        minimum=1,
    ),
    Key(
        "agent.context_max_bytes",
        int,
        131072,
        "Sum of content_md bytes of thread_context and channel_context in a run context "
        "(the triggering message is never counted).",
        minimum=1,
    ),
    Key(
        "channel.history_backfill_limit_default",
        int,
        50,
        "Earlier messages in a run context when the channel sets no history_backfill_limit.",
        minimum=0,
        maximum=1000,
    ),
    Key(
        "channel.history_backfill_limit_max",
        int,
        500,
        "Upper bound applied to every channel's history_backfill_limit; at most the "
        "contract's maxItems of thread_context and channel_context.",
        minimum=0,
        maximum=1000,
    ),
    Key(
        "audit.deny_aggregate_window",
        int,
        300,
        "Seconds within which equal denials (actor, action, resource kind, reason) share "
        "one audit row.",
        minimum=1,
    ),
    _per_principal_minute("rate_limit.agent_runtime.per_minute", 1200, "agent runtime operations"),
    _per_principal_minute("rate_limit.chat.per_minute", 600, "message operations"),
    _per_principal_minute("rate_limit.admin.per_minute", 1200, "the admin facts API"),
    _per_principal_minute("rate_limit.authz.per_minute", 600, "authz queries"),
    _per_principal_minute(
        "rate_limit.session_context.per_minute",
        600,
        "session-context resolutions (one per agent turn)",
    ),
    Key(
        "rate_limit.runner.per_minute",
        int,
        6000,
        "Requests per runner and minute for the runner endpoints (enrolment, sessions, "
        "comms relay); 0 disables. A relayed call also counts against the bound agent's "
        "messages class (rate_limit.chat.per_minute).",
        minimum=0,
    ),
    Key(
        "rate_limit.failed_auth.per_minute",
        int,
        30,
        "Failed authentications (a bearer token that matches no active token) per client "
        "address and minute; the next request of that address with any token is answered "
        "429 before its token is looked up, until the window has room again. 0 disables. "
        "The address is the TCP peer, or the one X-Forwarded-For names when the peer is "
        "one of rate_limit.trusted_proxies.",
        minimum=0,
    ),
    Key(
        "rate_limit.trusted_proxies",
        str,
        "",
        "Comma-separated IP addresses or networks (CIDR) of the reverse proxies in front of "
        "the service. Only when the TCP peer is one of them is X-Forwarded-For read: the "
        "client address is its right-most entry that is not itself a trusted proxy. Empty: "
        "X-Forwarded-For is ignored.",
        check=_networks,
    ),
    Key(
        "rate_limit.storage",
        str,
        "memory://",
        "Where the rate-limit windows are kept. `memory://`: in the memory of each process, "
        "so every worker and replica limits on its own (a single-process server, tests). A "
        "Redis URL (`redis://[:password@]host:port/db`, `rediss://` for TLS, "
        "`redis+unix:///path/to/socket?db=0`): shared, so each limit holds across all "
        "workers and replicas.",
        check=_matches(r"memory://|(?:redis|rediss|redis\+unix)://\S+"),
    ),
    Key(
        "rate_limit.storage_failure_mode",
        str,
        "open",
        "What a request gets when the rate-limit storage cannot answer: `open` serves it "
        "without limiting (rate limiting is not an authorization decision), `closed` answers "
        "503 service_unavailable. Either way the failure is counted in "
        "agent_authz_rate_limit_storage_failures_total.",
        check=_matches("open|closed"),
    ),
    Key(
        "rate_limit.storage_timeout_seconds",
        float,
        1.0,
        "Longest wait for the rate-limit storage per check (connecting included); a slower "
        "answer counts as a storage failure. Generous on purpose: under CPU overload the "
        "event loop itself is late, and a short timeout would then lift the limits "
        "exactly when they matter; rate_limit.storage_retry_seconds bounds what a hanging "
        "storage costs.",
        minimum=0.001,
    ),
    Key(
        "rate_limit.storage_retry_seconds",
        float,
        1.0,
        "After a storage failure, how long a process stops asking the storage (each check "
        "follows rate_limit.storage_failure_mode meanwhile without waiting); 0 asks again "
        "on the next request.",
        minimum=0,
    ),
    Key(
        "privacy.lock_timeout_ms",
        int,
        2000,
        "How long a provider attempt, run-step or answer write or envelope rotation waits "
        "for the run-row lock held by another request; longer fails closed (503). Keep "
        "it below database.statement_timeout_ms.",
        minimum=1,
    ),
    Key(
        "policy.corpus_file",
        str,
        "",
        "JSON Lines file to which the policy gateway appends every input it sends to OPA "
        "(`{entrypoint, input}` records for the policy impact diff, `python -m app policy "
        "diff`); fields the decision-log mask removes are left out and the record is "
        "marked partial. Empty: off. For test and staging runs only, never in production "
        "(a record that cannot be written fails the request).",
    ),
    Key(
        "policy.require_bundle_revision",
        bool,
        False,
        "Decide only with a signed policy bundle: every OPA answer must name the revision "
        "of the bundle that decided (OPA's provenance), else the request fails closed "
        "(503) and `/readyz` is 503. On in `deploy/k8s/` and `docker-compose.yml`, where "
        "sidecars pull verified bundles; off for `make run`'s working tree and the tests, "
        "whose OPA serves `policies/` as a folder without a revision.",
    ),
    Key(
        "metrics.port",
        int,
        0,
        "TCP port of the Prometheus metrics listener (GET /metrics, no authentication) "
        "that `python -m app serve` starts beside the API; 0 turns metrics off (nothing "
        "is counted). A separate port, so that it can be kept off the public interface.",
        minimum=0,
    ),
    Key(
        "metrics.host",
        str,
        "127.0.0.1",
        "Interface the metrics listener binds to (metrics.port); only the scraper should reach it.",
    ),
)

_BY_NAME: dict[str, Key] = {key.name: key for key in SCHEMA}


class Settings:
    """Validated configuration values, read by key name.

    Accessors are typed per kind so that a wrong key type is caught at the call site;
    an unknown key raises :class:`KeyError` because it is a programming error.
    """

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def integer(self, name: str) -> int:
        """The integer value of ``name``."""
        value = self._values[name]
        if not isinstance(value, int):
            raise TypeError(f"{name} is not an integer key")
        return value

    def number(self, name: str) -> float:
        """The float value of ``name``."""
        return float(self._values[name])

    def flag(self, name: str) -> bool:
        """The boolean value of ``name``."""
        value = self._values[name]
        if not isinstance(value, bool):
            raise TypeError(f"{name} is not a boolean key")
        return value

    def text(self, name: str) -> str:
        """The string value of ``name``."""
        value = self._values[name]
        if not isinstance(value, str):
            raise TypeError(f"{name} is not a text key")
        return value

    def replace(self, **overrides: Any) -> Settings:
        """A copy with some keys changed; keyword names use underscores for dots.

        Tests use it to set limits by key name, e.g.
        ``settings.replace(**{"agent.context_max_bytes": 64})``.
        """
        values = dict(self._values)
        for name, raw in overrides.items():
            key = _BY_NAME[name]
            values[name] = key.parse(raw, "override")
        return Settings(values)


def load_settings(
    environ: Mapping[str, str] | None = None, config_file: str | None = None
) -> Settings:
    """Read defaults, the optional YAML file and the environment into :class:`Settings`.

    Raises:
        ConfigError: a value does not parse, lies below its minimum, or the file names
            an unknown key (a typo must not silently fall back to a default).
    """
    env = os.environ if environ is None else environ
    values = {key.name: key.default for key in SCHEMA}
    path = config_file if config_file is not None else env.get("CONFIG_FILE")
    if path:
        loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: expected a mapping of key names to values")
        for name, raw in loaded.items():
            if name not in _BY_NAME:
                raise ConfigError(f"{path}: unknown configuration key {name!r}")
            values[name] = _BY_NAME[name].parse(raw, path)
    for key in SCHEMA:
        if key.env_name in env:
            values[key.name] = key.parse(env[key.env_name], key.env_name)
    return Settings(values)


def render_reference() -> str:
    """Render ``docs/configuration.md`` from :data:`SCHEMA` (checked in CI)."""
    lines = [
        "# Configuration reference",
        "",
        "Generated from `app/config.py` by `python -m app config-doc`; do not edit by hand.",
        "CI fails when this file and the schema disagree.",
        "",
        "Values come from the defaults below, then the YAML file named by `CONFIG_FILE`",
        "(flat `key: value` pairs with the dotted names), then environment variables named",
        "after the key in upper case with dots as underscores.",
        "",
        "| key | environment variable | type | default | minimum | maximum | meaning |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key in SCHEMA:
        minimum = "" if key.minimum is None else f"{key.minimum:g}"
        shown = str(key.default).lower() if isinstance(key.default, bool) else key.default
        default = "empty" if shown == "" else f"`{shown}`"
        maximum = "" if key.maximum is None else f"{key.maximum:g}"
        lines.append(
            f"| `{key.name}` | `{key.env_name}` | {key.type.__name__} | {default} "
            f"| {minimum} | {maximum} | {key.description} |"
        )
    return "\n".join(lines) + "\n"
