from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bind_run_request import BindRunRequest
from ...models.problem import Problem
from ...models.runner_session import RunnerSession
from ...types import Response


def _get_kwargs(
    session_id: str,
    *,
    body: BindRunRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/runner/sessions/{session_id}/run".format(
            session_id=quote(str(session_id), safe=""),
        ),
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
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BindRunRequest,
) -> Response[Problem | RunnerSession]:
    """Bind a run to a session; its relayed calls then act for the run's requester

     The runner names the run its agent works on in this session. From then on, while the run is queued,
    running or waiting for input, every call relayed through the session is decided for the agent and
    for the run's requester (the author of the run's triggering message): it reaches no more than that
    person may on the same channel now. Binding replaces a run bound before; an ended run no longer
    binds the calls (the next call is decided as unbound). Only a live run of the session's own agent
    can be bound, only through the runner's own bound session of its current enrolment, for an active
    agent: an unknown run, an ended one, another agent's run, and an unknown, stopped, stale or foreign
    session all answer the same 404. Decided in Rego as `runner.session.run.bind` (403 `not_enrolled`
    for a runner that never enrolled). The agent cannot bind: only the runner token can.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.
        body (BindRunRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerSession]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BindRunRequest,
) -> Problem | RunnerSession | None:
    """Bind a run to a session; its relayed calls then act for the run's requester

     The runner names the run its agent works on in this session. From then on, while the run is queued,
    running or waiting for input, every call relayed through the session is decided for the agent and
    for the run's requester (the author of the run's triggering message): it reaches no more than that
    person may on the same channel now. Binding replaces a run bound before; an ended run no longer
    binds the calls (the next call is decided as unbound). Only a live run of the session's own agent
    can be bound, only through the runner's own bound session of its current enrolment, for an active
    agent: an unknown run, an ended one, another agent's run, and an unknown, stopped, stale or foreign
    session all answer the same 404. Decided in Rego as `runner.session.run.bind` (403 `not_enrolled`
    for a runner that never enrolled). The agent cannot bind: only the runner token can.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.
        body (BindRunRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunnerSession
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BindRunRequest,
) -> Response[Problem | RunnerSession]:
    """Bind a run to a session; its relayed calls then act for the run's requester

     The runner names the run its agent works on in this session. From then on, while the run is queued,
    running or waiting for input, every call relayed through the session is decided for the agent and
    for the run's requester (the author of the run's triggering message): it reaches no more than that
    person may on the same channel now. Binding replaces a run bound before; an ended run no longer
    binds the calls (the next call is decided as unbound). Only a live run of the session's own agent
    can be bound, only through the runner's own bound session of its current enrolment, for an active
    agent: an unknown run, an ended one, another agent's run, and an unknown, stopped, stale or foreign
    session all answer the same 404. Decided in Rego as `runner.session.run.bind` (403 `not_enrolled`
    for a runner that never enrolled). The agent cannot bind: only the runner token can.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.
        body (BindRunRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunnerSession]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BindRunRequest,
) -> Problem | RunnerSession | None:
    """Bind a run to a session; its relayed calls then act for the run's requester

     The runner names the run its agent works on in this session. From then on, while the run is queued,
    running or waiting for input, every call relayed through the session is decided for the agent and
    for the run's requester (the author of the run's triggering message): it reaches no more than that
    person may on the same channel now. Binding replaces a run bound before; an ended run no longer
    binds the calls (the next call is decided as unbound). Only a live run of the session's own agent
    can be bound, only through the runner's own bound session of its current enrolment, for an active
    agent: an unknown run, an ended one, another agent's run, and an unknown, stopped, stale or foreign
    session all answer the same 404. Decided in Rego as `runner.session.run.bind` (403 `not_enrolled`
    for a runner that never enrolled). The agent cannot bind: only the runner token can.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.
        body (BindRunRequest):

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
            body=body,
        )
    ).parsed
