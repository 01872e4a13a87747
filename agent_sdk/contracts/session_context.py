"""``AgentSessionContext``: the open, versioned bag of per-turn context providers.

``{"version": N, "providers": {...}}`` with an open map of providers (``surface``,
``cpc``, ``kb``, ``permissions``, ``clientTools``, and tomorrow's new keys). Newer and
older payloads parse both ways: an unknown provider is kept raw, unknown fields are
ignored, an absent provider is ``None``. Known providers are typed lazily on access; a
malformed one raises :class:`pydantic.ValidationError` when read. Orientation, never
authority (decisions.md S3-1, S3-12).

Example::

    ctx = AgentSessionContext.model_validate(payload)
    surface = ctx.surface()            # SurfaceProvider | None
    page = ctx.current_page()          # CurrentPageContext | None (provider "cpc")
    deadlines = ctx.provider("deadlines")  # raw dict | None
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import Field, PrivateAttr, StrictInt, StrictStr, ValidationError, field_validator

from agent_sdk.contracts._base import (
    MAX_CONTEXT_MEMBERS,
    MAX_ENTRY_MEMBERS,
    MAX_INTEGER,
    OpenContract,
    SurfaceKey,
    check_json_bounds,
    nested_error,
)

__all__ = [
    "KNOWN_PROVIDERS",
    "MAX_AVAILABLE_SURFACES",
    "MAX_PROVIDERS",
    "AgentSessionContext",
    "ClientToolEntry",
    "ClientToolsProvider",
    "CurrentPageContext",
    "KnowledgeBaseProvider",
    "PermissionsProvider",
    "SurfaceEntry",
    "SurfaceProvider",
]

MAX_PROVIDERS = 64
MAX_AVAILABLE_SURFACES = 200
_TEXT = 200
_NAME = 128


class SurfaceEntry(OpenContract):
    """One surface the client offers (an entry of ``surface.available_surfaces``).

    Attributes:
        surface_key: Durable key of the surface (``matters.list``); never a URL.
        title: What the client shows for it.
        required_permission: The client's claim of what the surface needs. The server
            never trusts it: the surface registry owns each key's permission.
    """

    max_members: ClassVar[int] = MAX_ENTRY_MEMBERS

    surface_key: SurfaceKey
    title: StrictStr | None = Field(default=None, max_length=_TEXT)
    required_permission: StrictStr | None = Field(default=None, max_length=_NAME)


class SurfaceProvider(OpenContract):
    """Provider ``surface``: where the person is and which surfaces the client offers.

    Attributes:
        current_surface_key: The surface the person is on now.
        available_surfaces: The surfaces the client could navigate to (a hint: the
            server re-filters them per caller and turn).
    """

    current_surface_key: SurfaceKey | None = None
    available_surfaces: tuple[SurfaceEntry, ...] = Field(
        default=(), max_length=MAX_AVAILABLE_SURFACES
    )


class CurrentPageContext(OpenContract):
    """Provider ``cpc``: what is on the person's page right now.

    Attributes:
        surface_key: The surface the page belongs to.
        entity_type: Kind of the entity shown (``matter``).
        entity_id: Id of the entity shown.
        title: Title of the page.
    """

    surface_key: SurfaceKey | None = None
    entity_type: StrictStr | None = Field(default=None, max_length=64)
    entity_id: StrictStr | None = Field(default=None, max_length=_NAME)
    title: StrictStr | None = Field(default=None, max_length=_TEXT)


class KnowledgeBaseProvider(OpenContract):
    """Provider ``kb``: the knowledge-base collections and documents in scope.

    Attributes:
        collection_keys: Keys of the collections in scope.
        document_ids: Ids of the documents in scope.
    """

    collection_keys: tuple[StrictStr, ...] = Field(default=(), max_length=50)
    document_ids: tuple[StrictStr, ...] = Field(default=(), max_length=200)


class PermissionsProvider(OpenContract):
    """Provider ``permissions``: what the client believes the person may do.

    Orientation for the client's own rendering only. The server ignores it entirely
    and re-derives the caller's grants from the session; it never reaches the policy
    engine or a log.

    Attributes:
        granted: Permission strings the client believes the person holds.
    """

    granted: tuple[StrictStr, ...] = Field(default=(), max_length=200)


class ClientToolEntry(OpenContract):
    """One tool the client says it can execute (an entry of ``clientTools.tools``)."""

    max_members: ClassVar[int] = MAX_ENTRY_MEMBERS

    name: StrictStr = Field(min_length=1, max_length=_NAME)


class ClientToolsProvider(OpenContract):
    """Provider ``clientTools``: the client-plane tools this client can execute.

    A hint only: whether an intent for a tool is accepted is decided by the server's
    tool registry, so a forged entry grants nothing.
    """

    tools: tuple[ClientToolEntry, ...] = Field(default=(), max_length=100)


_Provider = TypeVar("_Provider", bound=OpenContract)

KNOWN_PROVIDERS: dict[str, type[OpenContract]] = {
    "surface": SurfaceProvider,
    "cpc": CurrentPageContext,
    "kb": KnowledgeBaseProvider,
    "permissions": PermissionsProvider,
    "clientTools": ClientToolsProvider,
}
"""The providers this version types, by key; every other key is kept raw."""


class AgentSessionContext(OpenContract):
    """The per-turn context bag ``{version, providers}``; open at every level.

    The typed accessors (:meth:`surface`, :meth:`current_page`, :meth:`knowledge_base`,
    :meth:`permissions`, :meth:`client_tools`) give ``None`` when their provider is
    absent and raise :class:`pydantic.ValidationError` when it is present but malformed.

    Attributes:
        version: Version of the sender's bag (1 today); a higher one still parses.
        providers: Every provider by key, each a JSON object, kept as sent.
    """

    max_members: ClassVar[int] = MAX_CONTEXT_MEMBERS

    version: StrictInt = Field(ge=1, le=MAX_INTEGER)
    providers: dict[StrictStr, dict[StrictStr, Any]] = Field(max_length=MAX_PROVIDERS)

    _parsed: dict[str, OpenContract] = PrivateAttr(default_factory=dict)
    _title: ClassVar[str] = "AgentSessionContext"

    @field_validator("providers")
    @classmethod
    def _unknown_providers_are_bounded(
        cls, providers: dict[str, dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        # A known provider is bounded by its model when it is read; one this version
        # does not know is kept raw, within the bounds of free JSON.
        for key, raw in providers.items():
            if key not in KNOWN_PROVIDERS:
                check_json_bounds(raw)
        return providers

    def _typed(self, key: str, model: type[_Provider]) -> _Provider | None:
        raw = self.providers.get(key)
        if raw is None:
            return None
        cached = self._parsed.get(key)
        if cached is None:
            try:
                cached = model.model_validate(raw)
            except ValidationError as error:
                raise nested_error(self._title, error, ("providers", key)) from None
            self._parsed[key] = cached
        assert isinstance(cached, model)
        return cached

    def surface(self) -> SurfaceProvider | None:
        """The ``surface`` provider."""
        return self._typed("surface", SurfaceProvider)

    def current_page(self) -> CurrentPageContext | None:
        """The ``cpc`` provider (current page context)."""
        return self._typed("cpc", CurrentPageContext)

    def knowledge_base(self) -> KnowledgeBaseProvider | None:
        """The ``kb`` provider."""
        return self._typed("kb", KnowledgeBaseProvider)

    def permissions(self) -> PermissionsProvider | None:
        """The ``permissions`` provider (the client's belief, never authority)."""
        return self._typed("permissions", PermissionsProvider)

    def client_tools(self) -> ClientToolsProvider | None:
        """The ``clientTools`` provider."""
        return self._typed("clientTools", ClientToolsProvider)

    def provider(self, key: str) -> dict[str, Any] | None:
        """Any provider as sent (raw JSON object), known or not; ``None`` when absent."""
        return self.providers.get(key)

    def check_known_providers(self) -> None:
        """Parse every known provider that is present (the server's strict boundary).

        Raises:
            pydantic.ValidationError: a known provider is malformed; the locations
                start at ``providers``.
        """
        for key, model in KNOWN_PROVIDERS.items():
            self._typed(key, model)
