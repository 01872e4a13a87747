"""Provider privacy ceilings enforced per attempt under a run-row lock (seed 004).

:class:`RetentionGuard` is the one place where a run's audit copies are written: it
opens a fresh transaction (never inside an outer one), locks the run row ``FOR
UPDATE`` in its first statement, authorizes the action as the run's own agent on an
active run, asks the policies for the run's ceilings, refilters earlier step payloads
and the stored answer when the ceilings changed, and lets the operation write under
the same lock before it commits. Any failure in locking, filtering or persistence
rolls the whole transaction back, so a refusal changes nothing.

The operations (each a use case of its own, taking the guard as a collaborator that
may be missing, in which case a run-carrying call refuses):

* :class:`RecordProviderAttempt` (``provider.attempt``), before every chat or tool
  attempt: unknown provider 403 ``unknown_provider``; unreadable policy, lock timeout
  or missing schema 503; otherwise the provider id is appended (once per
  ``attempt_id``), the ceilings tighten, and only after the commit the caller gets
  "go" with the run's ceilings.
* :class:`AppendRunStep` and :class:`PutRunAnswer` (``run.content.write``): reread the
  ceilings under the lock and store only what they keep.
* :class:`RotateRunEnvelope` (``run.content.write``): compare and swap on the envelope
  version that every scrub and state change bumps.
* :class:`ReadRunPrivacy` (``run.privacy.read``): the stored ceilings and attempted
  provider ids, without a lock and without reconciling.

Python decides nothing about levels: which ceiling results, and what it keeps of a
payload and of an answer, comes from ``data.privacy``; the domain code only applies
the parts the policy named (``app/domain/privacy.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, Self

from sqlalchemy.exc import DBAPIError

from app.domain.privacy import (
    CEILING_KINDS,
    CEILING_LEVELS,
    MAX_ATTEMPTS,
    is_attempt_id,
    is_provider_id,
    parse_if_match,
    retain,
)
from app.errors import (
    Conflict,
    InternalError,
    NotFound,
    ServiceUnavailable,
    ValidationFailed,
)
from app.policy import PolicyGateway, resources
from app.policy.inputs import (
    CeilingFacts,
    PrivacyAttemptInput,
    PrivacyRunFacts,
    PrivacyWriteInput,
    ProviderFacts,
    RunResource,
    TaskFacts,
)
from app.policy.results import AttemptRefused, CeilingsGo, PolicyUnreadable, RunCeilings
from app.usecases.authorization import Authorizer
from app.usecases.ports import UnitFactory
from repositories.principals import Actor
from repositories.run_privacy import (
    LockedRun,
    PrivacySnapshot,
    RunPrivacyRepository,
    StepRow,
    StoredCeiling,
    is_lock_timeout,
    is_missing_schema,
)
from repositories.unit_of_work import OuterTransaction

__all__ = [
    "AppendRunStep",
    "GuardUnit",
    "Guarded",
    "PutRunAnswer",
    "ReadRunPrivacy",
    "RecordProviderAttempt",
    "RetentionGuard",
    "RotateRunEnvelope",
    "ceilings_view",
]

log = logging.getLogger("app.privacy")


class GuardUnit(Protocol):
    """The unit the guard runs in (``repositories.unit_of_work.GuardedUnitOfWork``)."""

    @property
    def run_privacy(self) -> RunPrivacyRepository:
        """The run privacy repository on the unit's connection."""

    def begin(self) -> None:
        """Begin the transaction; raise ``OuterTransaction`` if one is open already."""

    def commit(self) -> None:
        """Commit the transaction."""

    def __enter__(self) -> Self:
        """Take the connection (without beginning)."""

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Roll back what the unit began, release the connection."""


@dataclass(frozen=True, slots=True)
class Guarded:
    """Inside the guard: the locked run and the unit to write and commit through."""

    run: LockedRun
    unit: GuardUnit

    @property
    def repo(self) -> RunPrivacyRepository:
        """The run privacy repository of the guarded transaction."""
        return self.unit.run_privacy


def _refuse(reason: str, run_id: str, detail: str) -> ServiceUnavailable:
    log.error("privacy guard refused", extra={"reason": reason, "run_id": run_id})
    return ServiceUnavailable(detail)


@contextmanager
def _refusing(run_id: str, *, lock_timeout: bool = False) -> Iterator[None]:
    """Refuse (503) a missing privacy schema and, if asked, an expired ``lock_timeout``."""
    try:
        yield
    except DBAPIError as exc:
        if is_missing_schema(exc):
            raise _refuse(
                "schema_missing", run_id, "The privacy schema is not installed."
            ) from None
        if lock_timeout and is_lock_timeout(exc):
            raise _refuse("lock_timeout", run_id, "The run is locked by another request.") from None
        raise


def ceilings_view(ceilings: Mapping[str, StoredCeiling]) -> dict[str, CeilingFacts]:
    """The ``RunCeilings`` schema of a run's ceilings."""
    return {kind: {"level": c.level, "explicit": c.explicit} for kind, c in ceilings.items()}


def _run_facts(run: LockedRun) -> PrivacyRunFacts:
    facts: PrivacyRunFacts = {}
    if run.ceilings:
        facts["ceilings"] = ceilings_view(run.ceilings)
    return facts


def _task_facts(run: LockedRun) -> TaskFacts | None:
    if run.task_key is None:
        return None
    task: TaskFacts = {"key": run.task_key}
    if run.task_policy is not None:
        task["policy"] = dict(run.task_policy)
    return task


def write_input(run: LockedRun) -> PrivacyWriteInput:
    """The input of ``data.privacy.write``: ids and level names, never content."""
    request: PrivacyWriteInput = {"run": _run_facts(run)}
    task = _task_facts(run)
    if task is not None:
        request["task"] = task
    return request


def attempt_input(run: LockedRun, provider_id: str) -> PrivacyAttemptInput:
    """The input of ``data.privacy.attempt``: ids and level names, never content."""
    provider: ProviderFacts = {"id": provider_id}
    if run.provider_policy is not None:
        provider["policy"] = dict(run.provider_policy)
    return {**write_input(run), "provider": provider}


def _stored(ceilings: RunCeilings) -> dict[str, StoredCeiling]:
    return {
        "audit_content": StoredCeiling(
            ceilings.audit_content.level.value, ceilings.audit_content.explicit
        ),
        "background_answer": StoredCeiling(
            ceilings.background_answer.level.value, ceilings.background_answer.explicit
        ),
    }


def _run_resource(run: LockedRun | PrivacySnapshot) -> RunResource:
    return resources.run(
        run.run_id, agent_id=run.agent_id, channel_id=run.channel_id, state=run.state
    )


def _retain(payload: Mapping[str, Any], verdict: CeilingsGo) -> dict[str, Any]:
    """``payload`` with only what the verdict's ceilings keep, marked with its level."""
    return retain(
        payload,
        {part.value for part in verdict.retention.step_parts},
        verdict.ceilings.audit_content.level.value,
    )


class RetentionGuard:
    """Lock, authorize, evaluate, refilter and persist in one transaction of its own.

    Args:
        units: opens a :class:`GuardUnit` on the write engine.
        authorizer: decides the run actions and audits denials.
        policy: asks ``data.privacy``.
        lock_timeout_ms: ``privacy.lock_timeout_ms``.
    """

    def __init__(
        self,
        *,
        units: Callable[[], GuardUnit],
        authorizer: Authorizer,
        policy: PolicyGateway,
        lock_timeout_ms: int,
    ) -> None:
        self._units = units
        self.authorizer = authorizer
        self.policy = policy
        self._lock_timeout_ms = lock_timeout_ms

    @contextmanager
    def locked(
        self, actor: Actor, action: str, run_id: str, *, provider_id: str | None = None
    ) -> Iterator[Guarded]:
        """Open a fresh transaction, lock the run row, authorize ``action``.

        The body writes through :attr:`Guarded.repo` and commits through
        :attr:`Guarded.unit`; leaving without a commit rolls everything back.

        Raises:
            NotFound: unknown run, or not the run's own agent on an active run.
            InternalError: the unit's connection was already in a transaction.
            ServiceUnavailable: the lock timed out or the privacy schema is missing.
        """
        with _refusing(run_id, lock_timeout=True), self._units() as unit:
            try:
                unit.begin()
            except OuterTransaction:
                log.error(
                    "privacy guard refused",
                    extra={"reason": "outer_transaction", "run_id": run_id},
                )
                raise InternalError() from None
            run = unit.run_privacy.lock(
                run_id,
                actor_id=actor.id,
                provider_id=provider_id,
                lock_timeout_ms=self._lock_timeout_ms,
            )
            if run is None:
                raise NotFound()
            self.authorizer.require(actor, action, _run_resource(run), run.facts)
            yield Guarded(run=run, unit=unit)

    def apply(self, guarded: Guarded, verdict: CeilingsGo | PolicyUnreadable) -> CeilingsGo:
        """Persist changed ceilings and refilter earlier content, in the guarded transaction.

        Raises:
            ServiceUnavailable: the policy is unreadable, or a stored step payload is
                not an object the retention rules can apply to (nothing is changed).
        """
        run = guarded.run
        if isinstance(verdict, PolicyUnreadable):
            raise _refuse("policy_unreadable", run.run_id, "The privacy policy cannot be read.")
        if not verdict.changed:
            return verdict
        rewritten: list[StepRow] = []
        for step in guarded.repo.steps(run):
            if not isinstance(step.payload, dict):
                raise _refuse(
                    "content_unreadable", run.run_id, "A stored run step cannot be filtered."
                )
            filtered = _retain(step.payload, verdict)
            if filtered != step.payload:
                rewritten.append(StepRow(id=step.id, payload=filtered))
        guarded.repo.rewrite_steps(run, rewritten)
        guarded.repo.apply_ceilings(
            run, _stored(verdict.ceilings), keep_answer=verdict.retention.answer
        )
        log.info(
            "privacy ceilings changed",
            extra={"run_id": run.run_id, "dropped": len(rewritten)},
        )
        return verdict


def _required(guard: RetentionGuard | None, run_id: str) -> RetentionGuard:
    """The guard, or a refusal: a run-carrying call never runs without it."""
    if guard is None:
        log.error("privacy guard refused", extra={"reason": "guard_missing", "run_id": run_id})
        raise InternalError()
    return guard


def _invalid(path: str, message: str) -> ValidationFailed:
    return ValidationFailed(
        "The request does not match the identifier rules.", [{"path": path, "message": message}]
    )


class _GuardedUseCase:
    """A use case that writes through the retention guard.

    Args:
        guard: the retention guard; ``None`` refuses every call (500).
    """

    def __init__(self, *, guard: RetentionGuard | None) -> None:
        self._guard = guard

    @property
    def guard(self) -> RetentionGuard | None:
        """The retention guard this use case writes through (``None``: every call refused)."""
        return self._guard


class RecordProviderAttempt(_GuardedUseCase):
    """``recordProviderAttempt``: the boundary every chat or tool attempt passes first."""

    def __call__(
        self, actor: Actor, action: str, run_id: str, body: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Record the attempt and answer "go" with the run's ceilings after the commit.

        Raises:
            ValidationFailed: a malformed provider or attempt id.
            NotFound: unknown run, ended run, or not the run's agent.
            Conflict: ``attempt_id`` was recorded for another provider or kind, or the
                run holds :data:`~app.domain.privacy.MAX_ATTEMPTS` attempts already.
            Forbidden: unknown provider (``unknown_provider``).
            ServiceUnavailable: unreadable policy or content, lock timeout, missing
                schema.
            InternalError: no guard, or an outer transaction.
        """
        guard = _required(self._guard, run_id)
        attempt_id, provider_id, kind = body["attempt_id"], body["provider_id"], body["kind"]
        if not is_provider_id(provider_id):
            raise _invalid("body/provider_id", "not a provider id")
        if not is_attempt_id(attempt_id):
            raise _invalid("body/attempt_id", "not an attempt id")
        with guard.locked(actor, action, run_id, provider_id=provider_id) as guarded:
            run = guarded.run
            previous = guarded.repo.attempt(run, attempt_id)
            if previous is not None and (previous.provider_id, previous.kind) != (
                provider_id,
                kind,
            ):
                raise Conflict("attempt_id was recorded for another provider or kind.")
            verdict = guard.policy.privacy_attempt(attempt_input(run, provider_id))
            if isinstance(verdict, AttemptRefused):
                guard.authorizer.refuse(actor, action, _run_resource(run), verdict.decision)
            applied = guard.apply(guarded, verdict)
            if previous is None:
                position = guarded.repo.append_attempt(
                    run, attempt_id=attempt_id, provider_id=provider_id, kind=kind
                )
                if position is None:
                    raise Conflict(f"The run has recorded the most attempts ({MAX_ATTEMPTS}).")
            guarded.unit.commit()
        return {"outcome": "go", "ceilings": ceilings_view(_stored(applied.ceilings))}


class AppendRunStep(_GuardedUseCase):
    """``appendRunStep``: store a step payload filtered by the run's current ceilings."""

    def __call__(
        self, actor: Actor, action: str, run_id: str, step: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Append the step; what the ceiling does not keep is never stored.

        Raises:
            NotFound, ServiceUnavailable, InternalError: as :class:`RecordProviderAttempt`.
        """
        guard = _required(self._guard, run_id)
        with guard.locked(actor, action, run_id) as guarded:
            applied = guard.apply(guarded, guard.policy.privacy_write(write_input(guarded.run)))
            payload = _retain(step, applied)
            seq = guarded.repo.insert_step(guarded.run, payload)
            guarded.unit.commit()
        return {
            "seq": seq,
            "kept": sorted(key for key in step if key in payload),
            "ceilings": ceilings_view(_stored(applied.ceilings)),
        }


class PutRunAnswer(_GuardedUseCase):
    """``putRunAnswer``: store the background answer if the run's ceiling keeps it."""

    def __call__(self, actor: Actor, action: str, run_id: str, answer: str) -> dict[str, Any]:
        """Store the answer, or store nothing and say so (``stored: false``).

        Raises:
            NotFound, ServiceUnavailable, InternalError: as :class:`RecordProviderAttempt`.
        """
        guard = _required(self._guard, run_id)
        with guard.locked(actor, action, run_id) as guarded:
            applied = guard.apply(guarded, guard.policy.privacy_write(write_input(guarded.run)))
            stored = applied.retention.answer
            if stored:
                guarded.repo.set_answer(guarded.run, answer)
            guarded.unit.commit()
        return {"stored": stored, "ceilings": ceilings_view(_stored(applied.ceilings))}


class RotateRunEnvelope(_GuardedUseCase):
    """``rotateRunEnvelope``: replace the sealed envelope if nothing changed since it was read."""

    def __call__(self, actor: Actor, action: str, run_id: str, if_match: str, sealed: str) -> int:
        """The new envelope version.

        Raises:
            ValidationFailed: ``If-Match`` is not one strong ETag of digits.
            Conflict: the envelope version moved on (a scrub or a state change): the
                newer state stays and the old key stays valid.
            NotFound, ServiceUnavailable, InternalError: as :class:`RecordProviderAttempt`.
        """
        guard = _required(self._guard, run_id)
        expected = parse_if_match(if_match)
        if expected is None:
            raise _invalid("header/If-Match", "not a strong ETag of an envelope version")
        with guard.locked(actor, action, run_id) as guarded:
            if guarded.run.envelope_version != expected:
                raise Conflict("The envelope changed since it was read.")
            version = guarded.repo.rotate_envelope(guarded.run, expected=expected, sealed=sealed)
            if version is None:
                raise Conflict("The envelope changed since it was read.")
            guarded.unit.commit()
        return version


def _check_readable(snapshot: PrivacySnapshot) -> None:
    """Refuse (503) a stored state the contract cannot express.

    Only the shapes are checked, against the level names and the id pattern; what a
    level means is the policies' (``policies/privacy``). A run written outside the
    service could hold anything, and an unknown level must not leave as a value
    outside the contract's enum when the guarded calls on the same run refuse it.
    """
    levels_ok = all(
        ceiling.level in CEILING_LEVELS and isinstance(ceiling.explicit, bool)
        for ceiling in snapshot.ceilings.values()
    )
    ids = snapshot.attempted_provider_ids
    ids_ok = len(ids) <= MAX_ATTEMPTS and all(is_provider_id(item) for item in ids)
    if not (levels_ok and ids_ok):
        raise _refuse(
            "state_unreadable", snapshot.run_id, "The run's privacy state cannot be read."
        )


@dataclass(frozen=True, slots=True)
class PrivacyView:
    """``getRunPrivacy``: the body and the envelope version for the ETag."""

    body: dict[str, Any]
    envelope_version: int


class ReadRunPrivacy:
    """``getRunPrivacy``: the run's ceilings and attempted provider ids, nothing else.

    Args:
        reader: opens a read-only unit (no lock; a read never reconciles).
        authorizer: decides ``run.privacy.read`` and audits denials.
    """

    def __init__(self, *, reader: UnitFactory, authorizer: Authorizer) -> None:
        self._reader = reader
        self._authorizer = authorizer

    def __call__(self, actor: Actor, action: str, run_id: str) -> PrivacyView:
        """The stored privacy state; ``ceilings`` is omitted until the run is reconciled.

        Raises:
            NotFound: unknown run, ended run, or not the run's agent.
            ServiceUnavailable: the privacy schema is missing, or the stored state is
                unreadable (a level not on the scale, an id that is not a provider
                id, more attempts than a run records): the read fails closed, as
                attempts and writes on that run do.
        """
        with self._reader() as uow:
            with _refusing(run_id):
                snapshot = uow.run_privacy.snapshot(run_id, actor_id=actor.id)
            if snapshot is None:
                raise NotFound()
            self._authorizer.require(actor, action, _run_resource(snapshot), snapshot.facts)
        _check_readable(snapshot)
        body: dict[str, Any] = {"attempted_provider_ids": list(snapshot.attempted_provider_ids)}
        if set(snapshot.ceilings) == set(CEILING_KINDS):
            body["ceilings"] = ceilings_view(snapshot.ceilings)
        return PrivacyView(body=body, envelope_version=snapshot.envelope_version)
