"""Principals and their API tokens (aggregate: principal)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, text

__all__ = ["Actor", "PrincipalRepository"]


@dataclass(frozen=True, slots=True)
class Actor:
    """The authenticated principal of a request: ids and states only, no names."""

    id: str
    kind: str
    status: str
    is_owner: bool


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
