"""The retention guard: a run's audit copies are written only under its run-row lock.

:class:`RetentionGuard` opens a fresh transaction (never inside an outer one), locks
the run row ``FOR UPDATE`` in its first statement, authorizes the action as the run's
own agent on an active run, and, given the policies' verdict on the run's ceilings,
refilters earlier step payloads and the stored answer when the ceilings changed. The
operation (:mod:`app.usecases.run_privacy`) then writes under the same lock and
commits; any failure rolls the whole transaction back, so a refusal changes nothing.
See ``docs/adr/0013-privacy-guard-under-run-row-lock.md``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import DBAPIError

from app.domain.privacy import retain
from app.errors import InternalError, NotFound, ServiceUnavailable
from app.policy import PolicyGateway, resources
from app.policy.inputs import RunResource
from app.policy.privacy_results import CeilingsGo, PolicyUnreadable
from app.usecases.authorization import Authorizer
from repositories.principals import Actor
from repositories.run_privacy import (
    LockedRun,
    PrivacySnapshot,
    RunPrivacyRepository,
    StepRow,
    is_lock_timeout,
    is_missing_schema,
)
from repositories.unit_of_work import GuardedUnitOfWork, OuterTransaction

__all__ = [
    "Guarded",
    "RetentionGuard",
    "refuse",
    "refusing",
    "required",
    "retained",
    "run_resource",
]

log = logging.getLogger("app.privacy")


@dataclass(frozen=True, slots=True)
class Guarded:
    """Inside the guard: the locked run, the unit to commit through and its repository.

    ``repo`` is ``unit.run_privacy``, the repository every guarded write goes through.
    """

    run: LockedRun
    unit: GuardedUnitOfWork
    repo: RunPrivacyRepository


def refuse(reason: str, run_id: str, detail: str) -> ServiceUnavailable:
    """The 503 of a privacy refusal, logged with its reason (ids and codes only)."""
    log.error("privacy guard refused", extra={"reason": reason, "run_id": run_id})
    return ServiceUnavailable(detail)


@contextmanager
def refusing(run_id: str, *, lock_timeout: bool = False) -> Iterator[None]:
    """Refuse (503) a missing privacy schema and, if asked, an expired ``lock_timeout``."""
    try:
        yield
    except DBAPIError as exc:
        if is_missing_schema(exc):
            raise refuse("schema_missing", run_id, "The privacy schema is not installed.") from None
        if lock_timeout and is_lock_timeout(exc):
            raise refuse("lock_timeout", run_id, "The run is locked by another request.") from None
        raise


def run_resource(run: LockedRun | PrivacySnapshot) -> RunResource:
    """The run as the resource of the run actions."""
    return resources.run(
        run.run_id, agent_id=run.agent_id, channel_id=run.channel_id, state=run.state
    )


def retained(payload: Mapping[str, Any], verdict: CeilingsGo) -> dict[str, Any]:
    """``payload`` with only what the verdict's ceilings keep, marked with its level."""
    return retain(
        payload,
        {part.value for part in verdict.retention.step_parts},
        verdict.ceilings["audit_content"].level,
    )


class RetentionGuard:
    """Lock, authorize, evaluate, refilter and persist in one transaction of its own.

    Args:
        units: opens a :class:`~repositories.unit_of_work.GuardedUnitOfWork` on the
            write engine.
        authorizer: decides the run actions and audits denials.
        policy: asks ``data.privacy``.
        lock_timeout_ms: ``privacy.lock_timeout_ms``.
    """

    def __init__(
        self,
        *,
        units: Callable[[], GuardedUnitOfWork],
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
        with refusing(run_id, lock_timeout=True), self._units() as unit:
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
            self.authorizer.require(actor, action, run_resource(run), run.facts)
            yield Guarded(run=run, unit=unit, repo=unit.run_privacy)

    def apply(self, guarded: Guarded, verdict: CeilingsGo | PolicyUnreadable) -> CeilingsGo:
        """Persist changed ceilings and refilter earlier content, in the guarded transaction.

        Raises:
            ServiceUnavailable: the policy is unreadable, or a stored step payload is
                not an object the retention rules can apply to (nothing is changed).
        """
        run = guarded.run
        if isinstance(verdict, PolicyUnreadable):
            raise refuse("policy_unreadable", run.run_id, "The privacy policy cannot be read.")
        if not verdict.changed:
            return verdict
        rewritten: list[StepRow] = []
        for step in guarded.repo.steps(run):
            if not isinstance(step.payload, dict):
                raise refuse(
                    "content_unreadable", run.run_id, "A stored run step cannot be filtered."
                )
            filtered = retained(step.payload, verdict)
            if filtered != step.payload:
                rewritten.append(StepRow(id=step.id, payload=filtered))
        guarded.repo.rewrite_steps(run, rewritten)
        guarded.repo.apply_ceilings(run, verdict.ceilings, keep_answer=verdict.retention.answer)
        log.info(
            "privacy ceilings changed",
            extra={"run_id": run.run_id, "dropped": len(rewritten)},
        )
        return verdict


def required(guard: RetentionGuard | None, run_id: str) -> RetentionGuard:
    """The guard, or a refusal: a run-carrying call never runs without it.

    Raises:
        InternalError: no guard was wired.
    """
    if guard is None:
        log.error("privacy guard refused", extra={"reason": "guard_missing", "run_id": run_id})
        raise InternalError()
    return guard
