"""Runners and their workspace bindings (aggregate: runner with its bindings).

A binding records which agent account a container of a runner acts as, first by the
server-minted ``container_name`` (state ``provisioned``), then by the runner-minted
``session_id`` (state ``bound``). Every binding carries the runner's
``enrollment_epoch`` at provisioning time; a new enrolment bumps the epoch and
deletes all of the runner's bindings in the same transaction, so a session id that
the runner mints again after a restart resolves to nothing. Lookups are always keyed
by the runner: one runner's session ids never find another runner's binding.

A bound session may have a run bound to it (``run_id``, issue 21): every lookup of a
binding also returns that run's agent and state and its requester, the author of its
triggering message, in the same statement, so a relayed call gathers the facts of
both principals without another round trip.

Rows are read by label, never by position; the repository never commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, RowMapping, text
from sqlalchemy.exc import IntegrityError

from repositories.principals import Account, RunnerIdentity, account_columns, account_from_row

__all__ = ["Binding", "BoundRun", "RunnerIdentity", "RunnerRepository"]


@dataclass(frozen=True, slots=True)
class BoundRun:
    """A run as acting-for sees it: its agent, state and requester.

    ``requester_id`` is the author of the run's triggering message, ``None`` when the
    run has none (a command run, or a trigger that was deleted): the policy then
    denies everything the run would be asked to allow.
    """

    id: str
    agent_id: str
    state: str
    requester_id: str | None


@dataclass(frozen=True, slots=True)
class Binding:
    """A workspace binding with the agent account it resolves to.

    ``account`` is ``None`` when the bound agent id names no principal (a broken row:
    the relay fails closed with 500, never with another identity); the relay acts as
    its actor and falls back to its home channel. ``run`` is the run bound to the
    session, ``None`` without one.
    """

    id: str
    runner_id: str
    enrollment_epoch: int
    container_name: str
    session_id: str | None
    agent_id: str
    state: str
    account: Account | None
    run: BoundRun | None = None


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
_RUN_COLUMNS = """
    r.id::text AS run_id, r.agent_id::text AS run_agent_id, r.state AS run_state,
    tm.author_principal_id::text AS run_requester_id
"""
_BINDING_COLUMNS = f"""
    b.id::text AS id, b.runner_id::text AS runner_id, b.enrollment_epoch AS enrollment_epoch,
    b.container_name AS container_name, b.session_id AS session_id,
    b.agent_id::text AS agent_id, b.state AS state,
    {account_columns("account_")}, {_RUN_COLUMNS}
"""
# The bound run and its requester (the author of the triggering message) ride along.
_RUN_JOINS = """
    LEFT JOIN runs r ON r.id = b.run_id
    LEFT JOIN messages tm ON tm.id = r.triggering_message_id
"""
_BINDING_FROM = f"""
    FROM session_bindings b LEFT JOIN principals p ON p.id = b.agent_id {_RUN_JOINS}
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
        RETURNING id, runner_id, enrollment_epoch, container_name, session_id, agent_id, state,
                  run_id
    )
    SELECT {_BINDING_COLUMNS}
    FROM inserted b LEFT JOIN principals p ON p.id = b.agent_id {_RUN_JOINS}
    """
)
# A new session id is a new session (a restarted container): no run is bound to it.
_BIND = text(
    "UPDATE session_bindings SET session_id = :session_id, state = 'bound', run_id = NULL "
    "WHERE id = CAST(:id AS uuid)"
)
_DELETE = text("DELETE FROM session_bindings WHERE id = CAST(:id AS uuid)")
_RUN = text(
    f"""
    SELECT {_RUN_COLUMNS}
    FROM runs r LEFT JOIN messages tm ON tm.id = r.triggering_message_id
    WHERE r.id = CAST(:run_id AS uuid)
    """
)
_SET_RUN = text(
    "UPDATE session_bindings SET run_id = CAST(:run_id AS uuid) WHERE id = CAST(:id AS uuid)"
)


def _identity(row: Any) -> RunnerIdentity | None:
    if row is None:
        return None
    m = row._mapping
    return RunnerIdentity(
        id=m["id"], enrollment_epoch=int(m["enrollment_epoch"]), enrolled_at=m["enrolled_at"]
    )


def _binding(row: Any) -> Binding | None:
    return None if row is None else _binding_of(row._mapping)


def _run_of(m: RowMapping) -> BoundRun | None:
    if m["run_id"] is None:
        return None
    return BoundRun(
        id=m["run_id"],
        agent_id=m["run_agent_id"],
        state=m["run_state"],
        requester_id=m["run_requester_id"],
    )


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
        run=_run_of(m),
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

    def run(self, run_id: str) -> BoundRun | None:
        """The run with this id as acting-for sees it, or ``None`` when unknown."""
        row = self._conn.execute(_RUN, {"run_id": run_id}).first()
        return None if row is None else _run_of(row._mapping)

    def set_run(self, binding_id: str, run_id: str | None) -> None:
        """Bind ``run_id`` to the binding's session (``None`` unbinds)."""
        self._conn.execute(_SET_RUN, {"id": binding_id, "run_id": run_id})
