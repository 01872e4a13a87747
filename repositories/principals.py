"""Principals and their API tokens (aggregate: principal)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from repositories.prepared import PreparedStatement

__all__ = ["Actor", "PrincipalRepository"]


@dataclass(frozen=True, slots=True)
class Actor:
    """The authenticated principal of a request: ids and states only, no names."""

    id: str
    kind: str
    status: str
    is_owner: bool


# Every request authenticates: prepared once per connection (repositories.prepared).
_BY_TOKEN = PreparedStatement(
    "principal_by_token_hash",
    """
    SELECT p.id::text AS id, p.kind AS kind, p.status AS status, p.is_owner AS is_owner
    FROM api_tokens t JOIN principals p ON p.id = t.principal_id
    WHERE t.token_hash = CAST(:token_hash AS text) AND t.revoked_at IS NULL
    """,
)


class PrincipalRepository:
    """Reads principals; tokens are looked up by their SHA-256 hash only."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def by_token_hash(self, token_hash: str) -> Actor | None:
        """The principal owning an unrevoked token with this hash, or ``None``."""
        row = _BY_TOKEN.execute(self._conn, {"token_hash": token_hash}).one_or_none()
        if row is None:
            return None
        m = row._mapping
        return Actor(id=m["id"], kind=m["kind"], status=m["status"], is_owner=m["is_owner"])
