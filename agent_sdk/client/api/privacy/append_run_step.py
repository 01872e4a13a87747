from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.append_run_step_request import AppendRunStepRequest
from ...models.problem import Problem
from ...models.run_step_stored import RunStepStored
from ...types import Response


def _get_kwargs(
    run_id: UUID,
    *,
    body: AppendRunStepRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/runs/{run_id}/steps".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RunStepStored | None:
    if response.status_code == 201:
        response_201 = RunStepStored.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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
) -> Response[Problem | RunStepStored]:
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
    body: AppendRunStepRequest,
) -> Response[Problem | RunStepStored]:
    """Store the audit copy of a run step, filtered by the run's ceiling

     Appends a run step (the audit copy of a chat request or response, a tool
    call or result, or a note). Under the run-row lock the service rereads the
    run's ceilings (a run without ceilings gets the current policy first: the
    global default and the task's explicit ceiling, filtering older content
    when needed) and stores only the parts of the step its audit-content
    ceiling keeps (`kept`); the rest is never stored. A client that still holds
    an older, looser view of the run cannot store more than the current ceiling
    keeps. The run's own agent on an active run only; otherwise the same 404 as
    an unknown run.

    Args:
        run_id (UUID):
        body (AppendRunStepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunStepStored]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: AppendRunStepRequest,
) -> Problem | RunStepStored | None:
    """Store the audit copy of a run step, filtered by the run's ceiling

     Appends a run step (the audit copy of a chat request or response, a tool
    call or result, or a note). Under the run-row lock the service rereads the
    run's ceilings (a run without ceilings gets the current policy first: the
    global default and the task's explicit ceiling, filtering older content
    when needed) and stores only the parts of the step its audit-content
    ceiling keeps (`kept`); the rest is never stored. A client that still holds
    an older, looser view of the run cannot store more than the current ceiling
    keeps. The run's own agent on an active run only; otherwise the same 404 as
    an unknown run.

    Args:
        run_id (UUID):
        body (AppendRunStepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunStepStored
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: AppendRunStepRequest,
) -> Response[Problem | RunStepStored]:
    """Store the audit copy of a run step, filtered by the run's ceiling

     Appends a run step (the audit copy of a chat request or response, a tool
    call or result, or a note). Under the run-row lock the service rereads the
    run's ceilings (a run without ceilings gets the current policy first: the
    global default and the task's explicit ceiling, filtering older content
    when needed) and stores only the parts of the step its audit-content
    ceiling keeps (`kept`); the rest is never stored. A client that still holds
    an older, looser view of the run cannot store more than the current ceiling
    keeps. The run's own agent on an active run only; otherwise the same 404 as
    an unknown run.

    Args:
        run_id (UUID):
        body (AppendRunStepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunStepStored]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: AppendRunStepRequest,
) -> Problem | RunStepStored | None:
    """Store the audit copy of a run step, filtered by the run's ceiling

     Appends a run step (the audit copy of a chat request or response, a tool
    call or result, or a note). Under the run-row lock the service rereads the
    run's ceilings (a run without ceilings gets the current policy first: the
    global default and the task's explicit ceiling, filtering older content
    when needed) and stores only the parts of the step its audit-content
    ceiling keeps (`kept`); the rest is never stored. A client that still holds
    an older, looser view of the run cannot store more than the current ceiling
    keeps. The run's own agent on an active run only; otherwise the same 404 as
    an unknown run.

    Args:
        run_id (UUID):
        body (AppendRunStepRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunStepStored
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            body=body,
        )
    ).parsed
