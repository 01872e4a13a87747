from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.put_run_answer_request import PutRunAnswerRequest
from ...models.run_answer_result import RunAnswerResult
from ...types import Response


def _get_kwargs(
    run_id: UUID,
    *,
    body: PutRunAnswerRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/runs/{run_id}/answer".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RunAnswerResult | None:
    if response.status_code == 200:
        response_200 = RunAnswerResult.from_dict(response.json())

        return response_200

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
) -> Response[Problem | RunAnswerResult]:
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
    body: PutRunAnswerRequest,
) -> Response[Problem | RunAnswerResult]:
    """Store the run's background answer if its ceiling keeps it

     Stores (or replaces) the run's background answer, rereading the
    background-answer ceiling under the run-row lock. The global metadata
    default alone keeps the answer as functional output; an explicit provider
    or task ceiling at the same level prohibits it. A prohibited answer answers
    200 with `stored: false` and stores nothing. The run's own agent on an
    active run only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):
        body (PutRunAnswerRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunAnswerResult]
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
    body: PutRunAnswerRequest,
) -> Problem | RunAnswerResult | None:
    """Store the run's background answer if its ceiling keeps it

     Stores (or replaces) the run's background answer, rereading the
    background-answer ceiling under the run-row lock. The global metadata
    default alone keeps the answer as functional output; an explicit provider
    or task ceiling at the same level prohibits it. A prohibited answer answers
    200 with `stored: false` and stores nothing. The run's own agent on an
    active run only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):
        body (PutRunAnswerRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunAnswerResult
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
    body: PutRunAnswerRequest,
) -> Response[Problem | RunAnswerResult]:
    """Store the run's background answer if its ceiling keeps it

     Stores (or replaces) the run's background answer, rereading the
    background-answer ceiling under the run-row lock. The global metadata
    default alone keeps the answer as functional output; an explicit provider
    or task ceiling at the same level prohibits it. A prohibited answer answers
    200 with `stored: false` and stores nothing. The run's own agent on an
    active run only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):
        body (PutRunAnswerRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunAnswerResult]
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
    body: PutRunAnswerRequest,
) -> Problem | RunAnswerResult | None:
    """Store the run's background answer if its ceiling keeps it

     Stores (or replaces) the run's background answer, rereading the
    background-answer ceiling under the run-row lock. The global metadata
    default alone keeps the answer as functional output; an explicit provider
    or task ceiling at the same level prohibits it. A prohibited answer answers
    200 with `stored: false` and stores nothing. The run's own agent on an
    active run only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):
        body (PutRunAnswerRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunAnswerResult
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            body=body,
        )
    ).parsed
