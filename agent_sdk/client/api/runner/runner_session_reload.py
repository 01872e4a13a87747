from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.runner_session import RunnerSession
from ...types import Response


def _get_kwargs(
    session_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/runner/sessions/{session_id}/reload".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RunnerSession | None:
    if response.status_code == 200:
        response_200 = RunnerSession.from_dict(response.json())

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
) -> Response[Problem | RunnerSession]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RunnerSession]:
    """A runner reloaded a session; its binding is kept

     A reload keeps the session id, so the binding survives unchanged and comms keep working. Unknown,
    stopped, stale (before the runner's last enrolment) and other runners' sessions answer the same 404.
    Decided in Rego as `runner.session.reload`.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerSession]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RunnerSession | None:
    """A runner reloaded a session; its binding is kept

     A reload keeps the session id, so the binding survives unchanged and comms keep working. Unknown,
    stopped, stale (before the runner's last enrolment) and other runners' sessions answer the same 404.
    Decided in Rego as `runner.session.reload`.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunnerSession
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RunnerSession]:
    """A runner reloaded a session; its binding is kept

     A reload keeps the session id, so the binding survives unchanged and comms keep working. Unknown,
    stopped, stale (before the runner's last enrolment) and other runners' sessions answer the same 404.
    Decided in Rego as `runner.session.reload`.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerSession]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RunnerSession | None:
    """A runner reloaded a session; its binding is kept

     A reload keeps the session id, so the binding survives unchanged and comms keep working. Unknown,
    stopped, stale (before the runner's last enrolment) and other runners' sessions answer the same 404.
    Decided in Rego as `runner.session.reload`.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunnerSession
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
        )
    ).parsed
