"""The adapter SDK of agent-authz: what an agent adapter and a runner import.

It imports nothing of the server (no ``app``, ``repositories``, SQLAlchemy or
Connexion; a test enforces it) and needs only ``httpx``, ``attrs`` and ``pydantic``,
so it can be installed or vendored alone.

* :mod:`agent_sdk.rest`: typed clients, :class:`PrincipalClient` (agent or person
  token; with the run privacy operations) and :class:`RunnerClient` (runner token),
  over the client generated from ``openapi/openapi.yaml`` (:mod:`agent_sdk.client`).
  They are the SDK's only HTTP clients.
* :mod:`agent_sdk.relay`: :class:`SessionRelay`, the runner side of the comms relay.
* :mod:`agent_sdk.comms`: :class:`CommsBroker` over the runner's transport seam (no
  token) and the tools ``comms_post_message`` and ``comms_list_messages``
  (:func:`create_comms_tools`).
* :mod:`agent_sdk.render`: fenced renderers for the comms transcript and the run
  context that a message body cannot forge.
* :mod:`agent_sdk.errors`: every exception, under :class:`SdkError`.
* :mod:`agent_sdk.policy_reasons`: the closed list of policy reasons (shared with the
  server, no imports).
* :mod:`agent_sdk.privacy`: the guarded dispatch helper that records every provider
  attempt (through :meth:`PrincipalClient.record_attempt`) before the chat or tool
  adapter is called.
* :mod:`agent_sdk.contracts`: the wire contracts shared with the server (pydantic);
  the server imports them from here, never the reverse.

The names below are importable from the package itself (``from agent_sdk import
PrincipalClient``); each module is imported when one of its names is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_sdk.comms import CommsBroker, CommsTool, CommsTransport, create_comms_tools
    from agent_sdk.errors import (
        ApiProblem,
        CommsToolError,
        NoAuthorizedRequest,
        SdkError,
        ToolParameterError,
    )
    from agent_sdk.relay import SessionRelay
    from agent_sdk.render import (
        RenderedRunContext,
        parse_run_context,
        parse_transcript,
        render_run_context,
        render_transcript,
    )
    from agent_sdk.rest import PrincipalClient, RunnerClient

__all__ = [
    "ApiProblem",
    "CommsBroker",
    "CommsTool",
    "CommsToolError",
    "CommsTransport",
    "NoAuthorizedRequest",
    "PrincipalClient",
    "RenderedRunContext",
    "RunnerClient",
    "SdkError",
    "SessionRelay",
    "ToolParameterError",
    "create_comms_tools",
    "parse_run_context",
    "parse_transcript",
    "render_run_context",
    "render_transcript",
]

# Every name above, by the module that defines it. They are imported on first use
# (PEP 562): the server imports only agent_sdk.contracts and never pays for the HTTP
# client, the relay, the comms tools or the renderers.
_EXPORTS: dict[str, str] = {
    "ApiProblem": "agent_sdk.errors",
    "CommsBroker": "agent_sdk.comms",
    "CommsTool": "agent_sdk.comms",
    "CommsToolError": "agent_sdk.errors",
    "CommsTransport": "agent_sdk.comms",
    "NoAuthorizedRequest": "agent_sdk.errors",
    "PrincipalClient": "agent_sdk.rest",
    "RenderedRunContext": "agent_sdk.render",
    "RunnerClient": "agent_sdk.rest",
    "SdkError": "agent_sdk.errors",
    "SessionRelay": "agent_sdk.relay",
    "ToolParameterError": "agent_sdk.errors",
    "create_comms_tools": "agent_sdk.comms",
    "parse_run_context": "agent_sdk.render",
    "parse_transcript": "agent_sdk.render",
    "render_run_context": "agent_sdk.render",
    "render_transcript": "agent_sdk.render",
}


if not TYPE_CHECKING:  # mypy sees the imports above, and flags an unknown name

    def __getattr__(name: str) -> Any:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups do not come back here
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
