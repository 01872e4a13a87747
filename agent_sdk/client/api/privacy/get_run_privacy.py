from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.run_privacy import RunPrivacy
from ...types import Response


def _get_kwargs(
    run_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/runs/{run_id}/privacy".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RunPrivacy | None:
    if response.status_code == 200:
        response_200 = RunPrivacy.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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
) -> Response[Problem | RunPrivacy]:
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
) -> Response[Problem | RunPrivacy]:
    """Read the run's ceilings and attempted provider ids

     The run's stored ceilings and the attempted provider ids in attempt order,
    nothing else. `ceilings` is absent for a run that has not been reconciled
    yet (created before the privacy guard, or without any attempt or write);
    the read never reconciles. A stored ceiling or provider id that is not on
    the scale or not a provider id fails closed with 503, as attempts and
    writes on that run do. `ETag` is the envelope version to send in
    `If-Match` when rotating the envelope. The run's own agent on an active run
    only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunPrivacy]
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
) -> Problem | RunPrivacy | None:
    """Read the run's ceilings and attempted provider ids

     The run's stored ceilings and the attempted provider ids in attempt order,
    nothing else. `ceilings` is absent for a run that has not been reconciled
    yet (created before the privacy guard, or without any attempt or write);
    the read never reconciles. A stored ceiling or provider id that is not on
    the scale or not a provider id fails closed with 503, as attempts and
    writes on that run do. `ETag` is the envelope version to send in
    `If-Match` when rotating the envelope. The run's own agent on an active run
    only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunPrivacy
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RunPrivacy]:
    """Read the run's ceilings and attempted provider ids

     The run's stored ceilings and the attempted provider ids in attempt order,
    nothing else. `ceilings` is absent for a run that has not been reconciled
    yet (created before the privacy guard, or without any attempt or write);
    the read never reconciles. A stored ceiling or provider id that is not on
    the scale or not a provider id fails closed with 503, as attempts and
    writes on that run do. `ETag` is the envelope version to send in
    `If-Match` when rotating the envelope. The run's own agent on an active run
    only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RunPrivacy]
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
) -> Problem | RunPrivacy | None:
    """Read the run's ceilings and attempted provider ids

     The run's stored ceilings and the attempted provider ids in attempt order,
    nothing else. `ceilings` is absent for a run that has not been reconciled
    yet (created before the privacy guard, or without any attempt or write);
    the read never reconciles. A stored ceiling or provider id that is not on
    the scale or not a provider id fails closed with 503, as attempts and
    writes on that run do. `ETag` is the envelope version to send in
    `If-Match` when rotating the envelope. The run's own agent on an active run
    only; otherwise the same 404 as an unknown run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RunPrivacy
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
        )
    ).parsed
