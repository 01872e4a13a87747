"""``AgentToolIntent``: what the agent's brain proposes, never executes.

An intent is ``{name, plane, params}``: the named plane (``client`` or ``server``)
executes it once the server accepted it. ``params`` is always a JSON object, typed per
registered tool (:data:`TYPED_TOOL_PARAMS`); ``navigate_to`` targets a durable
``surface_key`` with typed params (:class:`NavigateParams`), never a URL.

Example::

    intent = AgentToolIntent(
        name="navigate_to",
        plane="client",
        params={"surface_key": "matters.detail", "params": {"matter_id": "m-42"}},
    )
    target = intent.typed_params()     # NavigateParams
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import (
    Field,
    PrivateAttr,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from agent_sdk.contracts._base import (
    ClosedContract,
    Identifier,
    RouteValue,
    SurfaceKey,
    check_json_bounds,
    nested_error,
)

__all__ = [
    "NAVIGATE_TO",
    "TYPED_TOOL_PARAMS",
    "AgentToolIntent",
    "NavigateParams",
    "ProposeMatterWriteParams",
    "QueryMattersParams",
    "ToolPlane",
]

ToolPlane = Literal["client", "server"]
"""Who executes a tool: the person's client or the server."""

NAVIGATE_TO = "navigate_to"


class NavigateParams(ClosedContract):
    """Params of ``navigate_to``: a durable surface key, never a URL.

    Closed: an unknown field is an error, so nothing URL-like can ride along.

    Attributes:
        surface_key: The target surface (``matters.detail``).
        params: Route parameters of the surface by name (``{"matter_id": "m-42"}``);
            values are identifiers (no slash, colon or whitespace), integers or
            booleans.
    """

    surface_key: SurfaceKey
    params: dict[StrictStr, RouteValue] = Field(default_factory=dict, max_length=16)


class QueryMattersParams(ClosedContract):
    """Params of the server tool ``query_matters``.

    Attributes:
        query: Free-text search.
        limit: Most matters to return.
    """

    query: StrictStr | None = Field(default=None, min_length=1, max_length=500)
    limit: StrictInt | None = Field(default=None, ge=1, le=100)


class ProposeMatterWriteParams(ClosedContract):
    """Params of the server tool ``propose_matter_write`` (a proposal, not a write).

    Attributes:
        matter_id: The matter the proposal is about.
        changes: Proposed field values by field name.
    """

    matter_id: Identifier
    changes: dict[StrictStr, Any] = Field(min_length=1, max_length=50)


TYPED_TOOL_PARAMS: dict[str, type[ClosedContract]] = {
    NAVIGATE_TO: NavigateParams,
    "query_matters": QueryMattersParams,
    "propose_matter_write": ProposeMatterWriteParams,
}
"""The tools whose params this version types, by name."""


class AgentToolIntent(ClosedContract):
    """One proposed tool call: ``{name, plane, params}``.

    Closed: an unknown field is an error. An unknown ``name`` is not an error here: the
    server denies it (``unknown_tool``), failing closed, without a 422.

    Attributes:
        name: The registered tool's name.
        plane: Who would execute it.
        params: Its params; typed per :data:`TYPED_TOOL_PARAMS`.
    """

    name: StrictStr = Field(min_length=1, max_length=128)
    plane: ToolPlane
    params: dict[StrictStr, Any]

    @field_validator("params")
    @classmethod
    def _params_are_bounded(cls, params: dict[str, Any]) -> dict[str, Any]:
        check_json_bounds(params)
        return params

    # The typed params once parsed, as in AgentSessionContext (a 1-tuple: ``None`` is a
    # valid result). Validation fills it; the server's policy input reuses it.
    _typed: tuple[ClosedContract | None] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _typed_params_are_valid(self) -> Self:
        self.typed_params()
        return self

    def typed_params(self) -> ClosedContract | None:
        """The params as their tool's model, or ``None`` for a tool this version does
        not type.

        Raises:
            pydantic.ValidationError: the params do not fit the tool's model; the
                locations start at ``params``.
        """
        if self._typed is None:
            model = TYPED_TOOL_PARAMS.get(self.name)
            try:
                typed = None if model is None else model.model_validate(self.params)
            except ValidationError as error:
                raise nested_error("AgentToolIntent", error, ("params",)) from None
            self._typed = (typed,)
        return self._typed[0]

    def navigation_target(self) -> str | None:
        """The ``surface_key`` of a ``navigate_to`` intent, else ``None``."""
        params = self.typed_params()
        return params.surface_key if isinstance(params, NavigateParams) else None
