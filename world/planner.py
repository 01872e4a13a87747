"""The planner: from a validated world to every row, id and timestamp it loads.

:func:`plan_world` touches no database, so a world is checked completely (every
reference and cross-entity rule) before anything is written, and cheaply in unit tests.
"""

from __future__ import annotations

from typing import Any

from repositories.models import Base
from world.plan_chat import build_grants, build_spaces, build_threads
from world.plan_names import register
from world.plan_people import build_principals, build_runners_and_groups
from world.plan_runs import build_privacy_policies, build_sessions_runs_followups
from world.plan_state import PlanState, WorldPlan

__all__ = ["plan_world"]


def plan_world(world: dict[str, Any]) -> WorldPlan:
    """Plan a normalised world that passed the schema check.

    Raises:
        WorldError: the first reference or cross-entity rule it breaks.
    """
    state = PlanState(world)
    register(state)
    build_principals(state)
    build_runners_and_groups(state)
    build_spaces(state)
    build_threads(state)
    build_grants(state)
    build_sessions_runs_followups(state)
    build_privacy_policies(state)
    inserts = tuple(
        (table.name, tuple(state.rows[table.name]))
        for table in Base.metadata.sorted_tables
        if state.rows[table.name]
    )
    updates = tuple(
        (table, column, tuple(pairs))
        for table, column, pairs in (
            ("principals", "home_channel_id", state.home_channels),
            ("threads", "parent_message_id", state.parents),
            ("messages", "reply_to_message_id", state.replies),
        )
        if pairs
    )
    return WorldPlan(dict(state.mapping), inserts, updates, tuple(state.probes))
