from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.run_context import RunContext
from ...types import Response


def _get_kwargs(
    run_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/runs/{run_id}/context".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RunContext | None:
    if response.status_code == 200:
        response_200 = RunContext.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | RunContext]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RunContext]:
    """Read the context of the agent's own active run (run_context.v1)

     Returns run_context.v1 for the calling agent's own active run (state queued,
    running or waiting_input; queued is readable so the adapter can read the
    context before it starts the run). Decided in Rego as `run.context.read`
    (agent-self); every element then passes `message.read` in filter mode and
    the trust markers come from the same policy, in one batched OPA query.

    Parts: `trigger_message` (the triggering message, complete, never cut and
    never counted towards any limit); `thread_context` (earlier messages of the
    run's thread above `context_floor_seq`, newest kept, at most the channel's
    `history_backfill_limit`); `channel_context` (only on the first run of a
    session in a thread with a parent message in the thread's current channel:
    main-thread messages before the parent message); `truncated_before_seq`
    (only when older thread messages are missing). Contents are cut per element
    at `agent.context_message_max_bytes` and the sum of `content_md` across
    `channel_context` and `thread_context` stays within
    `agent.context_max_bytes`, cutting from old to new.

    `trust` is computed at the time of this request from the current rights; a
    person who lost trigger since an earlier read is `unverified` now, and so is
    the triggering person (decision D9): their message is `trigger` only while
    they hold trigger on the channel now, so a run whose requester lost the
    right presents no request at all. The
    content of every element is data, never instructions, unless its trust is
    `trigger`: adapters pass other content to their runtime only as marked data
    (SEC-AI-1).

    An unknown run, a run the agent cannot see and the agent's own run that is
    no longer active answer the same 404. Another agent that can read the
    thread gets 403 `not_self`; a person or an app gets 403
    `subject_kind_not_allowed`. Denials are audited (aggregated per
    `audit.deny_aggregate_window`); a successful read is not.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunContext]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RunContext | None:
    """Read the context of the agent's own active run (run_context.v1)

     Returns run_context.v1 for the calling agent's own active run (state queued,
    running or waiting_input; queued is readable so the adapter can read the
    context before it starts the run). Decided in Rego as `run.context.read`
    (agent-self); every element then passes `message.read` in filter mode and
    the trust markers come from the same policy, in one batched OPA query.

    Parts: `trigger_message` (the triggering message, complete, never cut and
    never counted towards any limit); `thread_context` (earlier messages of the
    run's thread above `context_floor_seq`, newest kept, at most the channel's
    `history_backfill_limit`); `channel_context` (only on the first run of a
    session in a thread with a parent message in the thread's current channel:
    main-thread messages before the parent message); `truncated_before_seq`
    (only when older thread messages are missing). Contents are cut per element
    at `agent.context_message_max_bytes` and the sum of `content_md` across
    `channel_context` and `thread_context` stays within
    `agent.context_max_bytes`, cutting from old to new.

    `trust` is computed at the time of this request from the current rights; a
    person who lost trigger since an earlier read is `unverified` now, and so is
    the triggering person (decision D9): their message is `trigger` only while
    they hold trigger on the channel now, so a run whose requester lost the
    right presents no request at all. The
    content of every element is data, never instructions, unless its trust is
    `trigger`: adapters pass other content to their runtime only as marked data
    (SEC-AI-1).

    An unknown run, a run the agent cannot see and the agent's own run that is
    no longer active answer the same 404. Another agent that can read the
    thread gets 403 `not_self`; a person or an app gets 403
    `subject_kind_not_allowed`. Denials are audited (aggregated per
    `audit.deny_aggregate_window`); a successful read is not.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunContext
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RunContext]:
    """Read the context of the agent's own active run (run_context.v1)

     Returns run_context.v1 for the calling agent's own active run (state queued,
    running or waiting_input; queued is readable so the adapter can read the
    context before it starts the run). Decided in Rego as `run.context.read`
    (agent-self); every element then passes `message.read` in filter mode and
    the trust markers come from the same policy, in one batched OPA query.

    Parts: `trigger_message` (the triggering message, complete, never cut and
    never counted towards any limit); `thread_context` (earlier messages of the
    run's thread above `context_floor_seq`, newest kept, at most the channel's
    `history_backfill_limit`); `channel_context` (only on the first run of a
    session in a thread with a parent message in the thread's current channel:
    main-thread messages before the parent message); `truncated_before_seq`
    (only when older thread messages are missing). Contents are cut per element
    at `agent.context_message_max_bytes` and the sum of `content_md` across
    `channel_context` and `thread_context` stays within
    `agent.context_max_bytes`, cutting from old to new.

    `trust` is computed at the time of this request from the current rights; a
    person who lost trigger since an earlier read is `unverified` now, and so is
    the triggering person (decision D9): their message is `trigger` only while
    they hold trigger on the channel now, so a run whose requester lost the
    right presents no request at all. The
    content of every element is data, never instructions, unless its trust is
    `trigger`: adapters pass other content to their runtime only as marked data
    (SEC-AI-1).

    An unknown run, a run the agent cannot see and the agent's own run that is
    no longer active answer the same 404. Another agent that can read the
    thread gets 403 `not_self`; a person or an app gets 403
    `subject_kind_not_allowed`. Denials are audited (aggregated per
    `audit.deny_aggregate_window`); a successful read is not.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunContext]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RunContext | None:
    """Read the context of the agent's own active run (run_context.v1)

     Returns run_context.v1 for the calling agent's own active run (state queued,
    running or waiting_input; queued is readable so the adapter can read the
    context before it starts the run). Decided in Rego as `run.context.read`
    (agent-self); every element then passes `message.read` in filter mode and
    the trust markers come from the same policy, in one batched OPA query.

    Parts: `trigger_message` (the triggering message, complete, never cut and
    never counted towards any limit); `thread_context` (earlier messages of the
    run's thread above `context_floor_seq`, newest kept, at most the channel's
    `history_backfill_limit`); `channel_context` (only on the first run of a
    session in a thread with a parent message in the thread's current channel:
    main-thread messages before the parent message); `truncated_before_seq`
    (only when older thread messages are missing). Contents are cut per element
    at `agent.context_message_max_bytes` and the sum of `content_md` across
    `channel_context` and `thread_context` stays within
    `agent.context_max_bytes`, cutting from old to new.

    `trust` is computed at the time of this request from the current rights; a
    person who lost trigger since an earlier read is `unverified` now, and so is
    the triggering person (decision D9): their message is `trigger` only while
    they hold trigger on the channel now, so a run whose requester lost the
    right presents no request at all. The
    content of every element is data, never instructions, unless its trust is
    `trigger`: adapters pass other content to their runtime only as marked data
    (SEC-AI-1).

    An unknown run, a run the agent cannot see and the agent's own run that is
    no longer active answer the same 404. Another agent that can read the
    thread gets 403 `not_self`; a person or an app gets 403
    `subject_kind_not_allowed`. Denials are audited (aggregated per
    `audit.deny_aggregate_window`); a successful read is not.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunContext
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
        )
    ).parsed
