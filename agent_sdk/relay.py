"""The runner side of the relay: carry an agent's comms calls to the service.

The runner holds the runner token (:class:`~agent_sdk.rest.RunnerClient`) and knows,
structurally, which container (so which session) a call arrived on; the agent never
names an account. :class:`SessionRelay` is what the runner puts behind the seam of one
container: its :meth:`SessionRelay.comms` satisfies
:class:`~agent_sdk.comms.CommsTransport`, so in-process (tests, demos) it can be handed
to a :class:`~agent_sdk.comms.CommsBroker` directly; in production the runner serves it
on the container's socket and the agent's transport is a client of that socket.

The runner also decides who the agent works for: :meth:`SessionRelay.bind_run` binds
the run the container's agent works on, so every relayed call reaches no more than
the run's requester may (acting-for). Those two calls stay on the runner's side of the
seam: the broker and the tools in the container have no way to reach them.
"""

from __future__ import annotations

from typing import Any

from agent_sdk.client.models import RunnerSession
from agent_sdk.rest import RunnerClient

__all__ = ["SessionRelay"]


class SessionRelay:
    """Relay calls of one session through the runner's client.

    Args:
        runner: the runner's client (holds the runner token).
        session_id: the runner-minted session id of the container.
    """

    def __init__(self, runner: RunnerClient, session_id: str) -> None:
        self._runner = runner
        self.session_id = session_id

    def comms(self, call: dict[str, Any]) -> dict[str, Any]:
        """Relay one call; Problem answers of the envelope raise ``ApiProblem``."""
        return self._runner.relay(self.session_id, call)

    def bind_run(self, run_id: str) -> RunnerSession:
        """Bind the run this session works on: its calls then act for the run's requester.

        Raises:
            NotFound: the run is unknown, ended or another agent's, or the session is
                gone (one answer for all).
        """
        return self._runner.bind_run(self.session_id, run_id)

    def unbind_run(self) -> None:
        """Unbind the session's run: its calls are the agent's own again."""
        self._runner.unbind_run(self.session_id)
