"""The authorization fact bundle sent to OPA as ``input.facts``.

One SQL statement builds the whole bundle as JSON inside PostgreSQL (principals with
their groups and permissions, channels with their space and members, spaces, and the
grants that can matter), so gathering facts costs one round trip whatever the number
of principals or channels asked about. The shape is the contract of
``docs/policy-input.md``; no handle, display name or content is selected.

A principal carries ``acting_for: "required"`` only when it is set (issue 21); for
everyone else the principal's facts are exactly what they were before, so decisions
that never involve such an agent see the same input.

Which grants "can matter" is a relevance filter, not a decision: every grant whose
subject is one of the principals (or their groups) and whose target is one of the
channels (or their spaces) is sent, expired ones included, and Rego decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import Connection

from app.domain.facts import FactBundle
from repositories.prepared import PreparedStatement

__all__ = ["FactsRepository", "as_bundle", "bundle_sql"]


def bundle_sql(pids: str, cids: str) -> str:
    """The fact bundle as one SQL expression of type ``json``.

    ``pids`` and ``cids`` are SQL expressions of type ``uuid[]`` (bound parameters or
    columns of an outer query), so another statement can embed the bundle as a
    scalar subquery and save a round trip.
    """
    return f"""
    (WITH p AS (
        SELECT id, kind, status, is_owner, acting_for FROM principals WHERE id = ANY({pids})
    ), pg AS (
        SELECT group_id, principal_id FROM group_members WHERE principal_id = ANY({pids})
    ), c AS (
        SELECT c.id, c.kind, c.archived_at IS NOT NULL AS archived, c.space_id
        FROM channels c WHERE c.id = ANY({cids})
    )
    SELECT json_build_object(
      'now', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
      'principals', COALESCE((
        SELECT json_object_agg(p.id, json_strip_nulls(json_build_object(
          'kind', p.kind, 'status', p.status, 'is_owner', p.is_owner,
          'groups', COALESCE((SELECT json_agg(pg.group_id ORDER BY pg.group_id)
                              FROM pg WHERE pg.principal_id = p.id), '[]'::json),
          'permissions', COALESCE((SELECT json_agg(pp.permission ORDER BY pp.permission)
                                   FROM principal_permissions pp
                                   WHERE pp.principal_id = p.id), '[]'::json),
          'acting_for', CASE WHEN p.acting_for = 'required' THEN p.acting_for END)))
        FROM p), '{{}}'::json),
      'channels', COALESCE((
        SELECT json_object_agg(c.id, json_build_object(
          'kind', c.kind, 'archived', c.archived, 'space_id', c.space_id,
          'members', COALESCE((SELECT json_agg(m.principal_id ORDER BY m.principal_id)
                               FROM channel_members m
                               WHERE m.channel_id = c.id AND m.principal_id = ANY({pids})),
                              '[]'::json)))
        FROM c), '{{}}'::json),
      'spaces', COALESCE((
        SELECT json_object_agg(s.id, json_build_object('archived', s.archived_at IS NOT NULL))
        FROM spaces s WHERE s.id IN (SELECT space_id FROM c)), '{{}}'::json),
      'grants', COALESCE((
        SELECT json_agg(json_strip_nulls(json_build_object(
          'subject', CASE WHEN g.subject_principal_id IS NOT NULL
                          THEN json_build_object('kind', 'principal', 'id', g.subject_principal_id)
                          ELSE json_build_object('kind', 'group', 'id', g.subject_group_id) END,
          'target', CASE WHEN g.target_channel_id IS NOT NULL
                         THEN json_build_object('kind', 'channel', 'id', g.target_channel_id)
                         ELSE json_build_object('kind', 'space', 'id', g.target_space_id) END,
          'level', g.level,
          'expires_at', to_char(g.expires_at AT TIME ZONE 'UTC',
                                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))) ORDER BY g.id)
        FROM grants g
        WHERE (g.subject_principal_id = ANY({pids})
               OR g.subject_group_id IN (SELECT group_id FROM pg))
          AND (g.target_channel_id IN (SELECT id FROM c)
               OR g.target_space_id IN (SELECT space_id FROM c))), '[]'::json)
    ))"""


# psycopg2 sends a list as a text[] literal: typed as text[], cast to uuid[] inside.
_PIDS = "CAST(CAST(:pids AS text[]) AS uuid[])"
_CIDS = "CAST(CAST(:cids AS text[]) AS uuid[])"
_BUNDLE = PreparedStatement("fact_bundle", f"SELECT {bundle_sql(_PIDS, _CIDS)} AS facts")


def as_bundle(value: Any) -> FactBundle:
    """The ``json`` column of a bundle as a :class:`FactBundle`.

    Raises:
        RuntimeError: the statement returned no object (a programming error).
    """
    if not isinstance(value, dict):
        raise RuntimeError("the fact bundle query returned no object")
    return cast(FactBundle, value)


class FactsRepository:
    """Builds fact bundles for OPA."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def bundle(self, principal_ids: Iterable[str], channel_ids: Iterable[str]) -> FactBundle:
        """The bundle covering these principals and channels (unknown ids are left out)."""
        pids = sorted(set(principal_ids))
        cids = sorted(set(channel_ids))
        return as_bundle(_BUNDLE.execute(self._conn, {"pids": pids, "cids": cids}).scalar_one())
