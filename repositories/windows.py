"""Windows of a thread bounded by construction: a ``thread_seq`` range from the anchor.

A window is "the newest ``limit`` counted messages of a thread strictly between two
positions" (a context window counts only selectable messages: no tombstones, not the
excluded author; a listing page counts every message). Written as ``ORDER BY
thread_seq DESC LIMIT n`` alone, how much it reads depends on the plan: an index scan
backward stops after ``n`` rows, but a plan made without statistics (a bitmap scan of
the whole thread and a top-N sort) reads every message of the thread, and a prepared
statement keeps such a plan (ADR 0010).

So every window here is first given a lower bound computed from its anchor: the
recursive CTE of :func:`reach_cte` counts the counted messages in the ``limit + 1``
positions below the upper bound and, only when some of those positions hold
uncounted messages (tombstones, the excluded author, a gap), counts further down in
ranges that double, until ``limit + 1`` counted messages are found or the lower bound
(the floor) is reached. Every scan in it, and the window's own scan, has both ends of
its ``thread_seq`` range as index conditions, so whatever the plan (index scan,
bitmap scan, a sort) it reads only those positions: ``limit + 1`` in the common case,
at most twice the positions the answer spans otherwise. The window is exact: the
newest ``limit`` counted messages, and "older ones exist" is "``limit + 1`` were
found", the single extra row, not a scan of everything below.
"""

from __future__ import annotations

__all__ = ["reach_cte", "reach_found", "reach_low"]


def reach_cte(name: str, *, thread: str, after: str, before: str, limit: str, counted: str) -> str:
    """The recursive CTE ``name(lo, found)`` that bounds one window from below.

    Args:
        name: the CTE's name (unique in the statement, which must say ``WITH
            RECURSIVE``).
        thread: SQL of the thread id (a ``NULL`` thread gives no rows: no window).
        after: SQL of the exclusive lower bound (the floor; 0 for none).
        before: SQL of the exclusive upper bound (the anchor's ``thread_seq``).
        limit: SQL of the window's size.
        counted: the predicate of a counted message on the alias ``o``.

    Each row says that ``found`` counted messages lie in ``[lo, before)``; the last
    row (the smallest ``lo``) has at least ``limit + 1`` of them, or ``lo`` is the
    floor's next position. Read it with :func:`reach_low` and :func:`reach_found`.
    """
    # The next step covers what is still missing, or as much as all steps before it
    # (ranges double when positions hold uncounted messages), never below the floor.
    step = f"GREATEST(({limit}) + 1 - r.found, ({before}) - r.lo)"
    low = f"GREATEST(({after}) + 1, r.lo - {step})"
    return f"""{name}(lo, found) AS (
      SELECT CAST({before} AS bigint), CAST(0 AS bigint) WHERE ({thread}) IS NOT NULL
      UNION ALL
      SELECT {low}, r.found + (
          SELECT count(*) FROM messages o
          WHERE o.thread_id = ({thread})
            AND o.thread_seq >= {low} AND o.thread_seq < r.lo AND {counted})
      FROM {name} r
      WHERE r.found <= ({limit}) AND r.lo > ({after}) + 1
    )"""


def reach_low(name: str) -> str:
    """SQL of the window's inclusive lower bound (``NULL`` when there is no window)."""
    return f"(SELECT min(lo) FROM {name})"


def reach_found(name: str) -> str:
    """SQL of the number of counted messages in ``[low, before)`` (0 without a window)."""
    return f"COALESCE((SELECT max(found) FROM {name}), 0)"
