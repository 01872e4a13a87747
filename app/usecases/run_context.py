"""Read the context of an agent's own active run (``getRunContext``, seed 000).

Order of work (seed 000 design note 1), a read without locks that recomputes every
part, trust included, on each request:

1. Load the run and its surroundings (one statement). Unknown: the same 404 as an
   invisible run.
2. Ask OPA ``run.context.read`` (round trip 1): invisible, ended or unknown-state
   runs are 404; a person or an app 403 ``subject_kind_not_allowed``; another agent
   403 ``not_self``. Denials are audited, reads are not.
3. Plan the session mode, floor and windows (pure domain code).
4. Load the triggering message, the parent message and both windows (``LIMIT`` and
   ``EXISTS`` in SQL: cost independent of the thread's length).
5. Ask OPA once more (round trip 2): which candidates the agent may read
   (``message.read`` in filter mode), who holds trigger on the channel now, and the
   role and trust of every element (origin before author).
6. Cut, budget and mark the gap (pure domain code), mark follow-ups already
   delivered, and assemble ``run_context.v1``.

Any source error (PostgreSQL, OPA) ends the request; it never yields a context with
weaker trust markers.
"""

from __future__ import annotations

import logging
from typing import Any

from app.domain import run_context as shaping
from app.domain.representation import principal_ref
from app.errors import InternalError, NotFound
from app.opa_client import OpaUnavailable
from app.services import Services
from app.usecases.authorization import authorize
from repositories.messages import MessageRow, Window
from repositories.principals import Actor
from repositories.runs import RunContextFacts

__all__ = ["EVALUATE_PATH", "read_run_context"]

EVALUATE_PATH = "runcontext/evaluate"
log = logging.getLogger("app.runcontext")
_EMPTY = Window(items=[], has_older=False)
_ROLES = frozenset({"user", "assistant", "other"})
_TRUSTS = frozenset({"trigger", "authorized", "self", "unverified", "system"})


def _plan(run: RunContextFacts) -> shaping.ContextPlan:
    operator = run.thread_operator_id or run.channel_operator_id
    session = None
    if run.session_id is not None and run.session_agent_id == run.agent_id:
        session = shaping.SessionFacts(id=run.session_id, started=bool(run.session_started))
    earlier: list[shaping.EarlierRun] = []
    if run.has_earlier_run:
        earlier.append(
            shaping.EarlierRun(
                triggering_message_thread_id=run.earlier_trigger_thread_id,
                triggering_message_seq=run.earlier_trigger_seq,
            )
        )
    return shaping.plan_context(
        shaping.PlanFacts(
            agent_operates_thread=operator == run.agent_id,
            session=session,
            thread_id=run.thread_id,
            previous_runs=earlier,
        )
    )


def _backfill_limit(services: Services, run: RunContextFacts) -> int:
    settings = services.settings
    limit = run.history_backfill_limit
    if limit is None:
        limit = settings.integer("channel.history_backfill_limit_default")
    return min(limit, settings.integer("channel.history_backfill_limit_max"))


def _evaluate(
    services: Services,
    actor: Actor,
    run: RunContextFacts,
    messages: list[MessageRow],
    facts: dict[str, Any],
) -> dict[str, Any]:
    policy_input = {
        "actor": actor.id,
        # policy-input.md: run.triggered_by is absent (never null) without a triggering person.
        "run": {
            "id": run.run_id,
            "agent_id": run.agent_id,
            "channel_id": run.channel_id,
            **({"triggered_by": run.triggered_by} if run.triggered_by else {}),
        },
        "messages": [
            {"id": m.id, "channel_id": m.channel_id, "author_id": m.author_id, "origin": m.origin}
            for m in messages
        ],
        "facts": facts,
    }
    result = services.opa.query(EVALUATE_PATH, policy_input)
    if not isinstance(result, dict) or not all(
        isinstance(result.get(key), kind)
        for key, kind in (("readable", list), ("trigger_holders", list), ("classes", dict))
    ):
        raise OpaUnavailable("run context evaluation has the wrong shape")
    classes = result["classes"]
    for message in messages:
        # A missing class, or one outside the contract, must never reach the response.
        klass = classes.get(message.id)
        if not (
            isinstance(klass, dict)
            and klass.get("role") in _ROLES
            and klass.get("trust") in _TRUSTS
        ):
            raise OpaUnavailable("run context classification is outside the contract")
    return result


def _element(
    message: MessageRow, item: shaping.ContextItem | None, klass: dict[str, str], delivered: bool
) -> dict[str, Any]:
    return {
        "message_id": message.id,
        "thread_seq": message.thread_seq,
        "created_at": message.created_at,
        "channel_id": message.channel_id,
        "author": principal_ref(message),
        "role": klass["role"],
        "origin": message.origin,
        "kind": message.kind,
        "content_md": item.content_md if item is not None else message.content_md,
        "attachments": message.attachments,
        "reply_to_message_id": message.reply_to_message_id,
        "trust": klass["trust"],
        "truncated": True if item is not None and item.truncated else None,
        "already_delivered": True if delivered else None,
    }


def _items(window: list[MessageRow], part: shaping.ContextPart) -> list[shaping.ContextItem]:
    return [
        shaping.ContextItem(
            message_id=m.id, thread_seq=m.thread_seq, content_md=m.content_md, part=part
        )
        for m in window
    ]


def read_run_context(services: Services, actor: Actor, action: str, run_id: str) -> dict[str, Any]:
    """Build ``run_context.v1`` for ``actor``'s own active run.

    Raises:
        NotFound: unknown run, invisible run, ended run, or a triggering message that
            is gone or unreadable: one answer for all of them.
        Forbidden: a person, an app or another agent asks (reason from the policy).
        InternalError: a run whose trigger kind has no context (not a message).
        ServiceUnavailable: OPA cannot answer (fail closed).
    """
    settings = services.settings
    with services.reader() as uow:
        runs = uow.runs
        messages_repo = uow.messages
        run = runs.context_facts(run_id)
        if run is None:
            raise NotFound()
        authorize(
            services,
            actor,
            action,
            {
                "kind": "run",
                "id": run.run_id,
                "agent_id": run.agent_id,
                "channel_id": run.channel_id,
                "state": run.state,
            },
            uow.facts.bundle([actor.id], [run.channel_id]),
        )
        if run.trigger_kind != "message":
            log.error(
                "run context for a run without a triggering message",
                extra={"run_id": run.run_id, "trigger_kind": run.trigger_kind},
            )
            raise InternalError()
        if run.triggering_message_id is None:
            raise NotFound()
        plan = _plan(run)
        wanted = [run.triggering_message_id]
        if run.parent_message_id is not None:
            wanted.append(run.parent_message_id)
        loaded = messages_repo.by_ids(wanted)
        trigger = loaded.get(run.triggering_message_id)
        parent = loaded.get(run.parent_message_id) if run.parent_message_id else None
        trigger_in_thread = trigger is not None and trigger.thread_id == run.thread_id
        trigger_is_parent = trigger is not None and trigger.id == run.parent_message_id
        if trigger is None or not (trigger_in_thread or trigger_is_parent):
            raise NotFound()
        limit = _backfill_limit(services, run)
        floor = plan.floor_seq if trigger_in_thread else 0
        thread_window = _EMPTY
        if trigger_in_thread:
            thread_window = messages_repo.window(
                run.thread_id,
                after_seq=floor,
                before_seq=trigger.thread_seq,
                limit=limit,
                exclude_author_id=run.agent_id if plan.exclude_own_messages else None,
            )
        # Channel context only when the parent lies in the thread's current channel: after
        # a move, content of the source channel must not reach the target's readers.
        build_channel = (
            plan.want_channel_context and parent is not None and parent.channel_id == run.channel_id
        )
        channel_window = _EMPTY
        if build_channel and parent is not None:
            channel_window = messages_repo.window(
                parent.thread_id,
                after_seq=0,
                before_seq=parent.thread_seq,
                limit=limit,
                exclude_author_id=None,
            )
        candidates = [trigger, *channel_window.items, *thread_window.items]
        facts = uow.facts.bundle(
            {actor.id, *(m.author_id for m in candidates)},
            {run.channel_id, *(m.channel_id for m in candidates)},
        )
        verdict = _evaluate(services, actor, run, candidates, facts)
        readable = set(verdict["readable"])
        if trigger.id not in readable:
            raise NotFound()
        channel_rows = [m for m in channel_window.items if m.id in readable]
        thread_rows = [m for m in thread_window.items if m.id in readable]
        dropped = len(channel_window.items) + len(thread_window.items)
        dropped -= len(channel_rows) + len(thread_rows)
        if dropped:
            # The windows come from the checked run's own thread; a denial here means
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
        shaped = shaping.shape_windows(
            _items(channel_rows, shaping.ContextPart.CHANNEL),
            _items(thread_rows, shaping.ContextPart.THREAD),
            has_older=thread_window.has_older,
            trigger_seq=trigger.thread_seq,
            message_max_bytes=settings.integer("agent.context_message_max_bytes"),
            total_max_bytes=settings.integer("agent.context_max_bytes"),
        )
        delivered: set[str] = set()
        if plan.mode is shaping.SessionMode.RESUME and plan.session_id is not None:
            delivered = runs.delivered_followups(
                plan.session_id, [i.message_id for i in (*shaped.channel, *shaped.thread)]
            )
    classes: dict[str, dict[str, str]] = verdict["classes"]
    rows = {m.id: m for m in candidates}

    def elements(items: list[shaping.ContextItem]) -> list[dict[str, Any]]:
        return [
            _element(rows[i.message_id], i, classes[i.message_id], i.message_id in delivered)
            for i in items
        ]

    return {
        "run_id": run.run_id,
        "context_floor_seq": floor,
        "trigger_message": _element(trigger, None, classes[trigger.id], False),
        "thread_context": elements(shaped.thread),
        "channel_context": elements(shaped.channel) if build_channel else None,
        "truncated_before_seq": shaped.truncated_before_seq,
    }
