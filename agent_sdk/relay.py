"""The runner side of the relay: carry an agent's comms calls to the service.

:class:`SessionRelay` holds the runner token (:class:`~agent_sdk.rest.RunnerClient`)
for one container's session: its :meth:`SessionRelay.comms` is the
:class:`~agent_sdk.comms.CommsTransport` behind the container's seam (served on the
container's socket, or handed to a :class:`~agent_sdk.comms.CommsBroker` in process),
and :meth:`SessionRelay.bind_run` names the run the agent works for (acting-for).
Neither the agent nor its tools can reach the token or the binding.
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
