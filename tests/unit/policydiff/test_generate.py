"""The generated corpus: bounded, deterministic, derived from the policies, adequate."""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from policydiff.corpus import Record, dedupe, dump_records
from policydiff.generate import AROUND_NOW, DEFAULT_SEED, NOW, generate, generator
from tests.support.services import REPO_ROOT

POLICIES = REPO_ROOT / "policies"


@lru_cache(maxsize=1)
def _generated() -> tuple[Record, ...]:
    """The default corpus, generated once for the read-only tests of this module."""
    return tuple(generate(POLICIES))


def _digest(seed: int) -> str:
    return hashlib.sha256(b"".join(dump_records(generate(POLICIES, seed=seed)))).hexdigest()


def test_two_runs_with_one_seed_give_the_same_bytes() -> None:
    assert _digest(DEFAULT_SEED) == _digest(DEFAULT_SEED)


def test_the_seed_changes_only_the_mixtures() -> None:
    one = generate(POLICIES, seed=1, variants_of_pivots=False)
    other = generate(POLICIES, seed=2, variants_of_pivots=False)
    assert [r for r in one if r.label is not None] == [r for r in other if r.label is not None]
    assert [r for r in one if r.label is None] != [r for r in other if r.label is None]


def test_the_corpus_is_bounded_to_tens_of_thousands_of_distinct_records() -> None:
    records = _generated()
    assert 40_000 <= len(records) <= 60_000
    assert len(dedupe(records)) == len(records)


def test_every_entry_point_is_generated() -> None:
    entrypoints = Counter(record.entrypoint for record in _generated())
    assert set(entrypoints) == {
        "authz/decision",
        "runcontext/evaluate",
        "runcontext/trigger_holders",
        "sessioncontext/resolve",
        "privacy/attempt",
        "privacy/write",
    }


def _values(table: str, fact: str) -> set[str]:
    return _values_of(_generated(), table, fact)


def test_the_level_facts_vary_over_every_value() -> None:
    assert _values("message.post", "actor") == {"person", "owner", "agent", "app"}
    assert _values("message.post", "status") == {"active", "pending", "disabled", "deleted"}
    # The unknown status comes with the variants of the family's pivots.
    statuses = {
        principal.get("status")
        for record in _generated()
        if record.input.get("action") == "message.post"
        for principal in record.input["facts"].get("principals", {}).values()
        if isinstance(principal, dict)
    }
    assert "unknown" in statuses
    assert _values("message.post", "grant") == {"none", "read", "write", "trigger", "manage"}
    assert _values("message.post", "via") == {"-", "direct", "group", "space"}
    assert _values("message.post", "expiry") == {"-", "never", "future", "past"}
    assert _values("message.post", "member") == {"yes", "no"}
    assert _values("message.post", "channel") == {"regular", "dm"}
    assert _values("message.post", "archived") == {"none", "channel", "space"}


def test_run_trust_and_admin_facts_vary() -> None:
    assert _values("run.context.read", "run") == {
        "queued",
        "running",
        "waiting_input",
        "succeeded",
        "failed",
        "cancelled",
        "unknown",
        "no such run",
    }
    assert _values("run.context.read", "actor") >= {"run agent", "other agent"}
    assert _values("run context: role and trust", "origin") == {
        "human",
        "agent",
        "app",
        "import",
        "system",
        "unknown",
    }
    assert _values("run context: role and trust", "author") >= {
        "run agent",
        "other agent",
        "triggering person",
        "other person",
    }
    assert "expired trigger" in _values("run context: role and trust", "access")
    assert _values("admin.grants.create", "actor") == {"owner", "person", "agent", "app", "unknown"}


def test_table_labels_never_hold_the_separator_of_a_table_cell() -> None:
    for record in _generated():
        if record.label is not None:
            for value in record.label["facts"].values():
                assert ", " not in str(value)
                assert not str(value).startswith("not ")


def test_session_context_intents_come_from_the_registry(tmp_path: Path) -> None:
    registry = tmp_path / "sessioncontext" / "registry"
    registry.mkdir(parents=True)
    (registry / "data.json").write_text(
        '{"permissions": {"deadlines:read": "x"},'
        ' "surfaces": {"deadlines.board": {"required_permission": "deadlines:read"}},'
        ' "tools": {"list_deadlines": {"plane": "server"}}}'
    )
    intents = {
        str(record.label["facts"]["intent"])
        for record in generate(tmp_path)
        if record.label is not None and record.label["table"] == "session context: intents"
    }
    assert intents == {
        "list_deadlines",
        "list_deadlines on the client plane",
        "forged_admin_tool",
    }


def test_inputs_hold_no_content_handles_or_tokens() -> None:
    text = b"".join(dump_records(_generated())).decode()
    for forbidden in ("content_md", "display_name", "handle", "email", "token", "@example.com"):
        assert forbidden not in text


# ---------------------------------------------------------------- derived from the policies


def _edited(tmp_path: Path, name: str, old: str, new: str) -> Path:
    copy = tmp_path / "policies"
    shutil.copytree(POLICIES, copy)
    path = copy / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    return copy


def test_a_name_new_in_rego_is_generated_without_editing_the_generator(tmp_path: Path) -> None:
    policies = _edited(
        tmp_path,
        "runcontext/runcontext.rego",
        '} else := {"role": "other", "trust": "unverified"} if {\n\tauthor.origin in {"import", '
        '"app"}\n}',
        '} else := {"role": "other", "trust": "unverified"} if {\n\tauthor.origin in {"import", '
        '"app", "webhook"}\n}',
    )
    origins = {
        str(record.label["facts"]["origin"])
        for record in generate(policies, variants_of_pivots=False, mixtures=0)
        if record.label is not None and record.label["table"] == "run context: role and trust"
    }
    assert "webhook" in origins
    assert "unknown" in origins


def test_a_new_action_of_a_package_is_generated_by_its_family(tmp_path: Path) -> None:
    policies = _edited(
        tmp_path,
        "authz/messages/messages.rego",
        'actions := {"message.list", "message.read", "message.post"}',
        'actions := {"message.list", "message.read", "message.post", "message.react"}',
    )
    g = generator(policies)
    assert g.channel_actions == ("message.list", "message.read", "message.post", "message.react")
    assert g.run_actions == (
        "run.context.read",
        "provider.attempt",
        "run.content.write",
        "run.privacy.read",
    )
    assert g.runner_actions[:2] == ("runner.enroll", "runner.session.bind")
    records = generate(policies, variants_of_pivots=False, mixtures=0)
    assert _values_of(records, "message.react", "archived") == {"none", "channel", "space"}


def _values_of(records: Sequence[Record], table: str, fact: str) -> set[str]:
    return {
        str(record.label["facts"][fact])
        for record in records
        if record.label is not None and record.label["table"] == table
    }


def test_a_value_only_the_base_compares_is_generated_too(tmp_path: Path) -> None:
    base = _edited(
        tmp_path,
        "authz/runs/runs.rego",
        'live_states := {"queued", "running", "waiting_input"}',
        'live_states := {"queued", "running", "waiting_input", "paused"}',
    )
    states = generator(POLICIES, also=[base]).enum("state", ("queued",))
    assert "paused" in states
    assert "paused" not in generator(POLICIES).enum("state", ("queued",))


def test_the_vocabulary_comes_from_the_rules_and_the_registry() -> None:
    g = generator(POLICIES)
    rego = g.vocabulary.rego
    assert {"human", "agent", "app", "import", "system"} <= rego["origin"]
    assert {"queued", "running", "waiting_input", "provisioned", "bound"} <= rego["state"]
    assert "authz:inspect" in rego["permissions"]
    assert {"client", "server"} <= rego["plane"]
    assert "session_context.resolve" in rego["action"]
    assert {"authz:inspect", "matters:read", "matters:write"} <= set(
        g.vocabulary.names["permissions"]
    )


# ---------------------------------------------------------------- adequacy (issue 20)


def _any(predicate: Callable[[Record], bool]) -> bool:
    return any(predicate(record) for record in _generated())


def _grants(record: Record) -> list[Any]:
    facts = record.input.get("facts") if isinstance(record.input, dict) else None
    grants = facts.get("grants") if isinstance(facts, dict) else None
    return [grant for grant in grants or [] if isinstance(grant, dict)]


def _asks(record: Record, action: str, actor: str) -> bool:
    return bool(record.input.get("action") == action and record.input.get("actor") == actor)


def _grant_to_alex_on(record: Record, kind: str, target: str) -> bool:
    return record.entrypoint == "authz/decision" and any(
        grant.get("target") == {"kind": kind, "id": target}
        and grant.get("subject") == {"kind": "principal", "id": "alex"}
        for grant in _grants(record)
    )


def test_grants_on_another_channel_of_the_space_and_on_another_space_are_generated() -> None:
    for action in ("message.list", "message.read", "message.post"):
        asked = [record for record in _generated() if _asks(record, action, "alex")]
        assert any(_grant_to_alex_on(record, "channel", "billing") for record in asked)
        assert any(_grant_to_alex_on(record, "space", "marketing") for record in asked)


def test_expiries_lie_exactly_at_now_and_one_second_either_side() -> None:
    found = {
        grant.get("expires_at")
        for record in _generated()
        if record.input.get("action") == "message.read"
        for grant in _grants(record)
    }
    assert {NOW, *AROUND_NOW, "not-a-time"} <= found


def test_every_principal_kind_holds_authz_inspect() -> None:
    holders = {
        (principal.get("kind"), principal.get("is_owner"))
        for record in _generated()
        if record.input.get("action") == "authz.trigger_holders.query"
        for principal in record.input["facts"].get("principals", {}).values()
        if isinstance(principal, dict) and "authz:inspect" in principal.get("permissions", [])
    }
    assert {("user", False), ("user", True), ("agent", False), ("app", False)} <= holders


def test_stored_ceilings_are_malformed_in_every_way() -> None:
    explicit: set[str] = set()
    for record in _generated():
        if record.entrypoint != "privacy/attempt":
            continue
        ceilings = record.input["run"].get("ceilings")
        for ceiling in (ceilings or {}).values() if isinstance(ceilings, dict) else []:
            if not isinstance(ceiling, dict):
                explicit.add("not an object")
            elif "explicit" not in ceiling:
                explicit.add("missing")
            else:
                explicit.add(type(ceiling["explicit"]).__name__)
    assert explicit >= {"bool", "str", "missing", "not an object"}


def test_a_trigger_holder_posts_with_an_unknown_origin() -> None:
    assert _any(
        lambda r: (
            r.label is not None
            and r.label["table"] == "run context: role and trust"
            and r.label["facts"]["origin"] == "unknown"
            and r.label["facts"]["author"] == "triggering person"
            and r.label["facts"]["access"] == "trigger on the channel"
            and r.label["facts"]["status"] == "active"
        )
    )


def test_runner_resources_of_another_kind_are_generated() -> None:
    kinds = {
        record.input["resource"].get("kind")
        for record in _generated()
        if str(record.input.get("action", "")).startswith("runner.session.")
    }
    assert {"binding", "channel", "run", "agent", "unknown"} <= kinds


def test_runs_of_another_agent_and_in_another_channel_are_generated() -> None:
    resources = [
        record.input["resource"]
        for record in _generated()
        if record.input.get("action") == "run.context.read" and record.input.get("actor") == "lotse"
    ]
    assert any(resource.get("agent_id") == "texter" for resource in resources)
    assert any(resource.get("channel_id") == "billing" for resource in resources)


# ---------------------------------------------------------------- acting for (issue 21)

_RUN_STATES = {"queued", "running", "waiting_input", "succeeded", "failed", "cancelled"}


def test_the_acting_for_table_crosses_both_levels_with_every_run_state() -> None:
    table = "acting for a run"
    assert _values(table, "action") == {"message.list", "message.read", "message.post"}
    levels = {"none", "read", "write", "trigger", "manage"}
    assert _values(table, "agent_grant") == levels
    assert _values(table, "requester_grant") == levels
    assert _values(table, "run") == {"no run bound", "unknown", *_RUN_STATES}
    rows = [r for r in _generated() if r.label is not None and r.label["table"] == table]
    assert len(rows) == 3 * 5 * 5 * 8
    bound = [r for r in rows if r.label is not None and r.label["facts"]["run"] != "no run bound"]
    assert all(r.input["acting_for"]["requester"] == "alex" for r in bound)
    assert not any("acting_for" in r.input for r in rows if r not in bound)


def test_the_required_agents_table_crosses_the_attribute_run_and_level() -> None:
    table = "agents that act only for someone"
    assert _values(table, "acting_for") == {"absent", "optional", "required", "unknown"}
    assert _values(table, "bound_run") == {"none", "live", "ended"}
    assert _values(table, "agent_grant") == {"none", "read", "write"}
    assert len([r for r in _generated() if r.label and r.label["table"] == table]) == 3 * 4 * 3 * 3


def test_the_relay_and_binding_a_run_vary_the_run_and_whose_it_is() -> None:
    for action, fact in (("runner.comms.relay", "bound_run"), ("runner.session.run.bind", "run")):
        assert _values(action, fact) == {"-", "unknown", *_RUN_STATES}
        assert _values(action, "run_of") == {"-", "binding's agent", "other agent"}
    kinds = {
        record.input["resource"]["kind"]
        for record in _generated()
        if record.label is not None
        and record.input.get("action") in ("runner.session.run.bind", "runner.session.run.unbind")
    }
    assert kinds == {"binding"}


def _bound(record: Record) -> dict[str, Any] | None:
    acting_for = record.input.get("acting_for") if isinstance(record.input, dict) else None
    return acting_for if isinstance(acting_for, dict) else None


def test_the_requester_facts_are_varied_one_at_a_time() -> None:
    statuses, expiries, requesters, agents = set(), set(), set(), set()
    for record in _generated():
        acting_for = _bound(record)
        if acting_for is None or record.input.get("action") != "message.post":
            continue
        requester = acting_for.get("requester", "absent")
        requesters.add(requester)
        run = acting_for.get("run")
        agents.add(run.get("agent_id", "absent") if isinstance(run, dict) else "malformed")
        principal = record.input["facts"].get("principals", {}).get("alex")
        if isinstance(principal, dict) and requester == "alex":
            statuses.add(principal.get("status"))
            expiries |= {
                grant.get("expires_at")
                for grant in _grants(record)
                if grant.get("subject") == {"kind": "principal", "id": "alex"}
            }
    assert statuses >= {"active", "pending", "disabled", "deleted", "unknown"}
    assert expiries >= {NOW, *AROUND_NOW, "not-a-time"}
    assert requesters >= {"alex", "sam", "nobody", "absent"}
    assert agents >= {"lotse", "texter", "nobody", "absent"}


def test_a_malformed_acting_for_and_a_requester_reaching_every_way_are_generated() -> None:
    assert _any(lambda r: r.input.get("acting_for") == "malformed")
    ways: set[str] = set()
    for record in _generated():
        acting_for = _bound(record)
        if acting_for is None or acting_for.get("requester") != "alex":
            continue
        facts = record.input["facts"]
        alex = facts.get("principals", {}).get("alex")
        if isinstance(alex, dict) and alex.get("is_owner") is True:
            ways.add("owner")
        general = facts.get("channels", {}).get("general")
        if isinstance(general, dict) and "alex" in general.get("members", []):
            ways.add("member")
        for grant in _grants(record):
            if grant.get("subject") == {"kind": "group", "id": "team"}:
                ways.add("group")
            elif grant.get("subject") == {"kind": "principal", "id": "alex"}:
                target = grant.get("target")
                ways.add(str(target.get("kind") if isinstance(target, dict) else target))
    assert ways >= {"owner", "member", "group", "channel", "space"}


def test_a_relayed_action_added_to_the_requirements_is_generated(tmp_path: Path) -> None:
    policies = _edited(
        tmp_path,
        "authz/actingfor/requirements/data.json",
        '"message.post": "write"',
        '"message.post": "write",\n    "message.react": "write"',
    )
    reacts = [
        record
        for record in generate(policies, mixtures=0)
        if record.input.get("action") == "message.react" and "acting_for" in record.input
    ]
    assert any(record.label is not None for record in reacts)  # the table
    assert any(record.label is None for record in reacts)  # the pivots' variants
