"""Principals and the holders of API tokens (aggregate: principal).

A bearer token authenticates either a principal (kinds session, agent, app) or a
runner (kind runner); :meth:`PrincipalRepository.token_holder` resolves both in one
prepared statement, so authentication costs one round trip whichever the caller is.
The values it returns are defined in :mod:`app.domain.identity` (re-exported here).
"""

from __future__ import annotations

from sqlalchemy import Connection, RowMapping, text

from app.domain.identity import Account, Actor, RunnerIdentity, TokenHolder
from repositories.prepared import PreparedStatement

__all__ = [
    "Account",
    "Actor",
    "PrincipalRepository",
    "RunnerIdentity",
    "TokenHolder",
    "account_columns",
    "account_from_row",
]


def account_columns(prefix: str = "") -> str:
    """The select list of an :class:`Account` from ``principals`` aliased ``p``.

    Every column is labelled ``prefix`` + its name, as :func:`account_from_row` reads it.
    """
    return (
        f"p.id::text AS {prefix}id, p.kind AS {prefix}kind, p.status AS {prefix}status, "
        f"p.is_owner AS {prefix}is_owner, p.owner_user_id::text AS {prefix}owner_user_id, "
        f"p.home_channel_id::text AS {prefix}home_channel_id"
    )


def account_from_row(m: RowMapping, prefix: str = "") -> Account | None:
    """The :class:`Account` of a row selected with :func:`account_columns` (same
    ``prefix``), or ``None`` when its id is NULL (an outer join that found no principal).
    """
    if m[f"{prefix}id"] is None:
        return None
    return Account(
        actor=Actor(
            id=m[f"{prefix}id"],
            kind=m[f"{prefix}kind"],
            status=m[f"{prefix}status"],
            is_owner=m[f"{prefix}is_owner"],
        ),
        owner_user_id=m[f"{prefix}owner_user_id"],
        home_channel_id=m[f"{prefix}home_channel_id"],
    )


_BY_ID = text(f"SELECT {account_columns()} FROM principals p WHERE p.id = CAST(:id AS uuid)")

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

    def account(self, principal_id: str) -> Account | None:
        """The principal with this id, its owner and home channel, or ``None``."""
        row = self._conn.execute(_BY_ID, {"id": principal_id}).first()
        return None if row is None else account_from_row(row._mapping)
