"""Principals and their API tokens (aggregate: principal)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, text

__all__ = ["Account", "Actor", "PrincipalRepository"]


@dataclass(frozen=True, slots=True)
class Actor:
    """The authenticated principal of a request: ids and states only, no names."""

    id: str
    kind: str
    status: str
    is_owner: bool


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

_BY_TOKEN = text(
    """
    SELECT p.id::text, p.kind, p.status, p.is_owner
    FROM api_tokens t JOIN principals p ON p.id = t.principal_id
    WHERE t.token_hash = :token_hash AND t.revoked_at IS NULL
    """
)


class PrincipalRepository:
    """Reads principals; tokens are looked up by their SHA-256 hash only."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def by_token_hash(self, token_hash: str) -> Actor | None:
        """The principal owning an unrevoked token with this hash, or ``None``."""
        row = self._conn.execute(_BY_TOKEN, {"token_hash": token_hash}).one_or_none()
        if row is None:
            return None
        return Actor(id=row[0], kind=row[1], status=row[2], is_owner=row[3])

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
