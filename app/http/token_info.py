"""What an authenticated request carries in Connexion's ``token_info``.

:func:`app.auth.bearer_info` builds it with :func:`token_info` (the principal or the
runner that holds the token); the admission middleware and the handlers read it with
:func:`actor_of` and :func:`runner_of`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from app.domain.identity import Actor, RunnerIdentity, TokenHolder

__all__ = ["actor_of", "runner_of", "token_info"]

_ACTOR = "actor"
_RUNNER = "runner"
_Holder = TypeVar("_Holder", Actor, RunnerIdentity)


def token_info(holder: TokenHolder) -> dict[str, Any]:
    """Connexion's ``token_info`` for the holder of a valid token."""
    return {"sub": holder.id, _ACTOR if isinstance(holder, Actor) else _RUNNER: holder}


def actor_of(token_info: Any) -> Actor | None:
    """The actor inside Connexion's ``token_info``, or ``None`` for a public operation."""
    return _held(token_info, _ACTOR, Actor)


def runner_of(token_info: Any) -> RunnerIdentity | None:
    """The runner inside Connexion's ``token_info``, or ``None``."""
    return _held(token_info, _RUNNER, RunnerIdentity)


def _held(token_info: Any, key: str, kind: type[_Holder]) -> _Holder | None:
    """The holder of ``kind`` under ``key`` in ``token_info``, or ``None``."""
    if isinstance(token_info, dict):
        holder = token_info.get(key)
        if isinstance(holder, kind):
            return holder
    return None
