from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.message import Message
from ...models.post_message_request import PostMessageRequest
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    channel_id: UUID,
    *,
    body: PostMessageRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/channels/{channel_id}/messages".format(
            channel_id=quote(str(channel_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Message | Problem | None:
    if response.status_code == 200:
        response_200 = Message.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = Message.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

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
) -> Response[Message | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: PostMessageRequest,
) -> Response[Message | Problem]:
    """Post a message into a channel's main thread or into a thread

     Stores a message authored by the authenticated principal (the author is never a request field) with
    the origin the server derives from the principal's kind (human, agent or app). With
    `parent_message_id` the message goes into the thread under that main-thread message; the thread is
    created when it does not exist yet. Posts are idempotent on (author, `client_request_id`): a repeat
    answers 200 with the first stored message, unchanged, whatever the repeat's content. Decided in Rego
    as `message.post` from the effective level (write or more); a channel the caller cannot read answers
    404, a readable one without the right answers 403 with a reason such as `no_grant` or `archived`. A
    `parent_message_id` or `reply_to_message_id` that does not name a message of this channel answers
    404; a reply target in this channel but outside the thread posted into answers 422. Text containing
    NUL or unpaired surrogate characters answers 422. 409 when the author's `client_request_id` already
    names a message in another channel or thread. An agent with `acting_for: required` posts only for
    the requester of a run bound to its session (through the runner relay): with its own token it gets
    403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        body (PostMessageRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Message | Problem]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: PostMessageRequest,
) -> Message | Problem | None:
    """Post a message into a channel's main thread or into a thread

     Stores a message authored by the authenticated principal (the author is never a request field) with
    the origin the server derives from the principal's kind (human, agent or app). With
    `parent_message_id` the message goes into the thread under that main-thread message; the thread is
    created when it does not exist yet. Posts are idempotent on (author, `client_request_id`): a repeat
    answers 200 with the first stored message, unchanged, whatever the repeat's content. Decided in Rego
    as `message.post` from the effective level (write or more); a channel the caller cannot read answers
    404, a readable one without the right answers 403 with a reason such as `no_grant` or `archived`. A
    `parent_message_id` or `reply_to_message_id` that does not name a message of this channel answers
    404; a reply target in this channel but outside the thread posted into answers 422. Text containing
    NUL or unpaired surrogate characters answers 422. 409 when the author's `client_request_id` already
    names a message in another channel or thread. An agent with `acting_for: required` posts only for
    the requester of a run bound to its session (through the runner relay): with its own token it gets
    403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        body (PostMessageRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Message | Problem
    """

    return sync_detailed(
        channel_id=channel_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: PostMessageRequest,
) -> Response[Message | Problem]:
    """Post a message into a channel's main thread or into a thread

     Stores a message authored by the authenticated principal (the author is never a request field) with
    the origin the server derives from the principal's kind (human, agent or app). With
    `parent_message_id` the message goes into the thread under that main-thread message; the thread is
    created when it does not exist yet. Posts are idempotent on (author, `client_request_id`): a repeat
    answers 200 with the first stored message, unchanged, whatever the repeat's content. Decided in Rego
    as `message.post` from the effective level (write or more); a channel the caller cannot read answers
    404, a readable one without the right answers 403 with a reason such as `no_grant` or `archived`. A
    `parent_message_id` or `reply_to_message_id` that does not name a message of this channel answers
    404; a reply target in this channel but outside the thread posted into answers 422. Text containing
    NUL or unpaired surrogate characters answers 422. 409 when the author's `client_request_id` already
    names a message in another channel or thread. An agent with `acting_for: required` posts only for
    the requester of a run bound to its session (through the runner relay): with its own token it gets
    403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        body (PostMessageRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Message | Problem]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: PostMessageRequest,
) -> Message | Problem | None:
    """Post a message into a channel's main thread or into a thread

     Stores a message authored by the authenticated principal (the author is never a request field) with
    the origin the server derives from the principal's kind (human, agent or app). With
    `parent_message_id` the message goes into the thread under that main-thread message; the thread is
    created when it does not exist yet. Posts are idempotent on (author, `client_request_id`): a repeat
    answers 200 with the first stored message, unchanged, whatever the repeat's content. Decided in Rego
    as `message.post` from the effective level (write or more); a channel the caller cannot read answers
    404, a readable one without the right answers 403 with a reason such as `no_grant` or `archived`. A
    `parent_message_id` or `reply_to_message_id` that does not name a message of this channel answers
    404; a reply target in this channel but outside the thread posted into answers 422. Text containing
    NUL or unpaired surrogate characters answers 422. 409 when the author's `client_request_id` already
    names a message in another channel or thread. An agent with `acting_for: required` posts only for
    the requester of a run bound to its session (through the runner relay): with its own token it gets
    403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        body (PostMessageRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Message | Problem
    """

    return (
        await asyncio_detailed(
            channel_id=channel_id,
            client=client,
            body=body,
        )
    ).parsed
