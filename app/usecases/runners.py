"""Runner use cases: enrol, report a session, reload it, stop it, bind a run to it.

Every action is decided in Rego (``authz.runners``) on the runner's own binding of its
current enrolment, so unknown, stopped, stale and foreign sessions share one 404, and
denials are audited. Binding a run names whom the agent works for; only the runner
does it, never the agent (ADR 0020).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.domain.facts import FactBundle
from app.errors import Conflict, InternalError
from app.policy import resources
from app.policy.inputs import ActingForInput, BindingResource, BoundRunFacts
from app.usecases.authorization import Authorizer
from app.usecases.base import Reads, Writes
from repositories.principals import RunnerIdentity
from repositories.runners import Binding, BoundRun
from repositories.unit_of_work import UnitOfWork

__all__ = [
    "BindRun",
    "EnrollRunner",
    "ReloadSession",
    "ReportSession",
    "SessionReport",
    "StopSession",
    "UnbindRun",
    "acting_for_input",
    "binding_resource",
    "bound_run_facts",
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


def bound_run_facts(run: BoundRun) -> BoundRunFacts:
    """A run's id, agent and state as the policies see it."""
    return {"id": run.id, "agent_id": run.agent_id, "state": run.state}


def acting_for_input(run: BoundRun | None) -> ActingForInput | None:
    """``input.acting_for`` of a relayed call: the bound run and its requester.

    ``None`` when no run is bound. The run's state is sent as it is: whether it still
    binds the call is the policy's question (an ended run unbinds itself).
    """
    if run is None:
        return None
    acting_for: ActingForInput = {"run": bound_run_facts(run)}
    if run.requester_id is not None:
        acting_for["requester"] = run.requester_id
    return acting_for


def binding_resource(binding: Binding | None, run: BoundRun | None = None) -> BindingResource:
    """The decision resource of a binding; a missing one is decided (404) like a foreign one.

    ``run`` is the run a bind asks for (``runner.session.run.bind``), when it exists.
    """
    if binding is None:
        return resources.no_binding()
    return resources.binding(
        runner_id=binding.runner_id,
        enrollment_epoch=binding.enrollment_epoch,
        state=binding.state,
        agent_id=binding.agent_id,
        run=None if run is None else bound_run_facts(run),
    )


def require_binding(
    uow: UnitOfWork,
    authorizer: Authorizer,
    runner: RunnerIdentity,
    action: str,
    binding: Binding | None,
    run: BoundRun | None = None,
) -> Binding:
    """Decide ``action`` on the runner's ``binding`` (``None``: it holds none) and return it.

    ``run`` is the run a bind names (``None``: unknown, or not a bind).

    Raises:
        NotFound: unknown, stopped, stale or another runner's binding (the policy).
        Forbidden: the policy denies the action otherwise (audited).
        OpaUnavailable: the policy engine cannot answer.
        InternalError: the policy allowed a missing binding.
    """
    agents = [] if binding is None else [binding.agent_id]
    facts = runner_facts(uow, runner, agents)
    authorizer.require(runner, action, binding_resource(binding, run), facts)
    if binding is None:  # the policy allows only an existing binding
        raise InternalError()
    return binding


def _held_session(
    uow: UnitOfWork,
    authorizer: Authorizer,
    runner: RunnerIdentity,
    action: str,
    session_id: str,
    *,
    lock: bool = False,
    run: BoundRun | None = None,
) -> Binding:
    """:func:`require_binding` on the runner's binding of ``session_id`` (locked if asked)."""
    binding = uow.runners.by_session(runner.id, session_id, lock=lock)
    return require_binding(uow, authorizer, runner, action, binding, run)


def session_view(binding: Binding) -> dict[str, Any]:
    """``RunnerSession``: what the runner may know of its binding (no account identity).

    ``run_id`` is the run the runner bound to the session, when one is bound (an ended
    run stays recorded until the runner unbinds or binds another; it no longer binds
    the calls).
    """
    view: dict[str, Any] = {
        "container_name": binding.container_name,
        "session_id": binding.session_id,
        "state": binding.state,
    }
    if binding.run is not None:
        view["run_id"] = binding.run.id
    return view


class EnrollRunner(Writes):
    """``runner.enroll``: start a new enrolment and drop every binding of the runner."""

    def __call__(self, runner: RunnerIdentity, action: str) -> dict[str, Any]:
        """Bump the enrolment epoch and delete the runner's bindings, in one transaction.

        Raises:
            Forbidden: the policy denies the enrolment.
        """
        with self.writer() as uow:
            facts = runner_facts(uow, runner, [])
            self.authorizer.require(runner, action, resources.runner(runner.id), facts)
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


class ReportSession(Writes):
    """``runner.session.bind``: move a container's binding to the runner-minted session id."""

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
        with self.writer() as uow:
            binding = require_binding(
                uow,
                self.authorizer,
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
                # A new session id is a new session: the bind cleared any bound run.
                binding = replace(binding, session_id=session_id, state="bound", run=None)
        return SessionReport(session_view(binding), created)


class ReloadSession(Reads):
    """``runner.session.reload``: a reload keeps the session id, so the binding stays."""

    def __call__(self, runner: RunnerIdentity, action: str, session_id: str) -> dict[str, Any]:
        """The binding, unchanged, after checking that the runner holds it.

        Raises:
            NotFound: unknown, stopped, stale or another runner's session.
        """
        with self.reader() as uow:
            binding = _held_session(uow, self.authorizer, runner, action, session_id)
        return session_view(binding)


class StopSession(Writes):
    """``runner.session.stop``: delete the binding; the session id then resolves to 404."""

    def __call__(self, runner: RunnerIdentity, action: str, session_id: str) -> None:
        """Delete the runner's binding of ``session_id``.

        Raises:
            NotFound: unknown, already stopped, stale or another runner's session.
        """
        with self.writer() as uow:
            binding = _held_session(uow, self.authorizer, runner, action, session_id, lock=True)
            uow.runners.delete(binding.id)
            uow.commit()


class BindRun(Writes):
    """``runner.session.run.bind``: the session's calls are made for a run's requester."""

    def __call__(
        self, runner: RunnerIdentity, action: str, session_id: str, run_id: str
    ) -> dict[str, Any]:
        """Bind ``run_id`` to the runner's session ``session_id`` (replacing any run).

        Raises:
            NotFound: unknown, stopped, stale or another runner's session; a run that
                is unknown, not live, or not of the session's agent; an agent that is
                not active (all decided in Rego, one body).
            Forbidden: the caller is not an enrolled runner.
        """
        with self.writer() as uow:
            run = uow.runners.run(run_id)
            binding = _held_session(
                uow, self.authorizer, runner, action, session_id, lock=True, run=run
            )
            if run is None:  # the policy allows only an existing run
                raise InternalError()
            uow.runners.set_run(binding.id, run.id)
            uow.commit()
        return session_view(replace(binding, run=run))


class UnbindRun(Writes):
    """``runner.session.run.unbind``: the session's calls are the agent's own again."""

    def __call__(self, runner: RunnerIdentity, action: str, session_id: str) -> None:
        """Unbind the run of the runner's session (nothing bound: nothing changes).

        Raises:
            NotFound: unknown, stopped, stale or another runner's session.
        """
        with self.writer() as uow:
            binding = _held_session(uow, self.authorizer, runner, action, session_id, lock=True)
            if binding.run is not None:
                uow.runners.set_run(binding.id, None)
                uow.commit()
