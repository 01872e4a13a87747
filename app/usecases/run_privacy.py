"""The run privacy operations: provider attempts, run content, the privacy read.

Each is a use case of its own. The writing ones go through the retention guard
(:mod:`app.usecases.retention_guard`), a collaborator that may be missing, in which
case a run-carrying call refuses:

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
payload and of an answer, comes from ``data.privacy``. The operations answer with
domain values; the handlers (``app/handlers/run_privacy.py``) write the bodies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.domain.privacy import (
    CEILING_KINDS,
    CEILING_LEVELS,
    MAX_ATTEMPTS,
    Ceilings,
    is_attempt_id,
    is_provider_id,
    parse_if_match,
)
from app.errors import Conflict, NotFound, ValidationFailed
from app.policy.inputs import (
    PrivacyAttemptInput,
    PrivacyWriteInput,
    privacy_attempt_input,
    privacy_write_input,
)
from app.policy.privacy_results import AttemptRefused
from app.usecases.base import Reads
from app.usecases.retention_guard import (
    RetentionGuard,
    refuse,
    refusing,
    required,
    retained,
    run_resource,
)
from repositories.principals import Actor
from repositories.run_privacy import LockedRun, PrivacySnapshot

__all__ = [
    "AnswerPut",
    "AppendRunStep",
    "PrivacyState",
    "PutRunAnswer",
    "ReadRunPrivacy",
    "RecordProviderAttempt",
    "RotateRunEnvelope",
    "StepAppended",
]


@dataclass(frozen=True, slots=True)
class StepAppended:
    """``appendRunStep``: the step's ``seq``, the parts kept (ascending), the ceilings."""

    seq: int
    kept: list[str]
    ceilings: Ceilings


@dataclass(frozen=True, slots=True)
class AnswerPut:
    """``putRunAnswer``: whether the answer was stored, and the run's ceilings."""

    stored: bool
    ceilings: Ceilings


@dataclass(frozen=True, slots=True)
class PrivacyState:
    """``getRunPrivacy``: the stored state and the envelope version for the ETag.

    ``ceilings`` is ``None`` until the run is reconciled (both kinds stored).
    """

    ceilings: Ceilings | None
    attempted_provider_ids: tuple[str, ...]
    envelope_version: int


def _write_input(run: LockedRun) -> PrivacyWriteInput:
    return privacy_write_input(run.ceilings, task_key=run.task_key, task_policy=run.task_policy)


def _attempt_input(run: LockedRun, provider_id: str) -> PrivacyAttemptInput:
    return privacy_attempt_input(
        run.ceilings,
        task_key=run.task_key,
        task_policy=run.task_policy,
        provider_id=provider_id,
        provider_policy=run.provider_policy,
    )


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

    def __call__(self, actor: Actor, action: str, run_id: str, body: Mapping[str, Any]) -> Ceilings:
        """Record the attempt; the run's ceilings (the "go") once it is committed.

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
        guard = required(self._guard, run_id)
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
            verdict = guard.policy.privacy_attempt(_attempt_input(run, provider_id))
            if isinstance(verdict, AttemptRefused):
                guard.authorizer.refuse(actor, action, run_resource(run), verdict.decision)
            applied = guard.apply(guarded, verdict)
            if previous is None:
                position = guarded.repo.append_attempt(
                    run, attempt_id=attempt_id, provider_id=provider_id, kind=kind
                )
                if position is None:
                    raise Conflict(f"The run has recorded the most attempts ({MAX_ATTEMPTS}).")
            guarded.unit.commit()
        return applied.ceilings


class AppendRunStep(_GuardedUseCase):
    """``appendRunStep``: store a step payload filtered by the run's current ceilings."""

    def __call__(
        self, actor: Actor, action: str, run_id: str, step: Mapping[str, Any]
    ) -> StepAppended:
        """Append the step; what the ceiling does not keep is never stored.

        Raises:
            NotFound, ServiceUnavailable, InternalError: as :class:`RecordProviderAttempt`.
        """
        guard = required(self._guard, run_id)
        with guard.locked(actor, action, run_id) as guarded:
            applied = guard.apply(guarded, guard.policy.privacy_write(_write_input(guarded.run)))
            payload = retained(step, applied)
            seq = guarded.repo.insert_step(guarded.run, payload)
            guarded.unit.commit()
        kept = sorted(key for key in step if key in payload)
        return StepAppended(seq=seq, kept=kept, ceilings=applied.ceilings)


class PutRunAnswer(_GuardedUseCase):
    """``putRunAnswer``: store the background answer if the run's ceiling keeps it."""

    def __call__(self, actor: Actor, action: str, run_id: str, answer: str) -> AnswerPut:
        """Store the answer, or store nothing and say so (``stored: false``).

        Raises:
            NotFound, ServiceUnavailable, InternalError: as :class:`RecordProviderAttempt`.
        """
        guard = required(self._guard, run_id)
        with guard.locked(actor, action, run_id) as guarded:
            applied = guard.apply(guarded, guard.policy.privacy_write(_write_input(guarded.run)))
            stored = applied.retention.answer
            if stored:
                guarded.repo.set_answer(guarded.run, answer)
            guarded.unit.commit()
        return AnswerPut(stored=stored, ceilings=applied.ceilings)


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
        guard = required(self._guard, run_id)
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
        raise refuse("state_unreadable", snapshot.run_id, "The run's privacy state cannot be read.")


class ReadRunPrivacy(Reads):
    """``getRunPrivacy``: the run's ceilings and attempted provider ids, nothing else.

    A read takes no lock and never reconciles the ceilings.
    """

    def __call__(self, actor: Actor, action: str, run_id: str) -> PrivacyState:
        """The stored privacy state; ``ceilings`` is ``None`` until the run is reconciled.

        Raises:
            NotFound: unknown run, ended run, or not the run's agent.
            ServiceUnavailable: the privacy schema is missing, or the stored state is
                unreadable (a level not on the scale, an id that is not a provider
                id, more attempts than a run records): the read fails closed, as
                attempts and writes on that run do.
        """
        with self.reader() as uow:
            with refusing(run_id):
                snapshot = uow.run_privacy.snapshot(run_id, actor_id=actor.id)
            if snapshot is None:
                raise NotFound()
            self.authorizer.require(actor, action, run_resource(snapshot), snapshot.facts)
        _check_readable(snapshot)
        reconciled = set(snapshot.ceilings) == set(CEILING_KINDS)
        return PrivacyState(
            ceilings=snapshot.ceilings if reconciled else None,
            attempted_provider_ids=snapshot.attempted_provider_ids,
            envelope_version=snapshot.envelope_version,
        )
