from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.runner_enrollment import RunnerEnrollment
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/runner/enroll",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RunnerEnrollment | None:
    if response.status_code == 200:
        response_200 = RunnerEnrollment.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[Problem | RunnerEnrollment]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RunnerEnrollment]:
    """Start a new enrolment of the calling runner

     Authenticated with a runner token only (any other token is 401). Bumps the runner's
    `enrollment_epoch` and deletes every binding of the runner in the same transaction, so a session id
    the runner mints again after a restart resolves to 404 instead of inheriting an old agent account. A
    runner calls it when it starts. Decided in Rego as `runner.enroll`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerEnrollment]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RunnerEnrollment | None:
    """Start a new enrolment of the calling runner

     Authenticated with a runner token only (any other token is 401). Bumps the runner's
    `enrollment_epoch` and deletes every binding of the runner in the same transaction, so a session id
    the runner mints again after a restart resolves to 404 instead of inheriting an old agent account. A
    runner calls it when it starts. Decided in Rego as `runner.enroll`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunnerEnrollment
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RunnerEnrollment]:
    """Start a new enrolment of the calling runner

     Authenticated with a runner token only (any other token is 401). Bumps the runner's
    `enrollment_epoch` and deletes every binding of the runner in the same transaction, so a session id
    the runner mints again after a restart resolves to 404 instead of inheriting an old agent account. A
    runner calls it when it starts. Decided in Rego as `runner.enroll`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerEnrollment]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RunnerEnrollment | None:
    """Start a new enrolment of the calling runner

     Authenticated with a runner token only (any other token is 401). Bumps the runner's
    `enrollment_epoch` and deletes every binding of the runner in the same transaction, so a session id
    the runner mints again after a restart resolves to 404 instead of inheriting an old agent account. A
    runner calls it when it starts. Decided in Rego as `runner.enroll`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunnerEnrollment
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
