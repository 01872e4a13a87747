"""An HTTP client for tests that validates every response against the OpenAPI spec.

Each response (success or error) is checked with openapi-core against
``openapi/openapi.yaml``, and every JSON body is searched for JSON null, which the
contract never emits. A test therefore cannot pass on a body the spec does not allow.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import requests
from openapi_core import Config, OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse

from tests.support.services import REPO_ROOT

__all__ = ["ApiClient", "assert_no_null", "comparable", "openapi"]

# Headers that differ between any two responses, whatever their content.
VOLATILE_HEADERS = frozenset({"x-correlation-id", "date", "content-length"})


@lru_cache(maxsize=1)
def openapi() -> OpenAPI:
    """The parsed spec (cached: parsing takes a while)."""
    # openapi-core has no decoder for Problem JSON; without one every error body fails.
    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    return OpenAPI.from_file_path(str(REPO_ROOT / "openapi" / "openapi.yaml"), config=config)


def assert_no_null(value: Any, path: str = "$") -> None:
    """Fail when ``value`` contains JSON null anywhere."""
    assert value is not None, f"JSON null at {path}"
    if isinstance(value, dict):
        for key, item in value.items():
            assert_no_null(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            assert_no_null(item, f"{path}[{index}]")


def comparable(response: requests.Response) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Status, body and headers of a Problem answer without what differs per request.

    Drops the correlation id (after checking that the body's equals the header's),
    ``instance`` and :data:`VOLATILE_HEADERS`, so that two answers that must not be
    told apart (e.g. an unknown and an invisible resource) compare equal.
    """
    body = dict(response.json())
    assert body.pop("correlation_id") == response.headers["X-Correlation-Id"]
    body.pop("instance", None)
    headers = {
        name.lower(): value
        for name, value in response.headers.items()
        if name.lower() not in VOLATILE_HEADERS
    }
    return response.status_code, body, headers


class ApiClient:
    """requests against the service under test, validated per response."""

    def __init__(self, base_url: str, token: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.session = requests.Session()

    def as_token(self, token: str | None) -> ApiClient:
        """A client for the same server with another bearer token."""
        return ApiClient(self.base_url, token)

    def request(
        self, method: str, path: str, *, validate: bool = True, **kwargs: Any
    ) -> requests.Response:
        """Send a request; validate the response unless ``validate`` is False."""
        headers = dict(kwargs.pop("headers", {}))
        if self.token is not None:
            headers.setdefault("Authorization", f"Bearer {self.token}")
        response = self.session.request(
            method, self.base_url + path, headers=headers, timeout=30, **kwargs
        )
        if validate:
            self.validate(response)
        return response

    @staticmethod
    def validate(response: requests.Response) -> None:
        """Check status, headers and body against the spec; no JSON null."""
        assert "X-Correlation-Id" in response.headers, "missing X-Correlation-Id"
        if response.content:
            content_type = response.headers.get("content-type", "")
            assert "json" in content_type, content_type
            assert_no_null(json.loads(response.content))
        openapi().validate_response(
            RequestsOpenAPIRequest(response.request), RequestsOpenAPIResponse(response)
        )

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        """GET."""
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        """POST."""
        return self.request("POST", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> requests.Response:
        """PATCH."""
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> requests.Response:
        """DELETE."""
        return self.request("DELETE", path, **kwargs)
