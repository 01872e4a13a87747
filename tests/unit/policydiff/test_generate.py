"""The generated corpus: bounded, deterministic, covering each fact dimension."""

from __future__ import annotations

import hashlib
from collections import Counter
from functools import lru_cache
from pathlib import Path

from policydiff.corpus import Record, dedupe, dump_records
from policydiff.generate import DEFAULT_SEED, generate
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
    one, other = generate(POLICIES, seed=1), generate(POLICIES, seed=2)
    assert [r for r in one if r.label is not None] == [r for r in other if r.label is not None]
    assert [r for r in one if r.label is None] != [r for r in other if r.label is None]


def test_the_corpus_is_bounded_to_tens_of_thousands_of_distinct_records() -> None:
    records = _generated()
    assert 20_000 <= len(records) <= 60_000
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
    return {
        str(record.label["facts"][fact])
        for record in _generated()
        if record.label is not None and record.label["table"] == table
    }


def test_the_level_facts_vary_over_every_value() -> None:
    assert _values("message.post", "actor") == {"person", "owner", "agent", "app"}
    assert _values("message.post", "status") == {"active", "pending", "disabled", "deleted"}
    assert _values("message.post", "grant") == {"none", "read", "write", "trigger", "manage"}
    assert _values("message.post", "via") == {"-", "direct", "group", "space"}
    assert _values("message.post", "expiry") == {"-", "never", "future", "past"}
    assert _values("message.post", "member") == {"yes", "no"}
    assert _values("message.post", "channel") == {"regular", "dm"}
    assert _values("message.post", "archived") == {"none", "channel", "space", "both"}


def test_run_trust_and_admin_facts_vary() -> None:
    assert _values("run.context.read", "run") >= {
        "queued",
        "running",
        "waiting_input",
        "succeeded",
        "failed",
        "cancelled",
    }
    assert _values("run.context.read", "actor") >= {"run agent", "other agent"}
    assert _values("run context: role and trust", "origin") == {
        "human",
        "agent",
        "app",
        "import",
        "system",
    }
    assert _values("run context: role and trust", "author") >= {
        "run agent",
        "other agent",
        "triggering person",
        "other person",
    }
    assert "trigger, expired" in _values("run context: role and trust", "access")
    assert _values("admin.grants.create", "actor") >= {"owner", "person", "agent", "app", "unknown"}


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
