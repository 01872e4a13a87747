"""Agent-side comms: the broker over the runner's transport seam, and the two tools."""

from agent_sdk.comms.broker import CommsBroker, CommsTransport
from agent_sdk.comms.tools import CommsTool, create_comms_tools

__all__ = ["CommsBroker", "CommsTool", "CommsTransport", "create_comms_tools"]
