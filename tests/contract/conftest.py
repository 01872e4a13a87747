"""Fixtures of the contract tests: the parsed spec and an openapi-core validator.

Session-scoped: the document is parsed once for every contract module that asks for
it (a module that defines its own ``spec`` fixture uses that one instead).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openapi_core import Config, OpenAPI

from tests.contract.openapi_document import load_spec


@pytest.fixture(scope="session")
def spec() -> dict[str, Any]:
    """The parsed ``openapi/openapi.yaml``, shared by the contract tests."""
    return load_spec()


@pytest.fixture(scope="session")
def openapi(spec: dict[str, Any]) -> OpenAPI:
    """An openapi-core validator over the spec, as the integration tests use it.

    openapi-core deserializes only ``application/json`` (and a few vendor types) on its
    own; without the extra deserializer a Problem body is validated as raw bytes and
    every error response fails.
    """
    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    return OpenAPI.from_dict(spec, config=config)
