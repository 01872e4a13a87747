"""Runner use cases: enrol, report a session, reload it, stop it.

A runner authenticates with its runner token (:func:`app.auth.current_runner`)
and every action is decided in Rego (package ``authz.runners``) from the runner's
facts (``facts.runners``) and the binding it names: only the runner's own binding of
its current enrolment counts, so an unknown, stopped, stale or foreign session id all
get the same 404. Denials are audited like any other (:class:`Authorizer`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.errors import Conflict, InternalError
from app.policy import resources
from app.policy.inputs import BindingResource, FactBundle
from app.usecases.authorization import Authorizer
from app.usecases.ports import UnitFactory
from repositories.principals import RunnerIdentity
from repositories.runners import Binding
from repositories.unit_of_work import UnitOfWork

__all__ = [
    "EnrollRunner",
    "ReloadSession",
    "ReportSession",
    "SessionReport",
    "StopSession",
    "binding_resource",
    "require_binding",
    "runner_facts",
    "session_view",
]


def runner_facts(uow: UnitOfWork, runner: RunnerIdentity, principal_ids: list[str]) -> FactBundle:
    """The fact bundle for ``principal_ids`` plus the runner under ``facts.runners``."""
    facts = uow.facts.bundle(principal_ids, [])
    facts["runners"] = {
        runner.id: {"enrolled": runner.enrolled, "enrollment_epoch": runner.enrollment_epoch}
    }
    return facts


def binding_resource(binding: Binding | None) -> BindingResource:
    """The decision resource of a binding; a missing one is decided (404) like a foreign one."""
    if binding is None:
        return resources.no_binding()
    return resources.binding(
        runner_id=binding.runner_id,
        enrollment_epoch=binding.enrollment_epoch,
        state=binding.state,
        agent_id=binding.agent_id,
    )


def require_binding(
    uow: UnitOfWork,
    authorizer: Authorizer,
    runner: RunnerIdentity,
    action: str,
    binding: Binding | None,
) -> Binding:
    """Decide ``action`` on the runner's ``binding`` (``None``: it holds none) and return it.

    Raises:
        NotFound: unknown, stopped, stale or another runner's binding (the policy).
        Forbidden: the policy denies the action otherwise (audited).
        OpaUnavailable: the policy engine cannot answer.
        InternalError: the policy allowed a missing binding.
    """
    agents = [] if binding is None else [binding.agent_id]
    facts = runner_facts(uow, runner, agents)
    authorizer.require(runner, action, binding_resource(binding), facts)
    if binding is None:  # the policy allows only an existing binding
        raise InternalError()
    return binding


def session_view(binding: Binding) -> dict[str, Any]:
    """``RunnerSession``: what the runner may know of its binding (no account identity)."""
    return {
        "container_name": binding.container_name,
        "session_id": binding.session_id,
        "state": binding.state,
    }


class EnrollRunner:
    """``runner.enroll``: start a new enrolment and drop every binding of the runner.

    Args:
        writer: opens a unit of work.
        authorizer: decides ``runner.enroll`` and audits denials.
    """

    def __init__(self, *, writer: UnitFactory, authorizer: Authorizer) -> None:
        self._writer = writer
        self._authorizer = authorizer

    def __call__(self, runner: RunnerIdentity, action: str) -> dict[str, Any]:
        """Bump the enrolment epoch and delete the runner's bindings, in one transaction.

        Raises:
            Forbidden: the policy denies the enrolment.
        """
        with self._writer() as uow:
            facts = runner_facts(uow, runner, [])
            self._authorizer.require(runner, action, resources.runner(runner.id), facts)
            enrolled, dropped = uow.runners.enroll(runner.id)
            uow.commit()
        return {
            "runner_id": enrolled.id,
            "enrollment_epoch": enrolled.enrollment_epoch,
            "enrolled_at": enrolled.enrolled_at,
            "dropped_bindings": dropped,
        }


@dataclass(frozen=True, slots=True)
class SessionReport:
    """The binding after a session report and whether this report bound it (201)."""

    session: dict[str, Any]
    created: bool


class ReportSession:
    """``runner.session.bind``: move a container's binding to the runner-minted session id.

    Args:
        writer: opens a unit of work.
        authorizer: decides ``runner.session.bind`` and audits denials.
    """

    def __init__(self, *, writer: UnitFactory, authorizer: Authorizer) -> None:
        self._writer = writer
        self._authorizer = authorizer

    def __call__(
        self, runner: RunnerIdentity, action: str, container_name: str, session_id: str
    ) -> SessionReport:
        """Bind ``session_id`` to the runner's container ``container_name``.

        A repeated report for the same container (same or new session id) is not a new
        binding (``created`` false); the binding then holds the reported session id.

        Raises:
            NotFound: the runner holds no binding of that container in its enrolment.
            Conflict: another container of the runner is bound to ``session_id``.
        """
        with self._writer() as uow:
            binding = require_binding(
                uow,
                self._authorizer,
                runner,
                action,
                uow.runners.by_container(runner.id, container_name),
            )
            created = binding.state == "provisioned"
            if binding.session_id != session_id:
                if not uow.runners.bind(binding.id, session_id):
                    raise Conflict("The session id is bound to another container of the runner.")
                uow.commit()
                # Locked since by_container; the bind writes only session_id and state.
                binding = replace(binding, session_id=session_id, state="bound")
        return SessionReport(session_view(binding), created)


class ReloadSession:
    """``runner.session.reload``: a reload keeps the session id, so the binding stays.

    Args:
        reader: opens a read-only unit.
        authorizer: decides ``runner.session.reload`` and audits denials.
    """

    def __init__(self, *, reader: UnitFactory, authorizer: Authorizer) -> None:
        self._reader = reader
        self._authorizer = authorizer

    def __call__(self, runner: RunnerIdentity, action: str, session_id: str) -> dict[str, Any]:
        """The binding, unchanged, after checking that the runner holds it.

        Raises:
            NotFound: unknown, stopped, stale or another runner's session.
        """
        with self._reader() as uow:
            binding = require_binding(
                uow,
                self._authorizer,
                runner,
                action,
                uow.runners.by_session(runner.id, session_id),
            )
        return session_view(binding)


class StopSession:
    """``runner.session.stop``: delete the binding; the session id then resolves to 404.

    Args:
        writer: opens a unit of work.
        authorizer: decides ``runner.session.stop`` and audits denials.
    """

    def __init__(self, *, writer: UnitFactory, authorizer: Authorizer) -> None:
        self._writer = writer
        self._authorizer = authorizer

    def __call__(self, runner: RunnerIdentity, action: str, session_id: str) -> None:
        """Delete the runner's binding of ``session_id``.

        Raises:
            NotFound: unknown, already stopped, stale or another runner's session.
        """
        with self._writer() as uow:
            binding = require_binding(
                uow,
                self._authorizer,
                runner,
                action,
                uow.runners.by_session(runner.id, session_id, lock=True),
            )
            uow.runners.delete(binding.id)
            uow.commit()
