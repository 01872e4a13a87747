"""Bearer-token authentication: identity comes only from the connection.

:func:`bearer_info` is Connexion's security hook, run after routing and before the
body is read: it refuses an address whose failed authentications fill its window
(429), hashes the token and resolves it to a principal or a runner in one statement
(missing, unknown or revoked: 401). Handlers read the result with
:func:`current_actor` or :func:`current_runner`, which refuse a token of the other
kind. Walk-through and rate limits: ``docs/architecture.md``; decisions L4, L5.
"""

from __future__ import annotations

from typing import Any

from connexion.context import context
from starlette.concurrency import run_in_threadpool

from app.domain.identity import Actor, RunnerIdentity, TokenHolder
from app.errors import Unauthenticated
from app.http.token_info import actor_of, runner_of, token_info
from app.services import Services, services_of
from app.tokens import hash_token

__all__ = ["actor_of", "bearer_info", "current_actor", "current_runner", "runner_of"]


def _lookup(services: Services, token_hash: str) -> TokenHolder | None:
    with services.reader() as uow:
        return uow.principals.token_holder(token_hash)


async def bearer_info(token: str, request: Any) -> dict[str, Any] | None:
    """Connexion security hook (``x-bearerInfoFunc``): the token's principal, or ``None``.

    ``None`` makes Connexion answer 401. Connexion has already checked the scheme
    (``Bearer``) and split the header; a blank token never reaches the database but
    counts as a failed attempt. ``request`` is Connexion's request (its ASGI scope
    gives the client address).

    Raises:
        RateLimited: the client address failed too often within the last minute.
        ServiceUnavailable: the rate-limit storage cannot answer and
            ``rate_limit.storage_failure_mode`` is ``closed``.
        sqlalchemy.exc.OperationalError: the database cannot answer (mapped to 503).
    """
    services = services_of(request.scope)
    address = services.limiter.client_address(request.scope)
    await services.limiter.admit_authentication(address)
    token = token.strip()
    holder = await run_in_threadpool(_lookup, services, hash_token(token)) if token else None
    if holder is not None:
        return token_info(holder)
    await services.limiter.authentication_failed(address)
    return None


def current_actor() -> Actor:
    """The authenticated principal of the request being served.

    Raises:
        Unauthenticated: the token belongs to a runner, or the operation ran without
            authentication (a programming error in the spec: every non-public
            operation declares ``bearerAuth``).
    """
    actor = actor_of(context.get("token_info"))
    if actor is None:
        raise Unauthenticated()
    return actor


def current_runner() -> RunnerIdentity:
    """The authenticated runner of the request being served (runner endpoints only).

    Raises:
        Unauthenticated: the token does not belong to a runner.
    """
    runner = runner_of(context.get("token_info"))
    if runner is None:
        raise Unauthenticated()
    return runner
