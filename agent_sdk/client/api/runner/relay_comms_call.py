from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.relay_error_result import RelayErrorResult
from ...models.relay_list_result import RelayListResult
from ...models.relay_post_result import RelayPostResult
from ...models.relay_request import RelayRequest
from ...types import Response


def _get_kwargs(
    *,
    body: RelayRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/runner/comms:relay",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RelayErrorResult | RelayListResult | RelayPostResult | None:
    if response.status_code == 200:

        def _parse_response_200(
            data: object,
        ) -> RelayErrorResult | RelayListResult | RelayPostResult:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_relay_result_type_0 = RelayPostResult.from_dict(data)

                return componentsschemas_relay_result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_relay_result_type_1 = RelayListResult.from_dict(data)

                return componentsschemas_relay_result_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_relay_result_type_2 = RelayErrorResult.from_dict(data)

            return componentsschemas_relay_result_type_2

        response_200 = _parse_response_200(response.json())

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
) -> Response[Problem | RelayErrorResult | RelayListResult | RelayPostResult]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RelayRequest,
) -> Response[Problem | RelayErrorResult | RelayListResult | RelayPostResult]:
    """Relay one agent comms call, executed as the session's agent account

     The runner forwards one comms call of the agent in the container bound to
    `session_id`. The server resolves the agent account from its own binding
    (the runner and the agent never name an account) and executes the call
    through the same code path as the messages API for a person: the same Rego
    decisions (`message.post`, `message.list`), denial auditing, idempotency on
    (author, `client_request_id`), ordering and rate-limit class.

    Problem answers are for the envelope only: a body that breaks the schema
    (an unknown member of the call union, such as one that would answer an ask,
    is not expressible and answers 422), authentication (a runner token only),
    the runner check (`runner.comms.relay`: 403 `not_enrolled` for a runner
    that never enrolled) and the session lookup: an unknown session, a stopped
    one, one from before the runner's last enrolment, another runner's session
    and a session whose agent is not active all answer the same 404. A binding
    without a resolvable account is 500, never a fallback identity.

    Everything the call itself decides answers 200 in-band as
    `{"call_id", "error": {"code", "message", "reason"?}}` with the code a
    person gets: `not_found` for a channel the agent cannot see, `forbidden`
    with its reason, `validation_failed` (a value beyond the bounds of the
    messages API, text holding NUL or an unpaired surrogate, or an empty or
    blank `channel_id`), `conflict` or `rate_limited`. An absent `channel_id`
    means the agent's home channel; ids are accepted in any case.

    Acting for a run (issue 21): when the runner bound a run to the session
    (`runnerSessionBindRun`) and the run is queued, running or waiting for
    input, the call is decided for both principals: the agent and the run's
    requester (the author of its triggering message) on the same resolved
    channel, the home channel included, from the requester's current rights
    (disabled, revoked, expired and archived all count). A denial only the
    requester's side causes answers in-band `forbidden` with reason
    `acting_for_exceeded` where the agent itself can see the channel, and the
    usual `not_found` where it cannot. An ended run no longer binds the calls.
    An agent with `acting_for: required` is refused in-band (`forbidden`,
    reason `run_required`) without a live bound run. Every 200 answer says which
    mode decided it: `acting_for` `{"mode": "run", "run_id"}` or
    `{"mode": "own"}`. Nothing in this body can name or change the run.

    Args:
        body (RelayRequest): The relay envelope. The call's values are checked per call, text
            PostgreSQL cannot store included: a violation answers 200 in band (`validation_failed`),
            never 422.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RelayErrorResult | RelayListResult | RelayPostResult]
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
    body: RelayRequest,
) -> Problem | RelayErrorResult | RelayListResult | RelayPostResult | None:
    """Relay one agent comms call, executed as the session's agent account

     The runner forwards one comms call of the agent in the container bound to
    `session_id`. The server resolves the agent account from its own binding
    (the runner and the agent never name an account) and executes the call
    through the same code path as the messages API for a person: the same Rego
    decisions (`message.post`, `message.list`), denial auditing, idempotency on
    (author, `client_request_id`), ordering and rate-limit class.

    Problem answers are for the envelope only: a body that breaks the schema
    (an unknown member of the call union, such as one that would answer an ask,
    is not expressible and answers 422), authentication (a runner token only),
    the runner check (`runner.comms.relay`: 403 `not_enrolled` for a runner
    that never enrolled) and the session lookup: an unknown session, a stopped
    one, one from before the runner's last enrolment, another runner's session
    and a session whose agent is not active all answer the same 404. A binding
    without a resolvable account is 500, never a fallback identity.

    Everything the call itself decides answers 200 in-band as
    `{"call_id", "error": {"code", "message", "reason"?}}` with the code a
    person gets: `not_found` for a channel the agent cannot see, `forbidden`
    with its reason, `validation_failed` (a value beyond the bounds of the
    messages API, text holding NUL or an unpaired surrogate, or an empty or
    blank `channel_id`), `conflict` or `rate_limited`. An absent `channel_id`
    means the agent's home channel; ids are accepted in any case.

    Acting for a run (issue 21): when the runner bound a run to the session
    (`runnerSessionBindRun`) and the run is queued, running or waiting for
    input, the call is decided for both principals: the agent and the run's
    requester (the author of its triggering message) on the same resolved
    channel, the home channel included, from the requester's current rights
    (disabled, revoked, expired and archived all count). A denial only the
    requester's side causes answers in-band `forbidden` with reason
    `acting_for_exceeded` where the agent itself can see the channel, and the
    usual `not_found` where it cannot. An ended run no longer binds the calls.
    An agent with `acting_for: required` is refused in-band (`forbidden`,
    reason `run_required`) without a live bound run. Every 200 answer says which
    mode decided it: `acting_for` `{"mode": "run", "run_id"}` or
    `{"mode": "own"}`. Nothing in this body can name or change the run.

    Args:
        body (RelayRequest): The relay envelope. The call's values are checked per call, text
            PostgreSQL cannot store included: a violation answers 200 in band (`validation_failed`),
            never 422.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RelayErrorResult | RelayListResult | RelayPostResult
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RelayRequest,
) -> Response[Problem | RelayErrorResult | RelayListResult | RelayPostResult]:
    """Relay one agent comms call, executed as the session's agent account

     The runner forwards one comms call of the agent in the container bound to
    `session_id`. The server resolves the agent account from its own binding
    (the runner and the agent never name an account) and executes the call
    through the same code path as the messages API for a person: the same Rego
    decisions (`message.post`, `message.list`), denial auditing, idempotency on
    (author, `client_request_id`), ordering and rate-limit class.

    Problem answers are for the envelope only: a body that breaks the schema
    (an unknown member of the call union, such as one that would answer an ask,
    is not expressible and answers 422), authentication (a runner token only),
    the runner check (`runner.comms.relay`: 403 `not_enrolled` for a runner
    that never enrolled) and the session lookup: an unknown session, a stopped
    one, one from before the runner's last enrolment, another runner's session
    and a session whose agent is not active all answer the same 404. A binding
    without a resolvable account is 500, never a fallback identity.

    Everything the call itself decides answers 200 in-band as
    `{"call_id", "error": {"code", "message", "reason"?}}` with the code a
    person gets: `not_found` for a channel the agent cannot see, `forbidden`
    with its reason, `validation_failed` (a value beyond the bounds of the
    messages API, text holding NUL or an unpaired surrogate, or an empty or
    blank `channel_id`), `conflict` or `rate_limited`. An absent `channel_id`
    means the agent's home channel; ids are accepted in any case.

    Acting for a run (issue 21): when the runner bound a run to the session
    (`runnerSessionBindRun`) and the run is queued, running or waiting for
    input, the call is decided for both principals: the agent and the run's
    requester (the author of its triggering message) on the same resolved
    channel, the home channel included, from the requester's current rights
    (disabled, revoked, expired and archived all count). A denial only the
    requester's side causes answers in-band `forbidden` with reason
    `acting_for_exceeded` where the agent itself can see the channel, and the
    usual `not_found` where it cannot. An ended run no longer binds the calls.
    An agent with `acting_for: required` is refused in-band (`forbidden`,
    reason `run_required`) without a live bound run. Every 200 answer says which
    mode decided it: `acting_for` `{"mode": "run", "run_id"}` or
    `{"mode": "own"}`. Nothing in this body can name or change the run.

    Args:
        body (RelayRequest): The relay envelope. The call's values are checked per call, text
            PostgreSQL cannot store included: a violation answers 200 in band (`validation_failed`),
            never 422.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RelayErrorResult | RelayListResult | RelayPostResult]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: RelayRequest,
) -> Problem | RelayErrorResult | RelayListResult | RelayPostResult | None:
    """Relay one agent comms call, executed as the session's agent account

     The runner forwards one comms call of the agent in the container bound to
    `session_id`. The server resolves the agent account from its own binding
    (the runner and the agent never name an account) and executes the call
    through the same code path as the messages API for a person: the same Rego
    decisions (`message.post`, `message.list`), denial auditing, idempotency on
    (author, `client_request_id`), ordering and rate-limit class.

    Problem answers are for the envelope only: a body that breaks the schema
    (an unknown member of the call union, such as one that would answer an ask,
    is not expressible and answers 422), authentication (a runner token only),
    the runner check (`runner.comms.relay`: 403 `not_enrolled` for a runner
    that never enrolled) and the session lookup: an unknown session, a stopped
    one, one from before the runner's last enrolment, another runner's session
    and a session whose agent is not active all answer the same 404. A binding
    without a resolvable account is 500, never a fallback identity.

    Everything the call itself decides answers 200 in-band as
    `{"call_id", "error": {"code", "message", "reason"?}}` with the code a
    person gets: `not_found` for a channel the agent cannot see, `forbidden`
    with its reason, `validation_failed` (a value beyond the bounds of the
    messages API, text holding NUL or an unpaired surrogate, or an empty or
    blank `channel_id`), `conflict` or `rate_limited`. An absent `channel_id`
    means the agent's home channel; ids are accepted in any case.

    Acting for a run (issue 21): when the runner bound a run to the session
    (`runnerSessionBindRun`) and the run is queued, running or waiting for
    input, the call is decided for both principals: the agent and the run's
    requester (the author of its triggering message) on the same resolved
    channel, the home channel included, from the requester's current rights
    (disabled, revoked, expired and archived all count). A denial only the
    requester's side causes answers in-band `forbidden` with reason
    `acting_for_exceeded` where the agent itself can see the channel, and the
    usual `not_found` where it cannot. An ended run no longer binds the calls.
    An agent with `acting_for: required` is refused in-band (`forbidden`,
    reason `run_required`) without a live bound run. Every 200 answer says which
    mode decided it: `acting_for` `{"mode": "run", "run_id"}` or
    `{"mode": "own"}`. Nothing in this body can name or change the run.

    Args:
        body (RelayRequest): The relay envelope. The call's values are checked per call, text
            PostgreSQL cannot store included: a violation answers 200 in band (`validation_failed`),
            never 422.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RelayErrorResult | RelayListResult | RelayPostResult
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
