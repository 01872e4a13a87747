"""Request validators that answer with our Problem codes and never echo values.

Connexion's stock validators answer 400 for both malformed JSON and schema errors and
log the offending value (``'<content>' is too long``). Ours keep the two apart
(400 ``invalid_request`` for a body that is not JSON, 422 ``validation_failed`` for a
schema violation), and report only the JSON path and the failed keyword, so neither
logs nor error bodies carry message content.
"""

from __future__ import annotations

import datetime as dt
import json
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

from app.errors import FieldError, InvalidRequest, ValidationFailed

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
        return Draft4RequestValidator(self._schema, format_checker=FORMAT_CHECKER)

    async def _parse(self, stream: Any, scope: Any) -> Any:
        raw = b"".join([message async for message in stream])
        if not raw:
            return None
        try:
            return json.loads(raw.decode(self._encoding))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InvalidRequest("The request body is not valid JSON.") from exc

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


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
FORMAT_CHECKER = FormatChecker()


def _is_uuid(value: object) -> bool:
    return not isinstance(value, str) or bool(_UUID.match(value))


def _is_date_time(value: object) -> bool:
    if isinstance(value, str):
        if "T" not in value.upper() or not re.search(r"(Z|[+-]\d{2}:\d{2})$", value.upper()):
            raise ValueError("date-time needs a time zone")
        dt.datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    return True


FORMAT_CHECKER.checks("uuid")(_is_uuid)
FORMAT_CHECKER.checks("date-time", raises=ValueError)(_is_date_time)
