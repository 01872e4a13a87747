"""Runners and their workspace bindings (aggregate: runner with its bindings).

A binding records which agent account a container of a runner acts as, first by the
server-minted ``container_name`` (state ``provisioned``), then by the runner-minted
``session_id`` (state ``bound``). Every binding carries the runner's
``enrollment_epoch`` at provisioning time; a new enrolment bumps the epoch and
deletes all of the runner's bindings in the same transaction, so a session id that
the runner mints again after a restart resolves to nothing. Lookups are always keyed
by the runner: one runner's session ids never find another runner's binding.

Rows are read by label, never by position; the repository never commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, RowMapping, text
from sqlalchemy.exc import IntegrityError

from repositories.principals import Account, RunnerIdentity, account_columns, account_from_row

__all__ = ["Binding", "RunnerIdentity", "RunnerRepository"]


@dataclass(frozen=True, slots=True)
class Binding:
    """A workspace binding with the agent account it resolves to.

    ``account`` is ``None`` when the bound agent id names no principal (a broken row:
    the relay fails closed with 500, never with another identity); the relay acts as
    its actor and falls back to its home channel.
    """

    id: str
    runner_id: str
    enrollment_epoch: int
    container_name: str
    session_id: str | None
    agent_id: str
    state: str
    account: Account | None


_ENROLL = text(
    """
    UPDATE runners SET enrollment_epoch = enrollment_epoch + 1, enrolled_at = now()
    WHERE id = CAST(:runner_id AS uuid)
    RETURNING id::text AS id, enrollment_epoch AS enrollment_epoch, enrolled_at AS enrolled_at
    """
)
_DROP_BINDINGS = text("DELETE FROM session_bindings WHERE runner_id = CAST(:runner_id AS uuid)")
# FOR SHARE: an enrolment (an UPDATE of this row) waits until the provisioning
# transaction is done, so no binding of an old epoch is inserted after the drop.
_RUNNER_FOR_SHARE = text(
    """
    SELECT r.id::text AS id, r.enrollment_epoch AS enrollment_epoch,
           r.enrolled_at AS enrolled_at
    FROM runners r WHERE r.id = CAST(:runner_id AS uuid) FOR SHARE
    """
)
_BINDING_COLUMNS = f"""
    b.id::text AS id, b.runner_id::text AS runner_id, b.enrollment_epoch AS enrollment_epoch,
    b.container_name AS container_name, b.session_id AS session_id,
    b.agent_id::text AS agent_id, b.state AS state,
    {account_columns("account_")}
"""
_BINDING_FROM = """
    FROM session_bindings b LEFT JOIN principals p ON p.id = b.agent_id
"""
_BY_SESSION = text(
    f"SELECT {_BINDING_COLUMNS} {_BINDING_FROM} "
    "WHERE b.runner_id = CAST(:runner_id AS uuid) AND b.session_id = :session_id"
)
_BY_SESSION_FOR_UPDATE = text(
    f"SELECT {_BINDING_COLUMNS} {_BINDING_FROM} "
    "WHERE b.runner_id = CAST(:runner_id AS uuid) AND b.session_id = :session_id "
    "FOR UPDATE OF b"
)
_BY_CONTAINER_FOR_UPDATE = text(
    f"SELECT {_BINDING_COLUMNS} {_BINDING_FROM} "
    "WHERE b.runner_id = CAST(:runner_id AS uuid) AND b.container_name = :container_name "
    "FOR UPDATE OF b"
)
# The inserted row comes back with its account in the same statement (no re-read).
_PROVISION = text(
    f"""
    WITH inserted AS (
        INSERT INTO session_bindings
            (runner_id, enrollment_epoch, container_name, agent_id, state)
        VALUES (CAST(:runner_id AS uuid), :epoch, :container_name, CAST(:agent_id AS uuid),
                'provisioned')
        RETURNING id, runner_id, enrollment_epoch, container_name, session_id, agent_id, state
    )
    SELECT {_BINDING_COLUMNS}
    FROM inserted b LEFT JOIN principals p ON p.id = b.agent_id
    """
)
_BIND = text(
    "UPDATE session_bindings SET session_id = :session_id, state = 'bound' "
    "WHERE id = CAST(:id AS uuid)"
)
_DELETE = text("DELETE FROM session_bindings WHERE id = CAST(:id AS uuid)")


def _identity(row: Any) -> RunnerIdentity | None:
    if row is None:
        return None
    m = row._mapping
    return RunnerIdentity(
        id=m["id"], enrollment_epoch=int(m["enrollment_epoch"]), enrolled_at=m["enrolled_at"]
    )


def _binding(row: Any) -> Binding | None:
    return None if row is None else _binding_of(row._mapping)


def _binding_of(m: RowMapping) -> Binding:
    return Binding(
        id=m["id"],
        runner_id=m["runner_id"],
        enrollment_epoch=int(m["enrollment_epoch"]),
        container_name=m["container_name"],
        session_id=m["session_id"],
        agent_id=m["agent_id"],
        state=m["state"],
        account=account_from_row(m, "account_"),
    )


class RunnerRepository:
    """Reads and writes runners and their bindings; never commits."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def enroll(self, runner_id: str) -> tuple[RunnerIdentity, int]:
        """Start a new enrolment and drop every binding of the runner.

        Returns the runner's new identity and the number of bindings dropped.

        Raises:
            RuntimeError: the runner row is gone (it authenticated a moment ago).
        """
        identity = _identity(self._conn.execute(_ENROLL, {"runner_id": runner_id}).first())
        if identity is None:
            raise RuntimeError("runner vanished during enrolment")
        dropped = self._conn.execute(_DROP_BINDINGS, {"runner_id": runner_id}).rowcount
        return identity, int(dropped)

    def lock_for_provisioning(self, runner_id: str) -> RunnerIdentity | None:
        """The runner, share-locked until the transaction ends (blocks a re-enrolment)."""
        return _identity(self._conn.execute(_RUNNER_FOR_SHARE, {"runner_id": runner_id}).first())

    def provision(
        self, *, runner_id: str, enrollment_epoch: int, container_name: str, agent_id: str
    ) -> Binding:
        """Insert a ``provisioned`` binding of ``container_name`` to ``agent_id``.

        The binding is returned by the insert itself, with its account.
        """
        row = self._conn.execute(
            _PROVISION,
            {
                "runner_id": runner_id,
                "epoch": enrollment_epoch,
                "container_name": container_name,
                "agent_id": agent_id,
            },
        ).one()
        return _binding_of(row._mapping)

    def by_session(self, runner_id: str, session_id: str, *, lock: bool = False) -> Binding | None:
        """The runner's binding of ``session_id`` (row-locked when ``lock``)."""
        statement = _BY_SESSION_FOR_UPDATE if lock else _BY_SESSION
        return _binding(
            self._conn.execute(
                statement, {"runner_id": runner_id, "session_id": session_id}
            ).first()
        )

    def by_container(self, runner_id: str, container_name: str) -> Binding | None:
        """The runner's binding of ``container_name``, row-locked for the session report."""
        return _binding(
            self._conn.execute(
                _BY_CONTAINER_FOR_UPDATE,
                {"runner_id": runner_id, "container_name": container_name},
            ).first()
        )

    def bind(self, binding_id: str, session_id: str) -> bool:
        """Move a binding to ``session_id`` (state ``bound``).

        Returns ``False`` when another binding of the runner already holds that session
        id (unique violation, rolled back to a savepoint).
        """
        try:
            with self._conn.begin_nested():
                self._conn.execute(_BIND, {"id": binding_id, "session_id": session_id})
        except IntegrityError:
            return False
        return True

    def delete(self, binding_id: str) -> None:
        """Remove a binding (the session stopped)."""
        self._conn.execute(_DELETE, {"id": binding_id})
