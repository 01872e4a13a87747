"""Bearer-token authentication: identity comes only from the connection.

Connexion's security hook (:func:`bearer_info`) runs on the event loop, so it does no
I/O: it only checks that a bearer token is present. :func:`authenticate` then resolves
the token in the request's worker thread: it hashes the token (SHA-256; tokens are
stored hashed) and looks the hash up. A missing, unknown or revoked token is 401. No
request field can name the actor.
"""

from __future__ import annotations

from typing import Any

from app.errors import Unauthenticated
from app.tokens import hash_token
from repositories.principals import Actor
from repositories.runners import RunnerIdentity
from repositories.unit_of_work import UnitOfWork

__all__ = ["authenticate", "authenticate_runner", "bearer_info", "bearer_token"]


def bearer_info(token: str) -> dict[str, Any] | None:
    """Connexion security hook: accept any non-empty token for later resolution."""
    return {"sub": "bearer"} if token else None


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header.

    Raises:
        Unauthenticated: the header is missing or not a bearer token.
    """
    if not authorization:
        raise Unauthenticated()
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated()
    return token.strip()


def authenticate(uow: UnitOfWork, authorization: str | None) -> Actor:
    """The principal the request's bearer token belongs to.

    Raises:
        Unauthenticated: no token, or no unrevoked token with that hash.
    """
    actor = uow.principals.by_token_hash(hash_token(bearer_token(authorization)))
    if actor is None:
        raise Unauthenticated()
    return actor


def authenticate_runner(uow: UnitOfWork, authorization: str | None) -> RunnerIdentity:
    """The runner the request's bearer token belongs to (runner endpoints only).

    Only tokens of kind ``runner`` match, so a person's, agent's or app's token never
    authenticates a runner endpoint, just as a runner token never authenticates a
    principal endpoint (:func:`authenticate` joins principals only).

    Raises:
        Unauthenticated: no token, or no unrevoked runner token with that hash.
    """
    runner = uow.runners.by_token_hash(hash_token(bearer_token(authorization)))
    if runner is None:
        raise Unauthenticated()
    return runner
