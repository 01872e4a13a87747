from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.provision_workspace_request import ProvisionWorkspaceRequest
from ...models.workspace import Workspace
from ...types import Response


def _get_kwargs(
    agent_id: UUID,
    *,
    body: ProvisionWorkspaceRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/agents/{agent_id}/workspaces".format(
            agent_id=quote(str(agent_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Workspace | None:
    if response.status_code == 201:
        response_201 = Workspace.from_dict(response.json())

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
) -> Response[Problem | Workspace]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    agent_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: ProvisionWorkspaceRequest,
) -> Response[Problem | Workspace]:
    """Provision a workspace of an agent on a runner

     Records that a new container of the runner acts as this agent: the server mints `container_name` and
    returns it; the runner reports the session it starts in that container with `runnerSessionStarted`.
    The binding belongs to the runner's current enrolment: a re-enrolment of the runner drops it.
    Decided in Rego as `agent.workspace.provision`: the agent's owner or an active instance owner, both
    active people, for an active agent (403 `not_agent_owner`, `agent_inactive` or
    `subject_kind_not_allowed` otherwise); an unknown agent answers 404, and so does an unknown
    `runner_id`. 409 when the runner has never enrolled.

    Args:
        agent_id (UUID):
        body (ProvisionWorkspaceRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Workspace]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    agent_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: ProvisionWorkspaceRequest,
) -> Problem | Workspace | None:
    """Provision a workspace of an agent on a runner

     Records that a new container of the runner acts as this agent: the server mints `container_name` and
    returns it; the runner reports the session it starts in that container with `runnerSessionStarted`.
    The binding belongs to the runner's current enrolment: a re-enrolment of the runner drops it.
    Decided in Rego as `agent.workspace.provision`: the agent's owner or an active instance owner, both
    active people, for an active agent (403 `not_agent_owner`, `agent_inactive` or
    `subject_kind_not_allowed` otherwise); an unknown agent answers 404, and so does an unknown
    `runner_id`. 409 when the runner has never enrolled.

    Args:
        agent_id (UUID):
        body (ProvisionWorkspaceRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Workspace
    """

    return sync_detailed(
        agent_id=agent_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    agent_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: ProvisionWorkspaceRequest,
) -> Response[Problem | Workspace]:
    """Provision a workspace of an agent on a runner

     Records that a new container of the runner acts as this agent: the server mints `container_name` and
    returns it; the runner reports the session it starts in that container with `runnerSessionStarted`.
    The binding belongs to the runner's current enrolment: a re-enrolment of the runner drops it.
    Decided in Rego as `agent.workspace.provision`: the agent's owner or an active instance owner, both
    active people, for an active agent (403 `not_agent_owner`, `agent_inactive` or
    `subject_kind_not_allowed` otherwise); an unknown agent answers 404, and so does an unknown
    `runner_id`. 409 when the runner has never enrolled.

    Args:
        agent_id (UUID):
        body (ProvisionWorkspaceRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Workspace]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    agent_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: ProvisionWorkspaceRequest,
) -> Problem | Workspace | None:
    """Provision a workspace of an agent on a runner

     Records that a new container of the runner acts as this agent: the server mints `container_name` and
    returns it; the runner reports the session it starts in that container with `runnerSessionStarted`.
    The binding belongs to the runner's current enrolment: a re-enrolment of the runner drops it.
    Decided in Rego as `agent.workspace.provision`: the agent's owner or an active instance owner, both
    active people, for an active agent (403 `not_agent_owner`, `agent_inactive` or
    `subject_kind_not_allowed` otherwise); an unknown agent answers 404, and so does an unknown
    `runner_id`. 409 when the runner has never enrolled.

    Args:
        agent_id (UUID):
        body (ProvisionWorkspaceRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Workspace
    """

    return (
        await asyncio_detailed(
            agent_id=agent_id,
            client=client,
            body=body,
        )
    ).parsed
