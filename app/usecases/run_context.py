"""Read the context of an agent's own active run (``getRunContext``, decisions.md S0).

:class:`ReadRunContext` loads the run and its surroundings, decides
``run.context.read``, plans and reads the windows, asks OPA which candidates the agent
may read and how each is trusted, then cuts, budgets and assembles ``run_context.v1``:
two SQL statements and two OPA round trips, no lock, every part recomputed per
request (the steps: ``docs/architecture.md``, ``getRunContext``; ADR 0007).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.config import Settings
from app.domain import run_context as shaping
from app.domain.facts import FactBundle
from app.domain.representation import StoredMessage, context_element, principal_ref
from app.errors import InternalError, NotFound
from app.policy import PolicyGateway, RunContextVerdict, resources
from app.policy.inputs import (
    AuthorRef,
    CandidateThread,
    RunContextInput,
    RunRef,
)
from app.usecases.base import Reads
from repositories.principals import Actor
from repositories.run_context import LoadedRun

__all__ = ["ContextLimits", "ReadRunContext", "run_context_input"]

log = logging.getLogger("app.runcontext")


@dataclass(frozen=True, slots=True)
class ContextLimits:
    """The configured limits a context read applies.

    Attributes:
        backfill: ``channel.history_backfill_limit_default`` and ``..._max``.
        message_max_bytes: ``agent.context_message_max_bytes``.
        total_max_bytes: ``agent.context_max_bytes``.
    """

    backfill: shaping.BackfillLimits
    message_max_bytes: int
    total_max_bytes: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ContextLimits:
        """Read the limits once, at start-up."""
        return cls(
            backfill=shaping.BackfillLimits(
                default=settings.integer("channel.history_backfill_limit_default"),
                maximum=settings.integer("channel.history_backfill_limit_max"),
            ),
            message_max_bytes=settings.integer("agent.context_message_max_bytes"),
            total_max_bytes=settings.integer("agent.context_max_bytes"),
        )


def run_context_input(
    actor: Actor, run: LoadedRun, candidates: Iterable[StoredMessage], facts: FactBundle
) -> RunContextInput:
    """The input of the run-context batch: positions and authors, never content.

    Candidates are grouped by thread (each thread lies in one channel) and their
    authors reduced to distinct (author, origin) pairs, so the input and the policy's
    work grow with the number of threads and authors, not of messages.
    """
    s = run.surroundings
    ref: RunRef = {
        "id": run.run_id,
        "agent_id": s.agent_id,
        "channel_id": s.channel_id,
        "thread_id": s.thread_id,
    }
    if run.triggered_by is not None:
        ref["triggered_by"] = run.triggered_by
    if s.parent is not None:
        ref["parent"] = {"thread_id": s.parent.position.thread_id, "seq": s.parent.position.seq}
    threads: dict[str, CandidateThread] = {}
    authors: dict[tuple[str, str], AuthorRef] = {}
    for message in candidates:
        thread = threads.setdefault(
            message.thread_id,
            {"id": message.thread_id, "channel_id": message.channel_id, "seqs": []},
        )
        thread["seqs"].append(message.thread_seq)
        authors.setdefault(
            (message.author_id, message.origin), {"id": message.author_id, "origin": message.origin}
        )
    for thread in threads.values():
        thread["seqs"].sort()
    return {
        "actor": actor.id,
        "run": ref,
        "threads": list(threads.values()),
        "authors": list(authors.values()),
        "facts": facts,
    }


def _items(messages: list[StoredMessage], part: shaping.ContextPart) -> list[shaping.ContextItem]:
    return [
        shaping.ContextItem(
            message_id=m.id, thread_seq=m.thread_seq, content_md=m.content_md, part=part
        )
        for m in messages
    ]


def _readable(messages: list[StoredMessage], verdict: RunContextVerdict) -> list[StoredMessage]:
    return [m for m in messages if verdict.is_readable(m.thread_id, m.thread_seq)]


@dataclass(frozen=True, kw_only=True, eq=False)
class ReadRunContext(Reads):
    """Build ``run_context.v1`` for an agent's own active run.

    Attributes:
        policy: asks the run-context batch.
        limits: the configured limits.
    """

    policy: PolicyGateway
    limits: ContextLimits

    def __call__(self, actor: Actor, action: str, run_id: str) -> dict[str, Any]:
        """The context of ``run_id`` for ``actor``.

        Raises:
            NotFound: unknown run, invisible run, ended run, or a triggering message
                that is gone, misplaced or unreadable: one answer for all of them.
            Forbidden: a person, an app or another agent asks (reason from the policy).
            InternalError: a run whose trigger kind has no context (not a message).
            OpaUnavailable: OPA cannot answer or answers malformed (fail closed).
        """
        with self.reader() as unit:
            run = unit.run_context.load(run_id, actor.id)
            if run is None:
                raise NotFound()
            s = run.surroundings
            self.authorizer.require(
                actor,
                action,
                resources.run(
                    run.run_id, agent_id=s.agent_id, channel_id=s.channel_id, state=run.state
                ),
                run.facts,
            )
            if run.trigger_kind != "message":
                log.error(
                    "run context for a run without a triggering message",
                    extra={"run_id": run.run_id, "trigger_kind": run.trigger_kind},
                )
                raise InternalError()
            try:
                plan = shaping.plan_windows(s, self.limits.backfill)
            except shaping.TriggerOutOfReach:
                raise NotFound() from None
            rows = unit.run_context.candidates(plan, actor_id=actor.id, channel_id=s.channel_id)
        trigger = rows.trigger
        if trigger is None or rows.facts is None:
            raise NotFound()
        candidates = [trigger, *rows.channel, *rows.thread]
        verdict = self.policy.evaluate_run_context(
            run_context_input(actor, run, candidates, rows.facts)
        )
        if not verdict.is_readable(trigger.thread_id, trigger.thread_seq):
            raise NotFound()
        channel_rows = _readable(rows.channel, verdict)
        thread_rows = _readable(rows.thread, verdict)
        dropped = len(rows.channel) + len(rows.thread) - len(channel_rows) - len(thread_rows)
        if dropped:
            # The windows come from the checked run's own threads; a denial here means
            # SQL and policy disagree. Drop the items and say so, with counts only.
            log.error(
                "filter mismatch",
                extra={
                    "action": "message.read",
                    "resource_kind": "message",
                    "reason": "filter_mismatch",
                    "dropped": dropped,
                },
            )
            self.authorizer.filter_mismatch("message.read", dropped)
        shaped = shaping.shape_windows(
            _items(channel_rows, shaping.ContextPart.CHANNEL),
            _items(thread_rows, shaping.ContextPart.THREAD),
            has_older=rows.thread_has_older,
            trigger_seq=trigger.thread_seq,
            message_max_bytes=self.limits.message_max_bytes,
            total_max_bytes=self.limits.total_max_bytes,
        )
        by_id = {m.id: m for m in candidates}
        authors = {m.author_id: principal_ref(m) for m in candidates}

        def element(message: StoredMessage, item: shaping.ContextItem | None) -> dict[str, Any]:
            klass = verdict.class_of(message.author_id, message.origin)
            return context_element(
                message,
                author=authors[message.author_id],
                content_md=message.content_md if item is None else item.content_md,
                truncated=item is not None and item.truncated,
                role=klass.role,
                trust=klass.trust,
                already_delivered=item is not None and message.id in rows.delivered,
            )

        def elements(items: list[shaping.ContextItem]) -> list[dict[str, Any]]:
            return [element(by_id[item.message_id], item) for item in items]

        body: dict[str, Any] = {
            "run_id": run.run_id,
            "context_floor_seq": plan.floor_seq,
            # The triggering message is complete: never cut, never counted.
            "trigger_message": element(trigger, None),
            "thread_context": elements(shaped.thread),
        }
        if plan.channel is not None:
            body["channel_context"] = elements(shaped.channel)
        if shaped.truncated_before_seq is not None:
            body["truncated_before_seq"] = shaped.truncated_before_seq
        return body
