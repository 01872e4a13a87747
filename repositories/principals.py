"""Principals and the holders of API tokens (aggregate: principal).

A bearer token authenticates either a principal (kinds session, agent, app) or a
runner (kind runner); :meth:`PrincipalRepository.token_holder` resolves both in one
prepared statement, so authentication costs one round trip whichever the caller is.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import Connection, text

from repositories.prepared import PreparedStatement

__all__ = ["Account", "Actor", "PrincipalRepository", "RunnerIdentity", "TokenHolder"]


@dataclass(frozen=True, slots=True)
class Actor:
    """The authenticated principal of a request: ids and states only, no names."""

    id: str
    kind: str
    status: str
    is_owner: bool


@dataclass(frozen=True, slots=True)
class RunnerIdentity:
    """An authenticated runner: its id and current enrolment (never its handle)."""

    id: str
    enrollment_epoch: int
    enrolled_at: dt.datetime | None

    @property
    def enrolled(self) -> bool:
        """Whether the runner has enrolled at least once."""
        return self.enrolled_at is not None


TokenHolder = Actor | RunnerIdentity


@dataclass(frozen=True, slots=True)
class Account:
    """A principal by id with what workspace provisioning needs: owner and home channel."""

    actor: Actor
    owner_user_id: str | None
    home_channel_id: str | None


_BY_ID = text(
    """
    SELECT p.id::text AS id, p.kind AS kind, p.status AS status, p.is_owner AS is_owner,
           p.owner_user_id::text AS owner_user_id, p.home_channel_id::text AS home_channel_id
    FROM principals p WHERE p.id = CAST(:id AS uuid)
    """
)

# Every request authenticates: prepared once per connection (repositories.prepared).
# The CHECKs of api_tokens make a token hold exactly one of principal and runner.
_HOLDER = PreparedStatement(
    "token_holder",
    """
    SELECT p.id::text AS id, p.kind AS kind, p.status AS status, p.is_owner AS is_owner,
           r.id::text AS runner_id, r.enrollment_epoch AS enrollment_epoch,
           r.enrolled_at AS enrolled_at
    FROM api_tokens t
    LEFT JOIN principals p ON p.id = t.principal_id
    LEFT JOIN runners r ON r.id = t.runner_id AND t.kind = 'runner'
    WHERE t.token_hash = CAST(:token_hash AS text) AND t.revoked_at IS NULL
    """,
)


class PrincipalRepository:
    """Reads principals; tokens are looked up by their SHA-256 hash only."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def token_holder(self, token_hash: str) -> TokenHolder | None:
        """The principal or runner holding an unrevoked token with this hash, or ``None``."""
        row = _HOLDER.execute(self._conn, {"token_hash": token_hash}).one_or_none()
        if row is None:
            return None
        m = row._mapping
        if m["id"] is not None:
            return Actor(id=m["id"], kind=m["kind"], status=m["status"], is_owner=m["is_owner"])
        if m["runner_id"] is not None:
            return RunnerIdentity(
                id=m["runner_id"],
                enrollment_epoch=m["enrollment_epoch"],
                enrolled_at=m["enrolled_at"],
            )
        return None

    def by_token_hash(self, token_hash: str) -> Actor | None:
        """The principal owning an unrevoked token with this hash, or ``None``."""
        holder = self.token_holder(token_hash)
        return holder if isinstance(holder, Actor) else None

    def account(self, principal_id: str) -> Account | None:
        """The principal with this id, its owner and home channel, or ``None``."""
        row = self._conn.execute(_BY_ID, {"id": principal_id}).first()
        if row is None:
            return None
        m = row._mapping
        return Account(
            actor=Actor(id=m["id"], kind=m["kind"], status=m["status"], is_owner=m["is_owner"]),
            owner_user_id=m["owner_user_id"],
            home_channel_id=m["home_channel_id"],
        )
