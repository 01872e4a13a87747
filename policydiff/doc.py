"""Decision tables for reading: ``docs/policy-decisions.md`` from the generated corpus.

Every generated record carries the facts it was built from (its ``label``). This
module evaluates the generated corpus once against the working tree's policies on a
scratch OPA, then, for every table (an action of ``data.authz.decision``, or a part of
a batch entry point), builds a decision tree over those facts: at each step it splits
on the fact that tells the answers apart best (information gain; ties go to the fact
listed first), merges the values that lead to the same subtree, and drops a fact that
never matters. Each leaf is one row: the facts that matter (``any`` where a fact does
not matter on that row), then the answer (allow, reason, status for decisions).

Actions whose tables come out identical (the admin actions, for instance) share one
section. The file is generated, deterministic, and checked by ``make test`` like the
configuration reference.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policydiff.corpus import Record
from policydiff.generate import ACTING_FOR_TABLE, REQUIRED_TABLE, generate
from policydiff.scratch import Outcome, ScratchOpa, replay

__all__ = ["Row", "render_decision_tables", "table_rows"]


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a decision table: conditions on facts, then the answer columns."""

    conditions: tuple[tuple[str, tuple[str, ...]], ...]
    answer: tuple[str, ...]


# --------------------------------------------------------------------- answers


def _decision(record: Record, outcome: Outcome) -> tuple[str, ...]:
    """allow, reason, HTTP status, then the acting-for mode and the sides that failed."""
    result = outcome.get("result")
    if not isinstance(result, dict):
        return ("undefined", "", "", NONE, NONE)
    allow = "yes" if result.get("allow") is True else "no"
    return (allow, str(result.get("reason")), str(result.get("status")), *_acting_for(result))


def _acting_for(result: dict[str, Any]) -> tuple[str, str]:
    """(mode, failed sides) of a decision; ``-`` where the decision names none."""
    acting_for = result.get("acting_for")
    if not isinstance(acting_for, dict):
        return (NONE, NONE)
    failed = acting_for.get("failed")
    if not isinstance(failed, list):
        return (str(acting_for.get("mode")), NONE)
    return (str(acting_for.get("mode")), " and ".join(map(str, failed)) or "none")


def _classes(record: Record, outcome: Outcome) -> tuple[str, ...]:
    result = outcome.get("result")
    if not isinstance(result, dict) or not result.get("classes"):
        return ("undefined", "")
    cls = result["classes"][0]
    return (str(cls.get("role")), str(cls.get("trust")))


def _readable(record: Record, outcome: Outcome) -> tuple[str, ...]:
    result = outcome.get("result")
    if not isinstance(result, dict) or not result.get("readable"):
        return ("undefined",)
    sent = record.input["threads"][0]["seqs"]
    seqs = result["readable"][0].get("seqs", [])
    if seqs == sent:
        return ("every candidate",)
    if not seqs:
        return ("none",)
    return ("up to the parent message" if max(seqs) == 40 else f"positions {seqs}",)


def _holders(record: Record, outcome: Outcome) -> tuple[str, ...]:
    result = outcome.get("result")
    if not isinstance(result, list):
        return ("undefined",)
    return ("yes" if record.input["candidates"][0] in result else "no",)


def _intent(record: Record, outcome: Outcome) -> tuple[str, ...]:
    result = outcome.get("result")
    if not isinstance(result, dict):
        return ("undefined", "")
    decision = result.get("decision") or {}
    if decision.get("allow") is not True:
        return (f"denied: {decision.get('reason')}", "-")
    intent = (result.get("intents") or [{}])[0]
    text = str(intent.get("decision"))
    if "reason" in intent:
        text += f": {intent['reason']}"
    return ("allowed", text)


def _ceiling(value: Any) -> str:
    if not isinstance(value, dict):
        return "-"
    return f"{value.get('level')}{' (explicit)' if value.get('explicit') else ''}"


def _go(outcome: Outcome) -> tuple[dict[str, Any] | None, str]:
    """The go answer, or None and the outcome's name (with its reason)."""
    result = outcome.get("result")
    if not isinstance(result, dict):
        return None, "undefined"
    if result.get("outcome") != "go":
        reason = (result.get("decision") or {}).get("reason")
        return None, str(result.get("outcome")) + (f": {reason}" if reason else "")
    return result, "go"


def _audit_ceiling(record: Record, outcome: Outcome) -> tuple[str, ...]:
    result, name = _go(outcome)
    if result is None:
        return (name, "-")
    return (name, _ceiling((result.get("ceilings") or {}).get("audit_content")))


def _answer_ceiling(record: Record, outcome: Outcome) -> tuple[str, ...]:
    result, name = _go(outcome)
    if result is None:
        return (name, "-", "-")
    kept = "yes" if (result.get("retention") or {}).get("answer") is True else "no"
    return (name, _ceiling((result.get("ceilings") or {}).get("background_answer")), kept)


_Answer = Callable[[Record, Outcome], tuple[str, ...]]

# Table name -> (answer columns, how to read the answer, introduction).
_TABLES: dict[str, tuple[tuple[str, ...], _Answer, str]] = {
    "run context: role and trust": (
        ("role", "trust"),
        _classes,
        "`runcontext/evaluate`, one author of the run `run-1` of the agent `lotse`, "
        "triggered by `alex` (the triggering person). `access` is the author's access "
        "to the run's channel.",
    ),
    "run context: readable candidates": (
        ("reads",),
        _readable,
        "`runcontext/evaluate` in filter mode: which candidate positions of one thread "
        "the actor reads. The run's parent message is position 40 of the main thread.",
    ),
    "trigger holders": (
        ("holder",),
        _holders,
        "`runcontext/trigger_holders` (and the `trigger_holders` of a context read): "
        "whether one candidate holds trigger on the channel.",
    ),
    "session context: intents": (
        ("resolve", "intent decision"),
        _intent,
        "`sessioncontext/resolve`: may the caller resolve, and the decision on one "
        "proposed intent. Surfaces sent: every registry surface and `unknown.surface`.",
    ),
    "privacy attempt: audit content ceiling": (
        ("outcome", "audit content"),
        _audit_ceiling,
        "`privacy/attempt`: the run's new audit-content ceiling before a provider "
        "attempt, from the run's stored ceiling, the provider's policy and the task's.",
    ),
    "privacy attempt: background answer ceiling": (
        ("outcome", "background answer", "answer kept"),
        _answer_ceiling,
        "`privacy/attempt`: the run's new background-answer ceiling and whether the "
        "stored answer stays.",
    ),
    "privacy write: audit content ceiling": (
        ("outcome", "audit content"),
        _audit_ceiling,
        "`privacy/write`: the audit-content ceiling before a run-step or answer write.",
    ),
    "privacy write: background answer ceiling": (
        ("outcome", "background answer", "answer kept"),
        _answer_ceiling,
        "`privacy/write`: the background-answer ceiling before a run-step or answer write.",
    ),
}
_DECISION_COLUMNS = ("allow", "reason", "HTTP status")
_ACTING_FOR_COLUMNS = ("acting for mode", "failed sides")

# Decision tables of several actions at once (the action is a fact), with their
# introduction; the others are named after their action.
_DECISION_TABLES = {
    ACTING_FOR_TABLE: (
        "`authz/decision` of a call of the agent Lotse (`actor`) on the channel "
        "`general`, relayed through a session with the run `run-1` bound (issue 21). "
        "`run` is that run's state (`no run bound`: the call carries no "
        "`input.acting_for`); its requester is Alex. `agent grant` and `requester "
        "grant` are each one direct grant on the channel (`none`: no grant). The "
        "requester's other facts (status, expiry, groups, the space, membership, "
        "archive flags) count exactly as an actor's do in the `message.*` tables: "
        "the requester's level is the same `levels.level`. The level the requester "
        "needs per action is policy data (`authz/actingfor/requirements`)."
    ),
    REQUIRED_TABLE: (
        "`authz/decision` of a call of the agent Lotse on `general` by its "
        "`acting_for` attribute (`absent`: the principal facts carry none, the "
        "default `optional`), the run bound to the session (`none`, `live`: "
        "running, `ended`: succeeded) and its own direct grant; the requester Alex "
        "is a member of the channel (write)."
    ),
}


# --------------------------------------------------------------------- the tree


def _entropy(answers: Sequence[tuple[str, ...]]) -> float:
    counts = Counter(answers)
    total = len(answers)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


Tree = tuple[Any, ...]  # ("leaf", answer) or ("split", fact, ((values, subtree), ...))


def _build(rows: list[tuple[dict[str, str], tuple[str, ...]]], facts: Sequence[str]) -> Tree:
    answers = [answer for _, answer in rows]
    distinct = sorted(set(answers))
    if len(distinct) == 1:
        return ("leaf", distinct[0])
    best: tuple[float, int, str] | None = None
    for position, fact in enumerate(facts):
        groups: dict[str, list[tuple[str, ...]]] = {}
        for row_facts, answer in rows:
            groups.setdefault(row_facts[fact], []).append(answer)
        if len(groups) < 2:
            continue
        remainder = sum(len(g) / len(rows) * _entropy(g) for g in groups.values())
        candidate = (remainder, position, fact)
        if best is None or candidate < best:
            best = candidate
    if best is None:  # identical facts, different answers: cannot happen with full labels
        return ("leaf", tuple(" / ".join(parts) for parts in zip(*distinct, strict=True)))
    fact = best[2]
    order: list[str] = []
    partition: dict[str, list[tuple[dict[str, str], tuple[str, ...]]]] = {}
    for row in rows:
        value = row[0][fact]
        if value not in partition:
            order.append(value)
            partition[value] = []
        partition[value].append(row)
    branches: list[tuple[list[str], Tree]] = []
    for value in order:
        subtree = _build(partition[value], [f for f in facts if f != fact])
        for branch in branches:
            if branch[1] == subtree:
                branch[0].append(value)
                break
        else:
            branches.append(([value], subtree))
    if len(branches) == 1:
        return branches[0][1]
    return ("split", fact, tuple((tuple(values), subtree) for values, subtree in branches))


def _leaves(tree: Tree, conditions: dict[str, tuple[str, ...]]) -> list[Row]:
    if tree[0] == "leaf":
        return [Row(conditions=tuple(conditions.items()), answer=tree[1])]
    rows: list[Row] = []
    for values, subtree in tree[2]:
        rows.extend(_leaves(subtree, {**conditions, tree[1]: values}))
    return rows


def table_rows(
    rows: list[tuple[dict[str, str], tuple[str, ...]]], facts: Sequence[str]
) -> tuple[list[str], list[Row]]:
    """The facts that matter (in ``facts`` order) and the rows of the decision table."""
    leaves = _leaves(_build(rows, facts), {})
    used = {fact for row in leaves for fact, _ in row.conditions}
    return [fact for fact in facts if fact in used], leaves


# --------------------------------------------------------------------- rendering


# The words a cell uses besides the values themselves (each is in the legend).
ANY, NOT, JOIN, NONE = "any", "not ", ", ", "-"


def _cell(values: tuple[str, ...] | None, domain: Sequence[str]) -> str:
    if values is None:
        return ANY
    if len(values) > 3 and len(values) == len(domain) - 1:
        (missing,) = [value for value in domain if value not in values]
        return f"{NOT}{missing}"
    return JOIN.join(values)


def check_labels(
    rows: list[tuple[dict[str, str], tuple[str, ...]]], columns: Sequence[str]
) -> None:
    """Fail on a table that could be read two ways.

    Raises:
        ValueError: two columns share a heading; a value contains the separator of a
            cell's list, starts like a negation, or is one of the legend's words.
    """
    facts = list(dict.fromkeys(fact for row, _ in rows for fact in row))
    headings = [fact.replace("_", " ") for fact in facts] + list(columns)
    repeated = sorted({heading for heading in headings if headings.count(heading) > 1})
    if repeated:
        raise ValueError(f"columns share a heading: {', '.join(repeated)}")
    for row, _ in rows:
        for fact, value in row.items():
            if JOIN.strip() in value or value.startswith(NOT) or value == ANY:
                raise ValueError(f"the value {value!r} of {fact!r} reads two ways in a table")


def _render_table(
    rows: list[tuple[dict[str, str], tuple[str, ...]]], facts: Sequence[str], columns: Sequence[str]
) -> list[str]:
    check_labels(rows, columns)
    used, leaves = table_rows(rows, facts)
    domains = {fact: list(dict.fromkeys(row[fact] for row, _ in rows)) for fact in used}
    header = [*(fact.replace("_", " ") for fact in used), *columns]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    for leaf in leaves:
        conditions = dict(leaf.conditions)
        cells = [_cell(conditions.get(fact), domains[fact]) for fact in used]
        lines.append("| " + " | ".join([*cells, *leaf.answer]) + " |")
    return lines


def _evaluate(records: list[Record], policies: Path, binary: Path) -> list[Outcome]:
    with (
        ScratchOpa(policies, binary=binary, name="working tree") as server,
        ThreadPoolExecutor(max_workers=4) as pool,
    ):
        (outcomes,) = replay(pool, (server,), records)
    return outcomes


_INTRO = """# Policy decision tables

Generated from the generated policy corpus by `make policy-doc` (`python -m app policy
doc`); do not edit by hand. CI fails when this file and the policies disagree.

Each table lists, for one action (or one part of a batch entry point), the facts that
matter and the answer the policies in `policies/` give. A row reads left to right:
when the facts match, the answer is the one on the right. Facts the generator varies
but that never change the answer are left out.

Legend of the cells:

* `any`: this fact does not matter on this row;
* `a, b`: the fact has one of these values;
* `not x`: the fact has any value but `x`;
* `-`: the fact does not apply: no grant (so no `via` and no `expiry`), no actor (so
  no `status` or `permission`), no agent to provision, no run bound or asked for (so
  no `run of`); in an answer column: no answer of that part (the call was refused
  before it); in `acting for mode`: the decision names no mode (the call carries no
  bound run); in `failed sides`: the decision is not in mode `run`;
* `unknown`: a value that neither the service's schema nor any rule lists (an
  origin, a state, a status the policies have never seen).

The facts are those of `policydiff/generate.py`:

* `actor`, `caller`, `candidate`, `author`: who asks or is asked about (`person` is
  Alex, `owner` Robin the instance owner, `agent` an agent, `app` an app, `run agent`
  the run's own agent, `other agent` another agent, `triggering person` the person
  who started the run, `unknown` an actor the facts do not know);
* `status`: the principal's status; `permission`: a permission the principal holds
  (`none`: none); `grant`, `via`, `expiry`: one grant on the channel path (its
  level; whether it names the principal on the channel, a group of the principal on
  the channel, or the principal on the channel's space; whether it never expires,
  expires in the future or expired); `member`: the principal is a member (or DM
  participant); `channel`: regular or DM; `archived`: which of the channel and its
  space is archived;
* `bound run` (`runner.comms.relay`) and `run` (`runner.session.run.bind`): the
  state of the run bound to the session or asked to be bound (`-`: none); `run of`:
  whose run it is, the binding's agent's or another agent's;
* the remaining facts are named after the input fields they set
  ([policy-input.md](policy-input.md)).

Answer columns: `allow`, `reason` and `HTTP status` of a decision (`HTTP status` is
the status the service answers, not a principal's status); where a decision names
the rights that decided it (a call relayed with a bound run, issue 21), also
`acting for mode` (`run`: decided for the agent and the run's requester; `own`: the
agent's own rights, the run has ended) and `failed sides` (in mode `run`: `agent`,
`requester`, `agent and requester`, or `none` when both allow). The other tables
name theirs in their introduction.

Every table shows the generated corpus's family records; its variants (another
channel, the expiry exactly now, malformed facts, ...) are replayed by the impact
diff but not tabled. How to review a change with these tables and the impact diff:
the [policy guide](policy-guide.md#reviewing-a-policy-change).
"""


def render_decision_tables(policies: Path, *, binary: Path) -> str:
    """``docs/policy-decisions.md`` for the policies in ``policies``.

    Raises:
        ScratchError: the scratch OPA does not start or load the policies.
    """
    records = [
        record
        for record in generate(policies, mixtures=0, variants_of_pivots=False, binary=binary)
        if record.label is not None
    ]
    outcomes = _evaluate(records, policies, binary)
    tables: dict[str, list[tuple[dict[str, str], tuple[str, ...]]]] = {}
    facts_of: dict[str, list[str]] = {}
    for record, outcome in zip(records, outcomes, strict=True):
        label = record.label or {}
        names = label["table"] if isinstance(label["table"], list) else [label["table"]]
        facts = {key: str(value) for key, value in label["facts"].items()}
        for name in map(str, names):
            facts_of.setdefault(name, list(facts))
            reader = _TABLES[name][1] if name in _TABLES else _decision
            tables.setdefault(name, []).append((facts, reader(record, outcome)))
    decision_sections: dict[tuple[str, ...], list[str]] = {}
    for name, rows in tables.items():
        if name in _TABLES:
            continue
        columns: tuple[str, ...] = _DECISION_COLUMNS + _ACTING_FOR_COLUMNS
        if all(answer[len(_DECISION_COLUMNS) :] == (NONE, NONE) for _, answer in rows):
            # No answer of this table names a mode: the acting-for columns are left out.
            columns = _DECISION_COLUMNS
            rows = [(facts, answer[: len(columns)]) for facts, answer in rows]
        body = tuple(_render_table(rows, facts_of[name], columns))
        decision_sections.setdefault(body, []).append(name)
    lines = [_INTRO, "## Decisions: `authz/decision`", ""]
    for body, actions in decision_sections.items():
        if actions[0] in _DECISION_TABLES:
            (name,) = actions
            lines += [f"### {name}", "", _DECISION_TABLES[name], "", *body, ""]
            continue
        lines += [f"### {', '.join(f'`{action}`' for action in actions)}", "", *body, ""]
    lines += ["## Batch entry points", ""]
    for name, (columns, _, introduction) in _TABLES.items():
        if name in tables:
            lines += [f"### {name}", "", introduction, ""]
            lines += [*_render_table(tables[name], facts_of[name], columns), ""]
    return "\n".join(lines).rstrip() + "\n"
