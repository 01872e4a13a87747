"""Wire contracts shared by adapters and the server: pure pydantic models, no I/O.

The single source of the per-turn session context (decisions.md S3): the open provider bag
:class:`AgentSessionContext`, the typed tool intent :class:`AgentToolIntent` with its
per-tool params (:class:`NavigateParams`, ...), and the request and answer of
``resolveSessionContext``. The server imports this package; it imports nothing of the
server (no ``app``, ``repositories``, SQLAlchemy or Connexion), so an adapter can use
it alone. ``openapi/openapi.yaml`` describes the same shapes; a contract test checks
that both accept and reject the same payloads.

The wire is snake_case, except provider keys, which are names (``clientTools``).
"""

from agent_sdk.contracts._base import (
    IDENTIFIER_PATTERN,
    SURFACE_KEY_MAX_LENGTH,
    SURFACE_KEY_PATTERN,
    Identifier,
    SurfaceKey,
    is_surface_key,
)
from agent_sdk.contracts.resolve import (
    INTENT_REASONS,
    MAX_INTENTS,
    IntentOutcome,
    IntentReason,
    ReachableSurface,
    SessionResolveRequest,
    SessionResolveResponse,
    ToolDecision,
)
from agent_sdk.contracts.session_context import (
    KNOWN_PROVIDERS,
    AgentSessionContext,
    ClientToolEntry,
    ClientToolsProvider,
    CurrentPageContext,
    KnowledgeBaseProvider,
    PermissionsProvider,
    SurfaceEntry,
    SurfaceProvider,
)
from agent_sdk.contracts.tool_intents import (
    NAVIGATE_TO,
    TYPED_TOOL_PARAMS,
    AgentToolIntent,
    NavigateParams,
    ProposeMatterWriteParams,
    QueryMattersParams,
    ToolPlane,
)

__all__ = [
    "IDENTIFIER_PATTERN",
    "INTENT_REASONS",
    "KNOWN_PROVIDERS",
    "MAX_INTENTS",
    "NAVIGATE_TO",
    "SURFACE_KEY_MAX_LENGTH",
    "SURFACE_KEY_PATTERN",
    "TYPED_TOOL_PARAMS",
    "AgentSessionContext",
    "AgentToolIntent",
    "ClientToolEntry",
    "ClientToolsProvider",
    "CurrentPageContext",
    "Identifier",
    "IntentOutcome",
    "IntentReason",
    "KnowledgeBaseProvider",
    "NavigateParams",
    "PermissionsProvider",
    "ProposeMatterWriteParams",
    "QueryMattersParams",
    "ReachableSurface",
    "SessionResolveRequest",
    "SessionResolveResponse",
    "SurfaceEntry",
    "SurfaceKey",
    "SurfaceProvider",
    "ToolDecision",
    "ToolPlane",
    "is_surface_key",
]
