from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    session_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/runner/sessions/{session_id}/run".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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
) -> Response[Any | Problem]:
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
) -> Response[Any | Problem]:
    """Unbind the session's run; its relayed calls are the agent's own again

     Removes the run bound to the session (204 also when none is bound), so relayed calls are decided on
    the agent's own rights again (or refused with `run_required` for an agent with `acting_for:
    required`). Unknown, stopped, stale and other runners' sessions answer the same 404. Decided in Rego
    as `runner.session.run.unbind`; works for a disabled agent too.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
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
) -> Any | Problem | None:
    """Unbind the session's run; its relayed calls are the agent's own again

     Removes the run bound to the session (204 also when none is bound), so relayed calls are decided on
    the agent's own rights again (or refused with `run_required` for an agent with `acting_for:
    required`). Unknown, stopped, stale and other runners' sessions answer the same 404. Decided in Rego
    as `runner.session.run.unbind`; works for a disabled agent too.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Any | Problem]:
    """Unbind the session's run; its relayed calls are the agent's own again

     Removes the run bound to the session (204 also when none is bound), so relayed calls are decided on
    the agent's own rights again (or refused with `run_required` for an agent with `acting_for:
    required`). Unknown, stopped, stale and other runners' sessions answer the same 404. Decided in Rego
    as `runner.session.run.unbind`; works for a disabled agent too.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
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
) -> Any | Problem | None:
    """Unbind the session's run; its relayed calls are the agent's own again

     Removes the run bound to the session (204 also when none is bound), so relayed calls are decided on
    the agent's own rights again (or refused with `run_required` for an agent with `acting_for:
    required`). Unknown, stopped, stale and other runners' sessions answer the same 404. Decided in Rego
    as `runner.session.run.unbind`; works for a disabled agent too.

    Args:
        session_id (str): A session id minted by the runner; unique per runner. Only letters,
            digits and `._:-`, so it can be logged.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
        )
    ).parsed
