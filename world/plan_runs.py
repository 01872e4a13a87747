"""Pass two of the planner, for agent sessions, runs, follow-ups and privacy policies."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from app.domain.privacy import is_provider_id, is_task_key
from world.errors import WorldError, join_path
from world.plan_state import KnownRun, KnownSession, PlanState, Probe, parse_time

__all__ = ["build_privacy_policies", "build_sessions_runs_followups"]


def build_sessions_runs_followups(state: PlanState) -> None:
    """Agent sessions (one current per thread), runs and their follow-ups."""
    current: dict[uuid.UUID, str] = {}
    for index, item in enumerate(state.section("sessions")):
        path = join_path("sessions", index)
        thread_id = state.thread_ref(item["thread"], join_path(path, "thread"))
        agent = state.principal(item["agent"], join_path(path, "agent"), "agent")
        is_current = bool(item.get("current", True))
        if is_current:
            if thread_id in current:
                raise WorldError(
                    join_path(path, "current"),
                    f"the thread already has a current session ({current[thread_id]})",
                )
            current[thread_id] = path
        state.sessions[item["key"]] = KnownSession(item["_id"], thread_id, agent.id)
        state.rows["agent_sessions"].append(
            {
                "id": item["_id"],
                "thread_id": thread_id,
                "agent_id": agent.id,
                "is_current": is_current,
                "started": bool(item.get("started", False)),
                "created_at": state.tick(),
            }
        )
    for index, item in enumerate(state.section("runs")):
        _build_run(state, item, join_path("runs", index))
    for index, item in enumerate(state.section("followups")):
        path = join_path("followups", index)
        run = state.runs.get(item["run"])
        if run is None:
            raise WorldError(join_path(path, "run"), f'unknown run "{item["run"]}"')
        message = state.message(item["message"], join_path(path, "message"))
        if message.thread_id != run.thread_id:
            raise WorldError(join_path(path, "message"), "must be a message of the run's thread")
        state.rows["run_followups"].append(
            {
                "id": item["_id"],
                "run_id": run.id,
                "message_id": message.id,
                "state": item.get("state", "pending"),
            }
        )


def _build_run(state: PlanState, item: Mapping[str, Any], path: str) -> None:
    thread_id = state.thread_ref(item["thread"], join_path(path, "thread"))
    agent = state.principal(item["agent"], join_path(path, "agent"), "agent")
    session_id = None
    if "session" in item:
        session_path = join_path(path, "session")
        session = state.sessions.get(item["session"])
        if session is None:
            raise WorldError(session_path, f'unknown session "{item["session"]}"')
        if session.thread_id != thread_id or session.agent_id != agent.id:
            raise WorldError(session_path, "must be a session of the run's agent and thread")
        session_id = session.id
    trigger_id = None
    if "trigger" in item:
        trigger_path = join_path(path, "trigger")
        trigger = state.message(item["trigger"], trigger_path)
        # The run context reads the trigger from the run's thread, or it is the
        # parent message of an auto-created thread.
        parent_ids = {parent for thread, parent in state.parents if thread == thread_id}
        if trigger.thread_id != thread_id and trigger.id not in parent_ids:
            raise WorldError(
                trigger_path, "must be a message of the run's thread or its parent message"
            )
        trigger_id = trigger.id
    triggered_by = None
    if "triggered_by" in item:
        triggered_by = state.principal(item["triggered_by"], join_path(path, "triggered_by")).id
    task_key = item.get("task_key")
    if task_key is not None and not is_task_key(task_key):
        raise WorldError(join_path(path, "task_key"), "must be a task key")
    state.runs[item["key"]] = KnownRun(item["_id"], thread_id)
    queued_at = item.get("queued_at")
    state.rows["runs"].append(
        {
            "id": item["_id"],
            "thread_id": thread_id,
            "agent_id": agent.id,
            "agent_session_id": session_id,
            "trigger_kind": item.get("trigger_kind", "message"),
            "triggering_message_id": trigger_id,
            "triggered_by": triggered_by,
            "state": item.get("state", "queued"),
            "queued_at": (
                parse_time(queued_at, join_path(path, "queued_at"))
                if queued_at is not None
                else state.tick()
            ),
            "task_key": task_key,
        }
    )


def build_privacy_policies(state: PlanState) -> None:
    """Provider and task policies; keys are unique in the world and the database."""
    for section, table, key_field, column, valid in (
        ("provider_policies", "provider_policies", "provider", "provider_id", is_provider_id),
        ("task_policies", "task_policies", "task", "task_key", is_task_key),
    ):
        seen: dict[str, str] = {}
        for index, item in enumerate(state.section(section)):
            path = join_path(section, index)
            key_path = join_path(path, key_field)
            key = item[key_field]
            if not valid(key):
                raise WorldError(key_path, f"must be a {key_field} id")
            if key in seen:
                raise WorldError(
                    key_path, f'duplicate {key_field} "{key}" (already at {seen[key]})'
                )
            seen[key] = key_path
            state.probes.append(Probe(table, column, key, key_path, f'{key_field} "{key}"'))
            state.rows[table].append(
                {
                    column: key,
                    "audit_content_ceiling": item.get("audit_content_ceiling"),
                    "background_answer_ceiling": item.get("background_answer_ceiling"),
                }
            )
