from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.message_page import MessagePage
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    channel_id: UUID,
    *,
    limit: int | Unset = 50,
    before_message_id: UUID | Unset = UNSET,
    parent_message_id: UUID | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_before_message_id: str | Unset = UNSET
    if not isinstance(before_message_id, Unset):
        json_before_message_id = str(before_message_id)
    params["before_message_id"] = json_before_message_id

    json_parent_message_id: str | Unset = UNSET
    if not isinstance(parent_message_id, Unset):
        json_parent_message_id = str(parent_message_id)
    params["parent_message_id"] = json_parent_message_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/channels/{channel_id}/messages".format(
            channel_id=quote(str(channel_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessagePage | Problem | None:
    if response.status_code == 200:
        response_200 = MessagePage.from_dict(response.json())

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
) -> Response[MessagePage | Problem]:
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
    limit: int | Unset = 50,
    before_message_id: UUID | Unset = UNSET,
    parent_message_id: UUID | Unset = UNSET,
) -> Response[MessagePage | Problem]:
    """List messages of a channel's main thread or of one thread

     Returns one page of messages, oldest first. Without `parent_message_id` the page comes from the
    channel's main thread; with it, from the thread whose parent is that main-thread message. The page
    holds the newest `limit` messages before `before_message_id` (or the newest messages when it is
    absent); `has_more` is true when older messages exist, which the caller reads by passing the id of
    the first item as `before_message_id`. Deleted messages appear as tombstones (`deleted: true`, empty
    `content_md`). Decided in Rego as `message.list` from the caller's effective level on the channel; a
    channel the caller cannot read answers the same 404 as an unknown one. A `parent_message_id` or
    `before_message_id` that does not name a visible message of this channel (of its main thread for
    `parent_message_id`) also answers 404; a parent message without a thread yet gives an empty page. An
    agent with `acting_for: required` lists only for the requester of a run bound to its session
    (through the runner relay): with its own token it gets 403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        limit (int | Unset):  Default: 50.
        before_message_id (UUID | Unset):
        parent_message_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagePage | Problem]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        limit=limit,
        before_message_id=before_message_id,
        parent_message_id=parent_message_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 50,
    before_message_id: UUID | Unset = UNSET,
    parent_message_id: UUID | Unset = UNSET,
) -> MessagePage | Problem | None:
    """List messages of a channel's main thread or of one thread

     Returns one page of messages, oldest first. Without `parent_message_id` the page comes from the
    channel's main thread; with it, from the thread whose parent is that main-thread message. The page
    holds the newest `limit` messages before `before_message_id` (or the newest messages when it is
    absent); `has_more` is true when older messages exist, which the caller reads by passing the id of
    the first item as `before_message_id`. Deleted messages appear as tombstones (`deleted: true`, empty
    `content_md`). Decided in Rego as `message.list` from the caller's effective level on the channel; a
    channel the caller cannot read answers the same 404 as an unknown one. A `parent_message_id` or
    `before_message_id` that does not name a visible message of this channel (of its main thread for
    `parent_message_id`) also answers 404; a parent message without a thread yet gives an empty page. An
    agent with `acting_for: required` lists only for the requester of a run bound to its session
    (through the runner relay): with its own token it gets 403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        limit (int | Unset):  Default: 50.
        before_message_id (UUID | Unset):
        parent_message_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagePage | Problem
    """

    return sync_detailed(
        channel_id=channel_id,
        client=client,
        limit=limit,
        before_message_id=before_message_id,
        parent_message_id=parent_message_id,
    ).parsed


async def asyncio_detailed(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 50,
    before_message_id: UUID | Unset = UNSET,
    parent_message_id: UUID | Unset = UNSET,
) -> Response[MessagePage | Problem]:
    """List messages of a channel's main thread or of one thread

     Returns one page of messages, oldest first. Without `parent_message_id` the page comes from the
    channel's main thread; with it, from the thread whose parent is that main-thread message. The page
    holds the newest `limit` messages before `before_message_id` (or the newest messages when it is
    absent); `has_more` is true when older messages exist, which the caller reads by passing the id of
    the first item as `before_message_id`. Deleted messages appear as tombstones (`deleted: true`, empty
    `content_md`). Decided in Rego as `message.list` from the caller's effective level on the channel; a
    channel the caller cannot read answers the same 404 as an unknown one. A `parent_message_id` or
    `before_message_id` that does not name a visible message of this channel (of its main thread for
    `parent_message_id`) also answers 404; a parent message without a thread yet gives an empty page. An
    agent with `acting_for: required` lists only for the requester of a run bound to its session
    (through the runner relay): with its own token it gets 403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        limit (int | Unset):  Default: 50.
        before_message_id (UUID | Unset):
        parent_message_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagePage | Problem]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        limit=limit,
        before_message_id=before_message_id,
        parent_message_id=parent_message_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 50,
    before_message_id: UUID | Unset = UNSET,
    parent_message_id: UUID | Unset = UNSET,
) -> MessagePage | Problem | None:
    """List messages of a channel's main thread or of one thread

     Returns one page of messages, oldest first. Without `parent_message_id` the page comes from the
    channel's main thread; with it, from the thread whose parent is that main-thread message. The page
    holds the newest `limit` messages before `before_message_id` (or the newest messages when it is
    absent); `has_more` is true when older messages exist, which the caller reads by passing the id of
    the first item as `before_message_id`. Deleted messages appear as tombstones (`deleted: true`, empty
    `content_md`). Decided in Rego as `message.list` from the caller's effective level on the channel; a
    channel the caller cannot read answers the same 404 as an unknown one. A `parent_message_id` or
    `before_message_id` that does not name a visible message of this channel (of its main thread for
    `parent_message_id`) also answers 404; a parent message without a thread yet gives an empty page. An
    agent with `acting_for: required` lists only for the requester of a run bound to its session
    (through the runner relay): with its own token it gets 403 `run_required` for a channel it can see.

    Args:
        channel_id (UUID):
        limit (int | Unset):  Default: 50.
        before_message_id (UUID | Unset):
        parent_message_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagePage | Problem
    """

    return (
        await asyncio_detailed(
            channel_id=channel_id,
            client=client,
            limit=limit,
            before_message_id=before_message_id,
            parent_message_id=parent_message_id,
        )
    ).parsed
