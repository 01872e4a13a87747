from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.provider_attempt_go import ProviderAttemptGo
from ...models.provider_attempt_request import ProviderAttemptRequest
from ...types import Response


def _get_kwargs(
    run_id: UUID,
    *,
    body: ProviderAttemptRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/runs/{run_id}/provider-attempts".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | ProviderAttemptGo | None:
    if response.status_code == 200:
        response_200 = ProviderAttemptGo.from_dict(response.json())

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
) -> Response[Problem | ProviderAttemptGo]:
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
    body: ProviderAttemptRequest,
) -> Response[Problem | ProviderAttemptGo]:
    """Record a provider attempt before it is made (privacy guard)

     Called by the run's own agent before **every** chat or tool attempt,
    including attempts that will fail and every fallback, with the provider
    actually chosen for this attempt and the attempt kind. In one transaction
    that holds the run row (`SELECT ... FOR UPDATE`, a current locking read):
    the policies derive the provider's ceilings (unknown provider: 403
    `unknown_provider`; a policy or stored level that is not on the scale:
    503); the run's audit-content and background-answer ceilings only tighten
    (the strictest of the run's, the provider's or the global default, and the
    task's explicit ceiling); the provider id is appended to the run's
    attempted provider ids; if a ceiling tightened, earlier step payloads and
    the stored answer are refiltered. Only after the commit the answer is 200
    "go" with the run's ceilings; any failure rolls everything back and is a
    refusal (the adapter must not call the provider).

    What the guard changes is the retention of audit copies in this service,
    not which data may be sent: a known provider with a readable policy always
    gets "go". A retried attempt with the same `attempt_id` runs the guard again
    under the lock and does not append the provider twice (409 when the id was
    recorded for another provider or kind). A run records at most 1000
    attempts: a new attempt beyond them is refused with 409 (the run must end).
    No response is ever replayed from a cache (`Cache-Control: no-store`). Only queued, running or
    waiting-input
    runs accept attempts; another caller, an ended run or an unknown one gets
    the same 404. Lock timeout (`privacy.lock_timeout_ms`) or a missing schema
    column: 503.

    Args:
        run_id (UUID):
        body (ProviderAttemptRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ProviderAttemptGo]
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
    body: ProviderAttemptRequest,
) -> Problem | ProviderAttemptGo | None:
    """Record a provider attempt before it is made (privacy guard)

     Called by the run's own agent before **every** chat or tool attempt,
    including attempts that will fail and every fallback, with the provider
    actually chosen for this attempt and the attempt kind. In one transaction
    that holds the run row (`SELECT ... FOR UPDATE`, a current locking read):
    the policies derive the provider's ceilings (unknown provider: 403
    `unknown_provider`; a policy or stored level that is not on the scale:
    503); the run's audit-content and background-answer ceilings only tighten
    (the strictest of the run's, the provider's or the global default, and the
    task's explicit ceiling); the provider id is appended to the run's
    attempted provider ids; if a ceiling tightened, earlier step payloads and
    the stored answer are refiltered. Only after the commit the answer is 200
    "go" with the run's ceilings; any failure rolls everything back and is a
    refusal (the adapter must not call the provider).

    What the guard changes is the retention of audit copies in this service,
    not which data may be sent: a known provider with a readable policy always
    gets "go". A retried attempt with the same `attempt_id` runs the guard again
    under the lock and does not append the provider twice (409 when the id was
    recorded for another provider or kind). A run records at most 1000
    attempts: a new attempt beyond them is refused with 409 (the run must end).
    No response is ever replayed from a cache (`Cache-Control: no-store`). Only queued, running or
    waiting-input
    runs accept attempts; another caller, an ended run or an unknown one gets
    the same 404. Lock timeout (`privacy.lock_timeout_ms`) or a missing schema
    column: 503.

    Args:
        run_id (UUID):
        body (ProviderAttemptRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ProviderAttemptGo
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
    body: ProviderAttemptRequest,
) -> Response[Problem | ProviderAttemptGo]:
    """Record a provider attempt before it is made (privacy guard)

     Called by the run's own agent before **every** chat or tool attempt,
    including attempts that will fail and every fallback, with the provider
    actually chosen for this attempt and the attempt kind. In one transaction
    that holds the run row (`SELECT ... FOR UPDATE`, a current locking read):
    the policies derive the provider's ceilings (unknown provider: 403
    `unknown_provider`; a policy or stored level that is not on the scale:
    503); the run's audit-content and background-answer ceilings only tighten
    (the strictest of the run's, the provider's or the global default, and the
    task's explicit ceiling); the provider id is appended to the run's
    attempted provider ids; if a ceiling tightened, earlier step payloads and
    the stored answer are refiltered. Only after the commit the answer is 200
    "go" with the run's ceilings; any failure rolls everything back and is a
    refusal (the adapter must not call the provider).

    What the guard changes is the retention of audit copies in this service,
    not which data may be sent: a known provider with a readable policy always
    gets "go". A retried attempt with the same `attempt_id` runs the guard again
    under the lock and does not append the provider twice (409 when the id was
    recorded for another provider or kind). A run records at most 1000
    attempts: a new attempt beyond them is refused with 409 (the run must end).
    No response is ever replayed from a cache (`Cache-Control: no-store`). Only queued, running or
    waiting-input
    runs accept attempts; another caller, an ended run or an unknown one gets
    the same 404. Lock timeout (`privacy.lock_timeout_ms`) or a missing schema
    column: 503.

    Args:
        run_id (UUID):
        body (ProviderAttemptRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ProviderAttemptGo]
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
    body: ProviderAttemptRequest,
) -> Problem | ProviderAttemptGo | None:
    """Record a provider attempt before it is made (privacy guard)

     Called by the run's own agent before **every** chat or tool attempt,
    including attempts that will fail and every fallback, with the provider
    actually chosen for this attempt and the attempt kind. In one transaction
    that holds the run row (`SELECT ... FOR UPDATE`, a current locking read):
    the policies derive the provider's ceilings (unknown provider: 403
    `unknown_provider`; a policy or stored level that is not on the scale:
    503); the run's audit-content and background-answer ceilings only tighten
    (the strictest of the run's, the provider's or the global default, and the
    task's explicit ceiling); the provider id is appended to the run's
    attempted provider ids; if a ceiling tightened, earlier step payloads and
    the stored answer are refiltered. Only after the commit the answer is 200
    "go" with the run's ceilings; any failure rolls everything back and is a
    refusal (the adapter must not call the provider).

    What the guard changes is the retention of audit copies in this service,
    not which data may be sent: a known provider with a readable policy always
    gets "go". A retried attempt with the same `attempt_id` runs the guard again
    under the lock and does not append the provider twice (409 when the id was
    recorded for another provider or kind). A run records at most 1000
    attempts: a new attempt beyond them is refused with 409 (the run must end).
    No response is ever replayed from a cache (`Cache-Control: no-store`). Only queued, running or
    waiting-input
    runs accept attempts; another caller, an ended run or an unknown one gets
    the same 404. Lock timeout (`privacy.lock_timeout_ms`) or a missing schema
    column: 503.

    Args:
        run_id (UUID):
        body (ProviderAttemptRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ProviderAttemptGo
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            body=body,
        )
    ).parsed
