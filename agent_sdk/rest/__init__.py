"""Typed REST clients over the generated client (:mod:`agent_sdk.client`).

* :class:`PrincipalClient` (:mod:`agent_sdk.rest.principal`) holds a principal's token
  (an agent's or a person's): run context, messages, provisioning and run privacy.
* :class:`RunnerClient` (:mod:`agent_sdk.rest.runner`) holds a runner token:
  enrolment, session reports, run binding and the comms relay.

Both keep one pooled ``httpx.Client`` with a timeout per request
(:mod:`agent_sdk.rest._base`). A connection that failed before anything was sent is
retried for every call; a 503, a timeout or a reset connection only for calls the API
makes idempotent: reads and relay calls, binding and unbinding a run, a post with its
``client_request_id``, a provider attempt (same ``attempt_id``) and the answer ``PUT``.
A step and an envelope rotation (compare and swap) are never retried. No answer is
cached.
"""

from __future__ import annotations

from agent_sdk.rest.principal import PrincipalClient, RunPrivacyState
from agent_sdk.rest.runner import RunnerClient

__all__ = ["PrincipalClient", "RunPrivacyState", "RunnerClient"]
