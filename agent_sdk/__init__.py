"""The adapter SDK of agent-authz: what an agent adapter and a runner import.

It imports nothing of the server (no ``app``, ``repositories``, SQLAlchemy or
Connexion; a test enforces it) and needs only ``httpx`` and ``attrs``, so it can be
installed or vendored alone.

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
* :mod:`agent_sdk.privacy`: the guarded dispatch helper that records every provider
  attempt (through :meth:`PrincipalClient.record_attempt`) before the chat or tool
  adapter is called.
* :mod:`agent_sdk.contracts`: the wire contracts shared with the server (pydantic);
  the server imports them from here, never the reverse.
"""

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
