"""The reads of a run-context read: two statements whatever the thread's length.

1. :meth:`RunContextRepository.load` reads the run and everything that decides its
   windows (thread, the thread's current channel and its switches, the thread's
   current session, the newest earlier run of the agent in that session, where the
   triggering and the parent message lie) together with the fact bundle of the actor
   and the run's channel, which ``run.context.read`` is decided on.
2. :meth:`RunContextRepository.candidates` reads the triggering message, the thread
   window and the channel window (newest first with ``LIMIT``, tombstones and an
   excluded author filtered before the limit, each within a ``thread_seq`` range
   bounded from its anchor by :mod:`repositories.windows`, so any cached plan reads
   only that range), whether older selectable messages remain, which candidates were
   delivered to the resumed session as follow-ups, and the fact bundle of the actor
   and every candidate author on the run's channel (computed once, returned on the
   trigger's row).

Both load one run and the threads it names, whose visibility ``run.context.read``
decides (or has decided): the "resource already checked" exception of the
visible-channel rule; every message still passes the policy's filter afterwards.
Columns are read by label.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection

from app.domain.facts import FactBundle
from app.domain.representation import StoredMessage
from app.domain.run_context import (
    EarlierRun,
    MessagePlace,
    Position,
    RunSurroundings,
    SessionFacts,
    Window,
    WindowPlan,
)
from repositories.facts import as_bundle, bundle_sql
from repositories.messages import MESSAGE_COLUMNS, message_reader
from repositories.prepared import PreparedStatement
from repositories.rows import from_row
from repositories.windows import reach_cte, reach_found, reach_low

__all__ = ["CandidateRows", "LoadedRun", "RunContextRepository"]


@dataclass(frozen=True, slots=True)
class LoadedRun:
    """A run as stored, its surroundings and the actor's fact bundle.

    Attributes:
        run_id: The run.
        state: Its state (``queued``, ``running``, ...).
        trigger_kind: ``message``, ``command`` or ``interaction``.
        triggered_by: The triggering person, if any.
        surroundings: What decides the run's windows.
        facts: The fact bundle of the actor and the run's channel.
    """

    run_id: str
    state: str
    trigger_kind: str
    triggered_by: str | None
    surroundings: RunSurroundings
    facts: FactBundle


@dataclass(frozen=True, slots=True)
class CandidateRows:
    """The candidates of a context read, ascending by ``thread_seq`` per window.

    Attributes:
        trigger: The triggering message as stored (a tombstone has empty content), or
            ``None`` when it vanished since the run was loaded.
        thread: The thread window.
        thread_has_older: Whether selectable thread messages older than the window
            remain above the floor.
        channel: The channel window.
        delivered: Ids of candidates delivered or absorbed as follow-ups in the
            resumed session (empty unless the plan names a session).
        facts: The fact bundle of the actor and every candidate author on the run's
            channel, or ``None`` when the trigger vanished (nothing is answered then).
    """

    trigger: StoredMessage | None
    thread: list[StoredMessage]
    thread_has_older: bool
    channel: list[StoredMessage]
    delivered: frozenset[str]
    facts: FactBundle | None = None


# The earlier runs are those of the same agent in the thread's current session that
# were queued before this one; only the newest with a triggering message matters for
# the floor, and only the existence of any for the session mode.
_LOAD = PreparedStatement(
    "run_context_load",
    f"""
    WITH r AS (
      SELECT r.id, r.thread_id, r.agent_id, r.triggered_by, r.state, r.trigger_kind,
             r.triggering_message_id, r.queued_at, t.channel_id, t.parent_message_id,
             t.operator_agent_id AS thread_operator_id,
             c.operator_agent_id AS channel_operator_id, c.history_backfill_limit
      FROM runs r
      JOIN threads t ON t.id = r.thread_id
      JOIN channels c ON c.id = t.channel_id
      WHERE r.id = CAST(:run_id AS uuid)
    )
    SELECT r.id::text AS run_id, r.thread_id::text AS thread_id, r.agent_id::text AS agent_id,
           r.triggered_by::text AS triggered_by, r.state AS state,
           r.trigger_kind AS trigger_kind, r.channel_id::text AS channel_id,
           r.thread_operator_id::text AS thread_operator_id,
           r.channel_operator_id::text AS channel_operator_id,
           r.history_backfill_limit AS history_backfill_limit,
           s.id::text AS session_id, s.started AS session_started,
           EXISTS (SELECT 1 FROM runs e
                   WHERE e.agent_session_id = s.id AND e.agent_id = r.agent_id
                     AND e.id <> r.id AND e.queued_at < r.queued_at) AS has_earlier_run,
           prev.thread_id::text AS earlier_trigger_thread_id,
           prev.thread_seq AS earlier_trigger_seq,
           trig.id::text AS trigger_id, trig.thread_id::text AS trigger_thread_id,
           trig.thread_seq AS trigger_seq, trig_t.channel_id::text AS trigger_channel_id,
           par.id::text AS parent_id, par.thread_id::text AS parent_thread_id,
           par.thread_seq AS parent_seq, par_t.channel_id::text AS parent_channel_id,
           {bundle_sql("ARRAY[CAST(:actor_id AS uuid)]", "ARRAY[r.channel_id]")} AS facts
    FROM r
    LEFT JOIN agent_sessions s
      ON s.thread_id = r.thread_id AND s.is_current AND s.agent_id = r.agent_id
    LEFT JOIN LATERAL (
        SELECT m.thread_id, m.thread_seq
        FROM runs e JOIN messages m ON m.id = e.triggering_message_id
        WHERE e.agent_session_id = s.id AND e.agent_id = r.agent_id
          AND e.id <> r.id AND e.queued_at < r.queued_at
        ORDER BY e.queued_at DESC, e.id DESC
        LIMIT 1
    ) prev ON true
    LEFT JOIN messages trig ON trig.id = r.triggering_message_id
    LEFT JOIN threads trig_t ON trig_t.id = trig.thread_id
    LEFT JOIN messages par ON par.id = r.parent_message_id
    LEFT JOIN threads par_t ON par_t.id = par.thread_id
    """,
)

# Selectable in a window: not a tombstone and not by the excluded author. One fragment
# for the windows and for what bounds them, so the limit and has_older count exactly
# the same messages (decisions.md R7 and R8: tombstones and the excluded author count
# towards no limit).
_SELECTABLE = (
    "{m}.deleted_at IS NULL AND (CAST(:{w}_exclude AS uuid) IS NULL "
    "OR {m}.author_principal_id <> CAST(:{w}_exclude AS uuid))"
)


def _reach(w: str) -> str:
    """The lower bound of window ``w`` (:func:`repositories.windows.reach_cte`)."""
    return reach_cte(
        f"{w}_reach",
        thread=f"CAST(:{w}_thread AS uuid)",
        after=f"CAST(:{w}_after AS bigint)",
        before=f"CAST(:{w}_before AS bigint)",
        limit=f"CAST(:{w}_limit AS bigint)",
        counted=_SELECTABLE.format(m="o", w=w),
    )


def _window(w: str) -> str:
    """The newest selectable messages of window ``w``, within its bounded range.

    Whole rows, so the index scan that finds them also reads them: no second lookup.
    """
    return f"""
      SELECT m.* FROM messages m
      WHERE m.thread_id = CAST(:{w}_thread AS uuid)
        AND m.thread_seq >= {reach_low(f"{w}_reach")}
        AND m.thread_seq < CAST(:{w}_before AS bigint)
        AND {_SELECTABLE.format(m="m", w=w)}
      ORDER BY m.thread_seq DESC
      LIMIT CAST(:{w}_limit AS bigint)"""


# The facts of the actor and of every candidate author on the run's channel: an
# uncorrelated subquery, so PostgreSQL builds it once; only the trigger's row carries it.
_AUTHOR_FACTS = bundle_sql(
    "ARRAY(SELECT author_principal_id FROM m UNION SELECT CAST(:actor_id AS uuid))",
    "ARRAY[CAST(:channel_id AS uuid)]",
)

# A window that is not wanted has a NULL thread: it selects nothing and has nothing older.
_CANDIDATES = PreparedStatement(
    "run_context_candidates",
    f"""
    WITH RECURSIVE {_reach("tw")}, {_reach("cw")},
    tw AS ({_window("tw")}
    ), cw AS ({_window("cw")}
    ), m AS (
      SELECT 'trigger' AS part, m.* FROM messages m WHERE m.id = CAST(:trigger_id AS uuid)
      UNION ALL SELECT 'thread', * FROM tw
      UNION ALL SELECT 'channel', * FROM cw
    )
    SELECT m.part AS part, {MESSAGE_COLUMNS},
           EXISTS (SELECT 1 FROM run_followups f JOIN runs fr ON fr.id = f.run_id
                   WHERE f.message_id = m.id
                     AND fr.agent_session_id = CAST(:session_id AS uuid)
                     AND f.state IN ('delivered', 'absorbed')) AS delivered_to_session,
           {reach_found("tw_reach")} > CAST(:tw_limit AS bigint) AS thread_has_older,
           CASE WHEN m.part = 'trigger' THEN {_AUTHOR_FACTS} END AS facts
    FROM m
    JOIN threads t ON t.id = m.thread_id
    JOIN principals p ON p.id = m.author_principal_id
    ORDER BY m.part, m.thread_seq
    """,
)

_NO_WINDOW: dict[str, Any] = {"thread": None, "after": 0, "before": 0, "limit": 0, "exclude": None}


def _window_params(prefix: str, window: Window | None) -> dict[str, Any]:
    values = _NO_WINDOW
    if window is not None:
        values = {
            "thread": window.thread_id,
            "after": window.after_seq,
            "before": window.before_seq,
            "limit": window.limit,
            "exclude": window.exclude_author_id,
        }
    return {f"{prefix}_{name}": value for name, value in values.items()}


def _place(m: Any, prefix: str) -> MessagePlace | None:
    if m[f"{prefix}_id"] is None:
        return None
    return MessagePlace(
        id=m[f"{prefix}_id"],
        position=Position(thread_id=m[f"{prefix}_thread_id"], seq=m[f"{prefix}_seq"]),
        channel_id=m[f"{prefix}_channel_id"],
    )


def _surroundings(m: Any) -> RunSurroundings:
    session = None
    if m["session_id"] is not None:
        session = SessionFacts(id=m["session_id"], started=bool(m["session_started"]))
    earlier = None
    if m["has_earlier_run"]:
        last = None
        if m["earlier_trigger_thread_id"] is not None:
            last = Position(thread_id=m["earlier_trigger_thread_id"], seq=m["earlier_trigger_seq"])
        earlier = EarlierRun(last_trigger=last)
    return RunSurroundings(
        agent_id=m["agent_id"],
        thread_id=m["thread_id"],
        channel_id=m["channel_id"],
        thread_operator_id=m["thread_operator_id"],
        channel_operator_id=m["channel_operator_id"],
        channel_backfill_limit=m["history_backfill_limit"],
        session=session,
        earlier_run=earlier,
        trigger=_place(m, "trigger"),
        parent=_place(m, "parent"),
    )


def _candidate_flags(keys: Iterable[str]) -> itemgetter[tuple[Any, ...]]:
    """Reads a candidate row's own columns by label: part, delivered, has-older, facts."""
    labels = list(keys)
    return itemgetter(
        *(
            labels.index(name)
            for name in ("part", "delivered_to_session", "thread_has_older", "facts")
        )
    )


class RunContextRepository:
    """The two reads of a context read; never writes."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def load(self, run_id: str, actor_id: str) -> LoadedRun | None:
        """The run, its surroundings and the actor's facts, or ``None`` if unknown."""
        row = _LOAD.execute(self._conn, {"run_id": run_id, "actor_id": actor_id}).first()
        if row is None:
            return None
        m = row._mapping
        return from_row(LoadedRun, m, surroundings=_surroundings(m), facts=as_bundle(m["facts"]))

    def candidates(self, plan: WindowPlan, *, actor_id: str, channel_id: str) -> CandidateRows:
        """The triggering message, both windows, the delivered follow-ups and the facts.

        The facts cover ``actor_id`` and every candidate author on ``channel_id``.
        """
        params = {
            "actor_id": actor_id,
            "channel_id": channel_id,
            "trigger_id": plan.trigger.id,
            "session_id": plan.delivered_session_id,
            **_window_params("tw", plan.thread),
            **_window_params("cw", plan.channel),
        }
        result = _CANDIDATES.execute(self._conn, params)
        read_message = message_reader(result.keys())
        flags = _candidate_flags(result.keys())
        parts: dict[str, list[StoredMessage]] = {"trigger": [], "thread": [], "channel": []}
        delivered: set[str] = set()
        thread_has_older = False
        facts = None
        # all(): one fetchall; iterating the result would fetch row by row.
        for row in result.all():
            message = read_message(row)
            part, delivered_to_session, has_older, part_facts = flags(row)
            parts[part].append(message)
            if part == "trigger":
                facts = as_bundle(part_facts)
            if delivered_to_session:
                delivered.add(message.id)
            # The same flag on every row (an uncorrelated subquery, evaluated once).
            thread_has_older = bool(has_older)
        return CandidateRows(
            trigger=parts["trigger"][0] if parts["trigger"] else None,
            thread=parts["thread"],
            thread_has_older=thread_has_older,
            channel=parts["channel"],
            delivered=frozenset(delivered),
            facts=facts,
        )
