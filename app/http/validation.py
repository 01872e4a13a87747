"""Request validators that answer with our Problem codes and never echo values.

Connexion's stock validators answer 400 for both malformed JSON and schema errors and
log the offending value (``'<content>' is too long``). Ours keep the two apart
(400 ``invalid_request`` for a body that is not JSON, 422 ``validation_failed`` for a
schema violation), and report only the JSON path and the failed keyword, so neither
logs nor error bodies carry message content.

They also read the contract strictly where Python's defaults are loose:

* the body is parsed by :func:`app.http.safe_json.parse_json_body` (nesting depth and
  integer length bounded, 400 instead of a ``RecursionError`` or ``ValueError``);
* ``format: uuid`` and every ``pattern`` match the whole value: OpenAPI patterns are
  ECMA-262, where ``$`` ends the input, while Python's ``$`` also matches before a
  trailing newline (``"<uuid>\n"`` must not reach SQL);
* ``format: date-time`` is RFC 3339 (``T``, seconds, ``Z`` or an offset) within what
  PostgreSQL's ``timestamptz`` stores: year 1 or later and an offset of at most
  15:59 either way;
* integer query parameters are plain ASCII digits (``limit=+5``, ``limit=5_0`` or
  Arabic-Indic digits are 422, although Python's ``int()`` takes them).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterator
from typing import Any

from connexion.datastructures import MediaTypeDict
from connexion.json_schema import Draft4RequestValidator
from connexion.validators import (
    VALIDATOR_MAP,
    FormDataValidator,
    JSONRequestBodyValidator,
    MultiPartFormDataValidator,
    ParameterValidator,
)
from jsonschema import FormatChecker, ValidationError
from jsonschema.validators import extend
from starlette.datastructures import QueryParams

from app.config import SCHEMA
from app.domain.comms import is_uuid
from app.errors import FieldError, InvalidRequest, ValidationFailed
from app.http.safe_json import parse_json_body
from app.services import services_var

__all__ = ["validator_map"]

_SURROGATE = re.compile("[\\ud800-\\udfff]")


def _field_error(error: ValidationError, prefix: str) -> FieldError:
    path = "/".join(str(part) for part in error.absolute_path)
    message = f"violates '{error.validator}'"
    if error.validator == "required" and isinstance(error.validator_value, list):
        instance = error.instance if isinstance(error.instance, dict) else {}
        missing = [name for name in error.validator_value if name not in instance]
        message = f"missing required field(s): {', '.join(missing)}"
    elif error.validator == "additionalProperties":
        message = "unknown field"
        if isinstance(error.instance, dict) and isinstance(error.schema, dict):
            known = set(error.schema.get("properties", {}))
            unknown = sorted(name for name in error.instance if name not in known)
            message = f"unknown field(s): {', '.join(unknown)}"
    return {"path": f"{prefix}/{path}" if path else prefix, "message": message}


class ProblemJSONBodyValidator(JSONRequestBodyValidator):  # type: ignore[misc]
    """JSON body validation: 400 for unparsable JSON, 422 listing every violation."""

    @property
    def _validator(self) -> Any:
        return _RequestValidator(self._schema, format_checker=FORMAT_CHECKER)

    async def _parse(self, stream: Any, scope: Any) -> Any:
        raw = b"".join([message async for message in stream])
        if not raw:
            return None
        return parse_json_body(
            raw,
            max_depth=_limit("http.max_json_depth"),
            max_integer_digits=_limit("http.max_json_integer_digits"),
        )

    def _validate(self, body: Any) -> dict[str, Any] | None:
        if not self._nullable and body is None:
            raise InvalidRequest("The request body must not be empty.")
        errors = sorted(self._validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        if errors:
            raise ValidationFailed(
                "The request body does not match the schema.",
                [_field_error(error, "body") for error in errors],
            )
        unstorable = list(_unstorable_strings(body, "body"))
        if unstorable:
            raise ValidationFailed(
                "The request body holds text that cannot be stored.",
                [{"path": path, "message": "NUL or unpaired surrogate"} for path in unstorable],
            )
        return None


_DEFAULTS = {key.name: key.default for key in SCHEMA}


def _limit(name: str) -> int:
    """A limit of the app serving this request (the default outside one, e.g. in tests)."""
    services = services_var.get(None)
    value: int = services.settings.integer(name) if services is not None else _DEFAULTS[name]
    return value


def _unstorable_strings(value: Any, path: str) -> Iterator[str]:
    """Paths of strings PostgreSQL text cannot hold (NUL) or UTF-8 cannot encode.

    JSON allows ``\u0000`` and lone surrogates such as ``\ud800``; left alone they fail
    only at the database or the encoder, which would turn a client mistake into a 500.
    """
    if isinstance(value, str):
        if "\x00" in value or _SURROGATE.search(value):
            yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unstorable_strings(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unstorable_strings(item, f"{path}/{index}")


class ProblemParameterValidator(ParameterValidator):  # type: ignore[misc]
    """Parameter validation: 422 naming the parameter, never its value."""

    def validate_request(self, request: Any) -> None:
        # The raw query: Connexion's parsed one is already coerced by int().
        raw_query = QueryParams(request.scope.get("query_string", b""))
        for param in self.parameters.get("query", []):
            if param.get("schema", {}).get("type") != "integer":
                continue
            values = raw_query.getlist(param["name"])
            if any(not _ASCII_INTEGER.fullmatch(value) for value in values):
                raise ValidationFailed(
                    "A parameter does not match the schema.",
                    [{"path": f"query/{param['name']}", "message": "invalid value"}],
                )
        if self.strict_validation:
            extra = self.validate_query_parameter_list(
                request, security_params=self.security_query_params
            )
            if extra:
                raise ValidationFailed(
                    "Unknown query parameter.",
                    [
                        {"path": f"query/{name}", "message": "unknown parameter"}
                        for name in sorted(extra)
                    ],
                )
        checks = (
            ("query", self.validate_query_parameter),
            ("path", self.validate_path_parameter),
            ("header", self.validate_header_parameter),
            ("cookie", self.validate_cookie_parameter),
        )
        for location, check in checks:
            for param in self.parameters.get(location, []):
                if check(param, request) or not _format_ok(location, param, request):
                    raise ValidationFailed(
                        "A parameter does not match the schema.",
                        [{"path": f"{location}/{param['name']}", "message": "invalid value"}],
                    )


def _format_ok(location: str, param: dict[str, Any], request: Any) -> bool:
    # Connexion's Draft 4 format checker knows no "uuid"; ids must not reach SQL unchecked.
    schema = param.get("schema", param)
    if schema.get("format") != "uuid":
        return True
    sources = {
        "query": request.query_params,
        "path": request.path_params,
        "header": request.headers,
        "cookie": request.cookies,
    }
    value = sources[location].get(
        param["name"].replace("-", "_") if location == "path" else param["name"]
    )
    return value is None or FORMAT_CHECKER.conforms(value, "uuid")


def validator_map() -> dict[str, Any]:
    """Connexion's validator map with our parameter and JSON body validators."""
    mapping = dict(VALIDATOR_MAP)
    mapping["parameter"] = ProblemParameterValidator
    mapping["body"] = MediaTypeDict(
        {
            "*/*json": ProblemJSONBodyValidator,
            "application/x-www-form-urlencoded": FormDataValidator,
            "multipart/form-data": MultiPartFormDataValidator,
        }
    )
    return mapping


# RFC 3339 date-time; the offset hours stop at 15 because PostgreSQL refuses more.
_DATE_TIME = re.compile(
    r"(?P<year>[0-9]{4})-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
    r"(?:[Zz]|[+-](?:0[0-9]|1[0-5]):[0-5][0-9])"
)
# Plain ASCII digits (an optional minus): what ``int()`` would also take in
# "+5", " 5", "5_0" or non-ASCII digits is not an integer of the contract.
_ASCII_INTEGER = re.compile(r"-?[0-9]{1,18}")
FORMAT_CHECKER = FormatChecker()


def _is_uuid(value: object) -> bool:
    return not isinstance(value, str) or is_uuid(value)


def _is_date_time(value: object) -> bool:
    if isinstance(value, str):
        match = _DATE_TIME.fullmatch(value)
        if match is None or int(match["year"]) < 1:
            raise ValueError("not an RFC 3339 date-time PostgreSQL can store")
        # Calendar check (month 13, February 30, hour 24); leap seconds are refused too.
        parsed = dt.datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
        try:
            # The instant in UTC must lie in years 1 to 9999 too, or reading the stored
            # value back into Python would fail.
            parsed.astimezone(dt.UTC)
        except OverflowError as exc:
            raise ValueError("date-time out of range") from exc
    return True


FORMAT_CHECKER.checks("uuid")(_is_uuid)
FORMAT_CHECKER.checks("date-time", raises=ValueError)(_is_date_time)


@functools.lru_cache(maxsize=256)
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled with ECMA-262's reading of ``$`` (end of input only).

    Each ``$`` outside a character class and not escaped becomes ``\\Z``, so a value
    with a trailing newline no longer matches ``^...$``.
    """
    out: list[str] = []
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            out.append("\\Z")
            continue
        out.append(char)
    return re.compile("".join(out))


def _ecma_pattern(_validator: Any, pattern: str, instance: Any, _schema: Any) -> Iterator[Any]:
    if isinstance(instance, str) and _ecma_regex(pattern).search(instance) is None:
        yield ValidationError(f"does not match {pattern!r}")


_RequestValidator = extend(Draft4RequestValidator, {"pattern": _ecma_pattern})
