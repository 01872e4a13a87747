"""Request validators that answer with our Problem codes and never echo values.

Connexion's stock validators answer 400 for both malformed JSON and schema errors and
log the offending value (``'<content>' is too long``). Ours keep the two apart
(400 ``invalid_request`` for a body that is not JSON, 422 ``validation_failed`` for a
schema violation), and report only the JSON path and the failed keyword, so neither
logs nor error bodies carry message content.

They also read the contract strictly where Python's defaults are loose:

* the body is parsed by :func:`app.http.safe_json.parse_json_body` (nesting depth,
  integer length and the number of arrays and objects bounded, 400 instead of a
  ``RecursionError`` or ``ValueError``);
* ``format: uuid`` and every ``pattern`` match the whole value: OpenAPI patterns are
  ECMA-262, where ``$`` ends the input, while Python's ``$`` also matches before a
  trailing newline (``"<uuid>\n"`` must not reach SQL);
* ``format: date-time`` is RFC 3339 (``T``, seconds, ``Z`` or an offset) within what
  PostgreSQL's ``timestamptz`` stores: year 1 or later and an offset of at most
  15:59 either way;
* integer query parameters are plain ASCII digits (``limit=+5``, ``limit=5_0`` or
  Arabic-Indic digits are 422, although Python's ``int()`` takes them).

The work one request can cause is bounded (issue 19), whatever it holds below
``http.max_body_bytes``:

* size keywords come first: an array longer than its ``maxItems`` (an object with more
  members than its ``maxProperties``) is one violation, and its items (members) are
  not looked at;
* ``anyOf``/``oneOf`` look at each branch only until its first violation, which is
  all it takes to know the branch fails (jsonschema's own keep every violation of
  every branch, nested ones included, and quote the whole instance);
* a closed object's unknown fields are one violation naming at most a few of them;
* at most ``http.max_validation_errors`` violations are listed; further ones are only
  counted (``errors_omitted``);
* every client-chosen key in a path or message is a bounded, escaped prefix
  (:mod:`app.domain.echo`), and a NUL or unpaired surrogate in a key is refused like
  one in a value.

Ids are canonical: every ``format: uuid`` value of a path, a query or a body is
accepted in any case and handed on in lower case (the form PostgreSQL returns and the
policies compare), so an id means the same resource whatever its case.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlencode

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

from app.domain.comms import is_uuid
from app.domain.echo import join_path, name_list
from app.domain.text import is_unstorable
from app.errors import FieldError, InvalidRequest, ValidationFailed
from app.http.app_state import integer_setting
from app.http.bounded_schema import bounded_validator
from app.http.canonical_ids import lower_ids_of
from app.http.safe_json import parse_json_body

__all__ = ["IN_BAND_TEXT", "bounded_errors", "validator_map"]

# Top-level body members whose text is checked by the operation itself and answered
# in band (the relay's call, decision D12), not by the body-wide text rule.
IN_BAND_TEXT = "x-unstorable-text-in-band"
_UNSTORABLE = "NUL or unpaired surrogate"


def _field_error(error: ValidationError, prefix: str) -> FieldError:
    path = join_path(prefix, error.absolute_path)
    message = f"violates '{error.validator}'"
    if error.validator == "required" and isinstance(error.validator_value, list):
        instance = error.instance if isinstance(error.instance, dict) else {}
        missing = [name for name in error.validator_value if name not in instance]
        message = f"missing required field(s): {name_list(missing)}"
    elif error.validator == "additionalProperties" and error.validator_value is False:
        message = "unknown field"
        if isinstance(error.instance, dict) and isinstance(error.schema, dict):
            known = error.schema.get("properties", {})
            unknown = (name for name in error.instance if name not in known)
            # A sorted, bounded prefix of the names; the rest are only counted.
            first = sorted(itertools.islice(unknown, _NAMES_SORTED))
            message = f"unknown field(s): {name_list(itertools.chain(first, unknown))}"
    return {"path": path, "message": message}


# Unknown field names read before the first few are listed (sorted).
_NAMES_SORTED = 100


def bounded_errors(
    errors: Iterator[Any], limit: int, formatted: Callable[[Any], FieldError]
) -> tuple[list[FieldError], int]:
    """The first ``limit`` of ``errors`` formatted and sorted by path, and how many more.

    The rest are only counted: nothing of them is formatted or kept.
    """
    shown = [formatted(error) for error in itertools.islice(errors, limit)]
    omitted = sum(1 for _ in errors)
    return sorted(shown, key=lambda error: error["path"]), omitted


class ProblemJSONBodyValidator(JSONRequestBodyValidator):  # type: ignore[misc]
    """JSON body validation: 400 for unparsable JSON, 422 listing a bounded number of
    violations; ids handed on in lower case."""

    _lowered = False
    # Whether the raw body may hold a NUL or a surrogate (True until _parse has looked).
    _escapes = True
    # The request's scope, whose app sets the limits (None: the defaults; set by _parse).
    _request_scope: Any = None

    @property
    def MUTABLE_VALIDATION(self) -> bool:
        """Replay the body re-encoded only when ids were lower-cased in it.

        Connexion re-encodes with ``json.dumps``, whose ``ensure_ascii`` keeps text the
        operation checks itself (the relay's call) encodable.
        """
        return self._lowered

    @property
    def _validator(self) -> Any:
        return _RequestValidator(self._schema, format_checker=FORMAT_CHECKER)

    async def _parse(self, stream: Any, scope: Any) -> Any:
        self._request_scope = scope
        raw = b"".join([message async for message in stream])
        if not raw:
            return None
        # JSON text can carry a NUL or a surrogate only as a \\u escape (a raw control
        # character is a parse error and raw surrogates are not UTF-8): without one, no
        # string or key needs the walk below.
        self._escapes = _UNSTORABLE_ESCAPE.search(raw) is not None
        return parse_json_body(
            raw,
            max_depth=integer_setting(scope, "http.max_json_depth"),
            max_integer_digits=integer_setting(scope, "http.max_json_integer_digits"),
            max_containers=integer_setting(scope, "http.max_json_containers"),
        )

    def _validate(self, body: Any) -> dict[str, Any] | None:
        if not self._nullable and body is None:
            raise InvalidRequest("The request body must not be empty.")
        limit = integer_setting(self._request_scope, "http.max_validation_errors")
        errors, omitted = bounded_errors(
            iter(self._validator.iter_errors(body)),
            limit,
            lambda error: _field_error(error, "body"),
        )
        if errors:
            raise ValidationFailed(
                "The request body does not match the schema.", errors, omitted=omitted
            )
        in_band = frozenset(self._schema.get(IN_BAND_TEXT, ()))
        errors, omitted = bounded_errors(
            _unstorable_paths(body, "body", in_band) if self._escapes else iter(()),
            limit,
            lambda path: {"path": path, "message": _UNSTORABLE},
        )
        if errors:
            raise ValidationFailed(
                "The request body holds text that cannot be stored.", errors, omitted=omitted
            )
        self._lowered = lower_ids_of(self._schema, body)
        return None


# \u0000 or a surrogate escape (\uD800 to \uDFFF), in any case.
_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


_Trail = tuple[Any, ...] | None


def _unstorable_paths(value: Any, prefix: str, skip: frozenset[str]) -> Iterator[str]:
    """Paths of strings and keys PostgreSQL text cannot hold (NUL) or UTF-8 cannot encode.

    JSON allows ``\\u0000`` and lone surrogates such as ``\\ud800``, in values and in
    keys; left alone they fail only at the database or the encoder, which would turn a
    client mistake into a 500. Iterative, in document order, and a path is only built
    for a hit; top-level members named in ``skip`` are left to the operation.
    """
    # Each entry's trail is (parent trail, key) back to the root: a path is built from
    # it only for a hit.
    stack: list[tuple[Any, _Trail]] = [(value, None)]
    while stack:
        item, trail = stack.pop()
        if isinstance(item, str):
            if is_unstorable(item):
                yield join_path(prefix, _parts(trail))
            continue
        if isinstance(item, dict):
            children: list[tuple[Any, _Trail]] = []
            for key, child in item.items():
                if trail is None and key in skip:
                    continue
                if is_unstorable(key):
                    yield join_path(prefix, [*_parts(trail), key])
                if isinstance(child, str | dict | list):
                    children.append((child, (trail, key)))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend(
                (child, (trail, index))
                for index, child in reversed(list(enumerate(item)))
                if isinstance(child, str | dict | list)
            )


def _parts(trail: _Trail) -> list[Any]:
    parts: list[Any] = []
    while trail is not None:
        trail, part = trail
        parts.append(part)
    return parts[::-1]


class ProblemParameterValidator(ParameterValidator):  # type: ignore[misc]
    """Parameter validation: 422 naming the parameter, never its value; ids handed on
    in lower case."""

    def validate(self, scope: Any) -> None:
        """Validate, then lower-case the ``format: uuid`` path and query values in ``scope``."""
        super().validate(scope)
        _lower_parameter_ids(self.parameters, scope)

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
                errors, omitted = bounded_errors(
                    iter(sorted(extra)),
                    integer_setting(request.scope, "http.max_validation_errors"),
                    lambda name: {
                        "path": join_path("query", [name]),
                        "message": "unknown parameter",
                    },
                )
                raise ValidationFailed("Unknown query parameter.", errors, omitted=omitted)
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


def _is_id_parameter(param: Mapping[str, Any]) -> bool:
    schema: Mapping[str, Any] = param.get("schema", param)
    return schema.get("format") == "uuid"


def _lower_parameter_ids(parameters: Mapping[str, Any], scope: Any) -> None:
    """Lower-case the validated id parameters of the path and the query in ``scope``."""
    path_params = scope.get("path_params", {})
    for param in parameters.get("path", []):
        name = param["name"].replace("-", "_")
        value = path_params.get(name)
        if _is_id_parameter(param) and isinstance(value, str):
            path_params[name] = value.lower()
    names = {param["name"] for param in parameters.get("query", []) if _is_id_parameter(param)}
    if not names:
        return
    query = QueryParams(scope.get("query_string", b""))
    items = query.multi_items()
    lowered = [(name, value.lower() if name in names else value) for name, value in items]
    if lowered != items:
        scope["query_string"] = urlencode(lowered).encode("latin-1")


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


def _ecma_pattern(_validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if not isinstance(instance, str):
        return
    if len(instance) > schema.get("maxLength", len(instance)):
        return  # maxLength reports it; no regex runs over a megabyte
    if _ecma_regex(pattern).search(instance) is None:
        yield ValidationError(f"does not match {pattern!r}")


_RequestValidator = extend(bounded_validator(Draft4RequestValidator), {"pattern": _ecma_pattern})
