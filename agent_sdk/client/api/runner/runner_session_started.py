from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.runner_session import RunnerSession
from ...models.runner_session_report import RunnerSessionReport
from ...types import Response


def _get_kwargs(
    *,
    body: RunnerSessionReport,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/runner/sessions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RunnerSession | None:
    if response.status_code == 200:
        response_200 = RunnerSession.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = RunnerSession.from_dict(response.json())

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
) -> Response[Problem | RunnerSession]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RunnerSessionReport,
) -> Response[Problem | RunnerSession]:
    """Report the session a runner started in a provisioned container

     Moves the runner's binding of `container_name` to the runner-minted `session_id`; from then on
    `relayCommsCall` resolves that session id to the container's agent account. 201 when the container
    becomes bound, 200 for a repeated report of the same container (with the same or a new session id,
    which then replaces the old one). A container the runner does not hold in its current enrolment
    answers 404; a session id already bound to another container of the runner answers 409. Decided in
    Rego as `runner.session.bind` (403 `not_enrolled` for a runner that never enrolled).

    Args:
        body (RunnerSessionReport):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerSession]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: RunnerSessionReport,
) -> Problem | RunnerSession | None:
    """Report the session a runner started in a provisioned container

     Moves the runner's binding of `container_name` to the runner-minted `session_id`; from then on
    `relayCommsCall` resolves that session id to the container's agent account. 201 when the container
    becomes bound, 200 for a repeated report of the same container (with the same or a new session id,
    which then replaces the old one). A container the runner does not hold in its current enrolment
    answers 404; a session id already bound to another container of the runner answers 409. Decided in
    Rego as `runner.session.bind` (403 `not_enrolled` for a runner that never enrolled).

    Args:
        body (RunnerSessionReport):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunnerSession
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RunnerSessionReport,
) -> Response[Problem | RunnerSession]:
    """Report the session a runner started in a provisioned container

     Moves the runner's binding of `container_name` to the runner-minted `session_id`; from then on
    `relayCommsCall` resolves that session id to the container's agent account. 201 when the container
    becomes bound, 200 for a repeated report of the same container (with the same or a new session id,
    which then replaces the old one). A container the runner does not hold in its current enrolment
    answers 404; a session id already bound to another container of the runner answers 409. Decided in
    Rego as `runner.session.bind` (403 `not_enrolled` for a runner that never enrolled).

    Args:
        body (RunnerSessionReport):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerSession]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: RunnerSessionReport,
) -> Problem | RunnerSession | None:
    """Report the session a runner started in a provisioned container

     Moves the runner's binding of `container_name` to the runner-minted `session_id`; from then on
    `relayCommsCall` resolves that session id to the container's agent account. 201 when the container
    becomes bound, 200 for a repeated report of the same container (with the same or a new session id,
    which then replaces the old one). A container the runner does not hold in its current enrolment
    answers 404; a session id already bound to another container of the runner answers 409. Decided in
    Rego as `runner.session.bind` (403 `not_enrolled` for a runner that never enrolled).

    Args:
        body (RunnerSessionReport):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunnerSession
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
