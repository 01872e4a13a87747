"""A run's privacy state (aggregate: the run row with its steps, answer and attempts).

The only module that writes ``run_steps``, ``runs.background_answer``, the run's
ceilings, its attempted provider ids and its sealed envelope. Every write takes a
:class:`LockedRun`, the handle :meth:`RunPrivacyRepository.lock` returns after locking
the run row ``FOR UPDATE`` in the current transaction; a handle from another
transaction or connection is refused (:class:`StaleRunLock`), so an old in-memory
handle cannot write around a ceiling that tightened since.

:meth:`RunPrivacyRepository.lock` is the first statement of a guarded transaction: in
one statement it sets ``lock_timeout`` for the transaction, locks the run row with a
current locking read (under READ COMMITTED PostgreSQL waits for a concurrent holder
and re-reads the newest committed row version), and reads what the guard decides on:
the run's ceilings, task, state and agent, the provider's and the task's policies and
the actor's fact bundle. Anything the run lock serialises (attempts, steps) is read by
later statements, which see every commit that preceded the lock.

Columns are read by label. Methods never commit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, RootTransaction, RowMapping, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.expression import bindparam

from app.domain.facts import FactBundle
from app.domain.privacy import CEILING_KINDS, MAX_ATTEMPTS, Ceiling, Ceilings
from repositories.facts import as_bundle, bundle_sql
from repositories.rows import from_row

__all__ = [
    "AttemptRecord",
    "LockedRun",
    "PrivacySnapshot",
    "RunPrivacyRepository",
    "StaleRunLock",
    "StepRow",
    "is_lock_timeout",
    "is_missing_schema",
]

# SQLSTATEs: undefined_column, undefined_table (the privacy migration is missing),
# lock_not_available (lock_timeout expired).
_MISSING_SCHEMA = frozenset({"42703", "42P01"})
_LOCK_NOT_AVAILABLE = "55P03"


def _pgcode(exc: DBAPIError) -> str | None:
    code = getattr(exc.orig, "pgcode", None)
    return None if code is None else str(code)


def is_missing_schema(exc: DBAPIError) -> bool:
    """Whether a statement failed because a privacy column or table does not exist."""
    return _pgcode(exc) in _MISSING_SCHEMA


def is_lock_timeout(exc: DBAPIError) -> bool:
    """Whether a statement failed because ``lock_timeout`` expired."""
    return _pgcode(exc) == _LOCK_NOT_AVAILABLE


class StaleRunLock(RuntimeError):
    """A write named a run lock of another transaction or connection (a bug)."""


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """A recorded attempt id: which provider and which kind."""

    provider_id: str
    kind: str


@dataclass(frozen=True, slots=True)
class StepRow:
    """A stored run step: its id and payload (any JSON value for historical rows)."""

    id: str
    payload: Any


@dataclass(frozen=True)
class LockedRun:
    """A run row locked ``FOR UPDATE`` in the current transaction, and its facts.

    Attributes:
        run_id, agent_id, channel_id, state: What the run decisions are taken on.
        task_key: The run's task, if any.
        ceilings: The stored ceilings by kind (``audit_content``,
            ``background_answer``); a kind without a stored level is absent.
        envelope_version: Bumped by every scrub and state change.
        provider_policy: The asked provider's explicit levels by kind (absent kinds
            inherit the global default), or ``None`` when the provider is unknown or
            none was asked.
        task_policy: The task's explicit levels by kind, or ``None`` without a policy.
        facts: The fact bundle of the actor and the run's channel.
    """

    run_id: str
    agent_id: str
    channel_id: str
    state: str
    task_key: str | None
    ceilings: Ceilings
    envelope_version: int
    provider_policy: Mapping[str, str] | None
    task_policy: Mapping[str, str] | None
    facts: FactBundle
    connection: Connection
    transaction: RootTransaction


@dataclass(frozen=True, slots=True)
class PrivacySnapshot:
    """A run's privacy state read without a lock (``getRunPrivacy``)."""

    run_id: str
    agent_id: str
    channel_id: str
    state: str
    ceilings: Ceilings
    attempted_provider_ids: tuple[str, ...]
    envelope_version: int
    facts: FactBundle


_RUN_COLUMNS = """
    r.id::text AS run_id, r.agent_id::text AS agent_id, t.channel_id::text AS channel_id,
    r.state AS state, r.task_key AS task_key,
    r.audit_content_ceiling AS audit_content_ceiling,
    r.audit_content_ceiling_explicit AS audit_content_ceiling_explicit,
    r.background_answer_ceiling AS background_answer_ceiling,
    r.background_answer_ceiling_explicit AS background_answer_ceiling_explicit,
    r.envelope_version AS envelope_version,
    {bundle} AS facts"""

_LEVELS = (
    "json_build_object('audit_content', {t}.audit_content_ceiling, "
    "'background_answer', {t}.background_answer_ceiling)"
)

_BUNDLE = bundle_sql("ARRAY[CAST(:actor_id AS uuid)]", "ARRAY[t.channel_id]")

_LOCK = text(
    f"""
    SELECT {_RUN_COLUMNS.format(bundle=_BUNDLE)},
           (SELECT {_LEVELS.format(t="p")} FROM provider_policies p
            WHERE p.provider_id = CAST(:provider_id AS text)) AS provider_policy,
           (SELECT {_LEVELS.format(t="tp")} FROM task_policies tp
            WHERE tp.task_key = r.task_key) AS task_policy
    FROM (SELECT set_config('lock_timeout', :lock_timeout, true) AS lock_timeout) AS guard
    JOIN runs r ON r.id = CAST(:run_id AS uuid)
    JOIN threads t ON t.id = r.thread_id
    FOR UPDATE OF r
    """
)

_SNAPSHOT = text(
    f"""
    SELECT {_RUN_COLUMNS.format(bundle=_BUNDLE)},
           r.attempted_provider_ids AS attempted_provider_ids
    FROM runs r JOIN threads t ON t.id = r.thread_id
    WHERE r.id = CAST(:run_id AS uuid)
    """
)

_ATTEMPT = text(
    """
    SELECT provider_id, kind FROM run_provider_attempts
    WHERE run_id = CAST(:run_id AS uuid) AND attempt_id = :attempt_id
    """
)

# The attempt's position is the length of the array after appending, in one statement;
# a run that holds MAX_ATTEMPTS already appends nothing (and so returns no row).
_APPEND_ATTEMPT = text(
    """
    WITH appended AS (
      UPDATE runs SET attempted_provider_ids = array_append(attempted_provider_ids, :provider_id)
      WHERE id = CAST(:run_id AS uuid)
        AND cardinality(attempted_provider_ids) < :max_attempts
      RETURNING id, cardinality(attempted_provider_ids) AS position
    )
    INSERT INTO run_provider_attempts (run_id, attempt_id, position, provider_id, kind)
    SELECT id, :attempt_id, position, :provider_id, :kind FROM appended
    RETURNING position
    """
)

_STEPS = text(
    "SELECT id::text AS id, payload FROM run_steps WHERE run_id = CAST(:run_id AS uuid) "
    "ORDER BY seq"
)

_REWRITE_STEP = text(
    "UPDATE run_steps SET payload = :payload WHERE id = CAST(:id AS uuid)"
).bindparams(bindparam("payload", type_=JSONB))

_INSERT_STEP = text(
    """
    INSERT INTO run_steps (run_id, seq, payload)
    SELECT CAST(:run_id AS uuid), COALESCE(max(seq), 0) + 1, :payload
    FROM run_steps WHERE run_id = CAST(:run_id AS uuid)
    RETURNING seq
    """
).bindparams(bindparam("payload", type_=JSONB))

# A scrub: new ceilings, the answer dropped when the policy no longer keeps it, and a
# new envelope version so that a rotation prepared before the scrub cannot land.
_APPLY_CEILINGS = text(
    """
    UPDATE runs SET
      audit_content_ceiling = :audit_level,
      audit_content_ceiling_explicit = :audit_explicit,
      background_answer_ceiling = :answer_level,
      background_answer_ceiling_explicit = :answer_explicit,
      background_answer = CASE WHEN :keep_answer THEN background_answer ELSE NULL END,
      envelope_version = envelope_version + 1
    WHERE id = CAST(:run_id AS uuid)
    """
)

_SET_ANSWER = text("UPDATE runs SET background_answer = :answer WHERE id = CAST(:run_id AS uuid)")

_ROTATE = text(
    """
    UPDATE runs SET sealed_envelope = :sealed, envelope_version = envelope_version + 1
    WHERE id = CAST(:run_id AS uuid) AND envelope_version = :expected
    RETURNING envelope_version
    """
)


def _ceilings(row: RowMapping) -> dict[str, Ceiling]:
    ceilings: dict[str, Ceiling] = {}
    for kind in CEILING_KINDS:
        level = row[f"{kind}_ceiling"]
        if level is not None:
            ceilings[kind] = Ceiling(level=level, explicit=row[f"{kind}_ceiling_explicit"])
    return ceilings


def _run_state(row: RowMapping) -> dict[str, Any]:
    """The fields a locked run and a snapshot both compute from their row."""
    return {
        "ceilings": _ceilings(row),
        "envelope_version": int(row["envelope_version"]),
        "facts": as_bundle(row["facts"]),
    }


def _levels(value: Any) -> dict[str, str] | None:
    """A policy row's explicit levels; NULL columns (inherited or unset) are left out."""
    if value is None:
        return None
    return {kind: level for kind, level in dict(value).items() if level is not None}


class RunPrivacyRepository:
    """Locks a run row and reads and writes its privacy state."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def _check(self, locked: LockedRun) -> None:
        transaction = self._conn.get_transaction()
        if (
            locked.connection is not self._conn
            or transaction is not locked.transaction
            or not transaction.is_active
        ):
            raise StaleRunLock("the run lock belongs to another transaction")

    def lock(
        self, run_id: str, *, actor_id: str, provider_id: str | None, lock_timeout_ms: int
    ) -> LockedRun | None:
        """Lock the run row and read its facts; ``None`` for an unknown run.

        ``lock_timeout`` is set in the same statement (the lock waits at most that
        long), local to the transaction.

        Raises:
            sqlalchemy.exc.OperationalError: ``lock_timeout`` expired (see
                :func:`is_lock_timeout`) or the database cannot answer.
            sqlalchemy.exc.ProgrammingError: a privacy column or table is missing (see
                :func:`is_missing_schema`).
        """
        row = (
            self._conn.execute(
                _LOCK,
                {
                    "run_id": run_id,
                    "actor_id": actor_id,
                    "provider_id": provider_id,
                    "lock_timeout": str(lock_timeout_ms),
                },
            )
            .mappings()
            .first()
        )
        if row is None:
            return None
        transaction = self._conn.get_transaction()
        if transaction is None:
            raise StaleRunLock("a run lock outside a transaction")
        return from_row(
            LockedRun,
            row,
            provider_policy=_levels(row["provider_policy"]),
            task_policy=_levels(row["task_policy"]),
            connection=self._conn,
            transaction=transaction,
            **_run_state(row),
        )

    def snapshot(self, run_id: str, *, actor_id: str) -> PrivacySnapshot | None:
        """The run's privacy state and the actor's facts, without a lock.

        Raises:
            sqlalchemy.exc.ProgrammingError: a privacy column is missing.
        """
        row = (
            self._conn.execute(_SNAPSHOT, {"run_id": run_id, "actor_id": actor_id})
            .mappings()
            .first()
        )
        if row is None:
            return None
        return from_row(
            PrivacySnapshot,
            row,
            attempted_provider_ids=tuple(row["attempted_provider_ids"]),
            **_run_state(row),
        )

    def attempt(self, locked: LockedRun, attempt_id: str) -> AttemptRecord | None:
        """The attempt recorded under ``attempt_id`` for this run, if any."""
        self._check(locked)
        row = (
            self._conn.execute(_ATTEMPT, {"run_id": locked.run_id, "attempt_id": attempt_id})
            .mappings()
            .first()
        )
        if row is None:
            return None
        return AttemptRecord(provider_id=row["provider_id"], kind=row["kind"])

    def append_attempt(
        self, locked: LockedRun, *, attempt_id: str, provider_id: str, kind: str
    ) -> int | None:
        """Append the provider to the run's attempted ids and record the attempt id.

        Returns the attempt's position (1-based), or ``None`` when the run already
        holds :data:`MAX_ATTEMPTS` attempts (nothing is written).
        """
        self._check(locked)
        position = self._conn.execute(
            _APPEND_ATTEMPT,
            {
                "run_id": locked.run_id,
                "attempt_id": attempt_id,
                "provider_id": provider_id,
                "kind": kind,
                "max_attempts": MAX_ATTEMPTS,
            },
        ).scalar_one_or_none()
        return None if position is None else int(position)

    def steps(self, locked: LockedRun) -> list[StepRow]:
        """Every step payload of the run, in order."""
        self._check(locked)
        rows = self._conn.execute(_STEPS, {"run_id": locked.run_id}).mappings()
        return [StepRow(id=row["id"], payload=row["payload"]) for row in rows]

    def rewrite_steps(self, locked: LockedRun, steps: Iterable[StepRow]) -> None:
        """Store refiltered payloads of existing steps (one statement for all)."""
        self._check(locked)
        params = [{"id": step.id, "payload": step.payload} for step in steps]
        if params:
            self._conn.execute(_REWRITE_STEP, params)

    def apply_ceilings(
        self,
        locked: LockedRun,
        ceilings: Ceilings,
        *,
        keep_answer: bool,
    ) -> None:
        """Store new ceilings, drop the answer unless kept, bump the envelope version."""
        self._check(locked)
        audit, answer = ceilings["audit_content"], ceilings["background_answer"]
        self._conn.execute(
            _APPLY_CEILINGS,
            {
                "run_id": locked.run_id,
                "audit_level": audit.level,
                "audit_explicit": audit.explicit,
                "answer_level": answer.level,
                "answer_explicit": answer.explicit,
                "keep_answer": keep_answer,
            },
        )

    def insert_step(self, locked: LockedRun, payload: Mapping[str, Any]) -> int:
        """Append a step with an already filtered payload; returns its ``seq``."""
        self._check(locked)
        seq = self._conn.execute(
            _INSERT_STEP, {"run_id": locked.run_id, "payload": dict(payload)}
        ).scalar_one()
        return int(seq)

    def set_answer(self, locked: LockedRun, answer: str) -> None:
        """Store the background answer (the caller checked that the policy keeps it)."""
        self._check(locked)
        self._conn.execute(_SET_ANSWER, {"run_id": locked.run_id, "answer": answer})

    def rotate_envelope(self, locked: LockedRun, *, expected: int, sealed: str) -> int | None:
        """Replace the sealed envelope if its version is still ``expected``.

        Returns the new version, or ``None`` when the version moved on (a scrub or a
        state change): compare and swap, so the newer state is never overwritten.
        """
        self._check(locked)
        version = self._conn.execute(
            _ROTATE, {"run_id": locked.run_id, "expected": expected, "sealed": sealed}
        ).scalar()
        return None if version is None else int(version)
