from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_rotated import EnvelopeRotated
from ...models.problem import Problem
from ...models.rotate_envelope_request import RotateEnvelopeRequest
from ...types import Response


def _get_kwargs(
    run_id: UUID,
    *,
    body: RotateEnvelopeRequest,
    if_match: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/runs/{run_id}/envelope:rotate".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeRotated | Problem | None:
    if response.status_code == 200:
        response_200 = EnvelopeRotated.from_dict(response.json())

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
) -> Response[EnvelopeRotated | Problem]:
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
    body: RotateEnvelopeRequest,
    if_match: str,
) -> Response[EnvelopeRotated | Problem]:
    """Replace the run's sealed envelope (compare and swap)

     Replaces the sealed envelope (the encrypted functional queue and
    suspension state, opaque to this service) only if the envelope version
    named in `If-Match` is still current. Every scrub (a tightening that
    refilters content) and every state change bumps the version, so a rotation
    prepared before either fails with 409 and leaves the newer state: the old
    key stays valid, and a rotation can never restore removed content. The
    run's own agent on an active run only; otherwise the same 404 as an unknown
    run.

    Args:
        run_id (UUID):
        if_match (str):
        body (RotateEnvelopeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeRotated | Problem]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: RotateEnvelopeRequest,
    if_match: str,
) -> EnvelopeRotated | Problem | None:
    """Replace the run's sealed envelope (compare and swap)

     Replaces the sealed envelope (the encrypted functional queue and
    suspension state, opaque to this service) only if the envelope version
    named in `If-Match` is still current. Every scrub (a tightening that
    refilters content) and every state change bumps the version, so a rotation
    prepared before either fails with 409 and leaves the newer state: the old
    key stays valid, and a rotation can never restore removed content. The
    run's own agent on an active run only; otherwise the same 404 as an unknown
    run.

    Args:
        run_id (UUID):
        if_match (str):
        body (RotateEnvelopeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeRotated | Problem
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: RotateEnvelopeRequest,
    if_match: str,
) -> Response[EnvelopeRotated | Problem]:
    """Replace the run's sealed envelope (compare and swap)

     Replaces the sealed envelope (the encrypted functional queue and
    suspension state, opaque to this service) only if the envelope version
    named in `If-Match` is still current. Every scrub (a tightening that
    refilters content) and every state change bumps the version, so a rotation
    prepared before either fails with 409 and leaves the newer state: the old
    key stays valid, and a rotation can never restore removed content. The
    run's own agent on an active run only; otherwise the same 404 as an unknown
    run.

    Args:
        run_id (UUID):
        if_match (str):
        body (RotateEnvelopeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeRotated | Problem]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: RotateEnvelopeRequest,
    if_match: str,
) -> EnvelopeRotated | Problem | None:
    """Replace the run's sealed envelope (compare and swap)

     Replaces the sealed envelope (the encrypted functional queue and
    suspension state, opaque to this service) only if the envelope version
    named in `If-Match` is still current. Every scrub (a tightening that
    refilters content) and every state change bumps the version, so a rotation
    prepared before either fails with 409 and leaves the newer state: the old
    key stays valid, and a rotation can never restore removed content. The
    run's own agent on an active run only; otherwise the same 404 as an unknown
    run.

    Args:
        run_id (UUID):
        if_match (str):
        body (RotateEnvelopeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeRotated | Problem
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
