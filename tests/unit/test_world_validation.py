"""World fixture validation without a database: every error names its path."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from world import WorldError, parse_world_yaml, validate_world
from world.schema import WORLD_SCHEMA

DEMO_WORLD = Path(__file__).resolve().parents[2] / "examples" / "demo-world.yaml"
CANARY = "canary-content-7f3a"


def _world() -> dict[str, Any]:
    """A small valid world; tests break one thing in a copy of it."""
    return {
        "people": [
            {"handle": "robin", "owner": True, "token": "tok-robin"},
            {"handle": "alex", "display_name": "Alex", "email": "alex@example.com"},
            {"handle": "sam", "token": "tok-sam"},
        ],
        "agents": [{"handle": "lotse", "owner": "robin", "home_channel": "support/general"}],
        "groups": [{"key": "helpers", "members": ["sam"]}],
        "spaces": [
            {
                "name": "support",
                "channels": [
                    {"name": "general", "operator": "lotse"},
                    {
                        "name": "other",
                        "messages": [
                            {"key": "m1", "author": "sam", "content": "hello"},
                            {"key": "m2", "author": "alex", "content": CANARY},
                            {"key": "m3", "author": "lotse", "content": "on it"},
                        ],
                    },
                ],
            }
        ],
        "grants": [
            {"key": "g1", "subject": "alex", "target": "space:support", "level": "trigger"},
            {"subject": "group:helpers", "target": "channel:support/general", "level": "read"},
        ],
        "threads": [
            {
                "key": "t1",
                "channel": "support/other",
                "parent": "m1",
                "messages": [{"key": "m4", "author": "alex", "content": "please"}],
            }
        ],
        "sessions": [{"key": "s1", "thread": "t1", "agent": "lotse", "started": True}],
        "runs": [
            {
                "key": "r1",
                "thread": "t1",
                "agent": "lotse",
                "session": "s1",
                "trigger": "m4",
                "triggered_by": "alex",
            }
        ],
    }


def _error(world: dict[str, Any]) -> WorldError:
    with pytest.raises(WorldError) as caught:
        validate_world(world)
    return caught.value


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(WORLD_SCHEMA)


def test_small_world_is_valid_and_maps_every_name() -> None:
    plan = validate_world(_world())
    assert set(plan.mapping) == {
        "robin", "alex", "sam", "lotse", "helpers", "support",
        "support/general", "support/general#main", "support/other", "support/other#main",
        "m1", "m2", "m3", "m4", "g1", "t1", "s1", "r1",
    }  # fmt: skip


def test_demo_world_is_valid() -> None:
    world = parse_world_yaml(DEMO_WORLD.read_text(encoding="utf-8"), source=str(DEMO_WORLD))
    plan = validate_world(world)
    assert {"robin", "alex", "sam", "writer", "lotse", "texter", "importer", "runner-1"} <= set(
        plan.mapping
    )


def test_null_means_absent() -> None:
    world = _world()
    world["threads"][0]["operator"] = None
    world["apps"] = None
    validate_world(world)


def test_unknown_key_names_its_path() -> None:
    world = _world()
    world["spaces"][0]["channels"][1]["messages"][2]["colour"] = "blue"
    error = _error(world)
    assert error.path == "spaces[0].channels[1].messages[2].colour"
    assert error.message.startswith("unknown key")


def test_unknown_top_level_section_names_it() -> None:
    error = _error({**_world(), "peoples": []})
    assert error.path == "peoples"


def test_unknown_principal_reference_names_its_path() -> None:
    world = _world()
    world["spaces"][0]["channels"][1]["messages"][2]["author"] = "bob"
    error = _error(world)
    assert str(error) == 'spaces[0].channels[1].messages[2].author: unknown principal "bob"'


def test_duplicate_handle_names_the_second_occurrence() -> None:
    world = _world()
    world["people"].append({"handle": "alex"})
    error = _error(world)
    assert error.path == "people[3].handle"
    assert "people[1].handle" in error.message


def test_handles_and_keys_share_one_namespace() -> None:
    world = _world()
    world["groups"][0]["key"] = "sam"
    error = _error(world)
    assert error.path == "groups[0].key"


def test_bad_level_names_its_path() -> None:
    world = _world()
    world["grants"][1]["level"] = "admin"
    error = _error(world)
    assert error.path == "grants[1].level"
    assert error.message == "must be one of: read, write, trigger, manage"


def test_bad_uuid_names_its_path() -> None:
    world = _world()
    world["people"][2]["id"] = "not-a-uuid"
    error = _error(world)
    assert str(error) == "people[2].id: must be a UUID"


def test_yaml_syntax_error_names_file_line_and_column() -> None:
    with pytest.raises(WorldError) as caught:
        parse_world_yaml("people:\n  - {handle: alex\n", source="broken.yaml")
    assert caught.value.path.startswith("broken.yaml:")
    assert caught.value.message.startswith("invalid YAML")


def test_duplicate_yaml_key_is_an_error() -> None:
    with pytest.raises(WorldError) as caught:
        parse_world_yaml("people:\n  - handle: alex\n    handle: sam\n", source="dup.yaml")
    assert caught.value.path == "dup.yaml:3:5"
    assert 'duplicate key "handle"' in caught.value.message


def test_yaml_timestamps_stay_strings() -> None:
    world = parse_world_yaml(
        "grants: [{subject: a, target: 'space:b', expires_at: 2025-01-01T00:00:00Z}]"
    )
    assert world["grants"][0]["expires_at"] == "2025-01-01T00:00:00Z"


def test_top_level_must_be_a_mapping() -> None:
    with pytest.raises(WorldError) as caught:
        parse_world_yaml("- just\n- a list\n")
    assert caught.value.path == "$"


@pytest.mark.parametrize(
    ("mutate", "path", "message"),
    [
        pytest.param(
            lambda w: w["spaces"][0]["channels"][1]["messages"][1].update(content=7),
            "spaces[0].channels[1].messages[1].content",
            "must be a string",
            id="wrong-type",
        ),
        pytest.param(
            lambda w: w["people"][0].pop("handle"),
            "people[0].handle",
            "is required",
            id="missing-required",
        ),
        pytest.param(
            lambda w: w["spaces"][0]["channels"][0].update(history_backfill_limit=-1),
            "spaces[0].channels[0].history_backfill_limit",
            "must be at least 0",
            id="negative-limit",
        ),
        pytest.param(
            lambda w: w["spaces"][0]["channels"][0].update(history_backfill_limit=2**31),
            "spaces[0].channels[0].history_backfill_limit",
            "must be at most 2147483647",
            id="limit-beyond-int4",
        ),
        pytest.param(
            lambda w: w["spaces"][0]["channels"][1]["messages"][0].update(content="a\x00b"),
            "spaces[0].channels[1].messages[0].content",
            "must not contain NUL characters",
            id="nul-in-content",
        ),
        pytest.param(
            lambda w: w["agents"][0].update(owner="lotse"),
            "agents[0].owner",
            '"lotse" is an agent, not a person',
            id="owner-not-a-person",
        ),
        pytest.param(
            lambda w: w["agents"][0].update(acting_for="sometimes"),
            "agents[0].acting_for",
            "must be one of: optional, required",
            id="acting-for-value",
        ),
        pytest.param(
            lambda w: w["people"][1].update(acting_for="required"),
            "people[1].acting_for",
            "unknown key (allowed: display_name, email, handle, id, owner, permissions, "
            "status, token)",
            id="acting-for-is-for-agents",
        ),
        pytest.param(
            lambda w: w["agents"][0].update(home_channel="support/nope"),
            "agents[0].home_channel",
            'unknown channel "support/nope"',
            id="unknown-home-channel",
        ),
        pytest.param(
            lambda w: w["spaces"][0]["channels"][0].update(operator="alex"),
            "spaces[0].channels[0].operator",
            '"alex" is a person, not an agent',
            id="operator-not-an-agent",
        ),
        pytest.param(
            lambda w: w["grants"][1].update(subject="group:nobody"),
            "grants[1].subject",
            'unknown group "nobody"',
            id="unknown-group",
        ),
        pytest.param(
            lambda w: w["grants"][0].update(target="space:nowhere"),
            "grants[0].target",
            'unknown space "nowhere"',
            id="unknown-space",
        ),
        pytest.param(
            lambda w: w["grants"][0].update(expires_at="2025-13-01T00:00:00Z"),
            "grants[0].expires_at",
            "must be an RFC 3339 date-time with a time zone",
            id="impossible-date",
        ),
        pytest.param(
            lambda w: w["grants"][0].update(expires_at="2025-01-01T00:00:00"),
            "grants[0].expires_at",
            "must be an RFC 3339 date-time with a time zone",
            id="date-without-zone",
        ),
        pytest.param(
            lambda w: w["threads"][0].update(parent="m9"),
            "threads[0].parent",
            'unknown message "m9"',
            id="unknown-parent",
        ),
        pytest.param(
            lambda w: w["threads"][0].update(parent="m4"),
            "threads[0].parent",
            "must not be a message of the thread itself",
            id="parent-inside-thread",
        ),
        pytest.param(
            lambda w: w["threads"][0]["messages"][0].update(system_code="thread.reopened"),
            "threads[0].messages[0].system_code",
            "is only allowed with origin system",
            id="system-code-without-system-origin",
        ),
        pytest.param(
            lambda w: w["threads"][0]["messages"].append(
                {"author": "alex", "at": "2000-01-01T00:00:00Z"}
            ),
            "threads[0].messages[1].at",
            "must be later than the previous message of the thread",
            id="time-going-backwards",
        ),
        pytest.param(
            lambda w: w["threads"][0]["messages"][0].update(reply_to="m4"),
            "threads[0].messages[0].reply_to",
            "a message cannot reply to itself",
            id="reply-to-itself",
        ),
        pytest.param(
            lambda w: w["sessions"].append({"key": "s2", "thread": "t1", "agent": "lotse"}),
            "sessions[1].current",
            "the thread already has a current session (sessions[0])",
            id="two-current-sessions",
        ),
        pytest.param(
            lambda w: w["runs"][0].update(thread="support/general"),
            "runs[0].session",
            "must be a session of the run's agent and thread",
            id="session-of-another-thread",
        ),
        pytest.param(
            lambda w: w["runs"][0].update(trigger="m2"),
            "runs[0].trigger",
            "must be a message of the run's thread or its parent message",
            id="trigger-outside-thread",
        ),
        pytest.param(
            lambda w: w.update(followups=[{"run": "r1", "message": "m9"}]),
            "followups[0].message",
            'unknown message "m9"',
            id="followup-unknown-message",
        ),
        pytest.param(
            lambda w: w.update(followups=[{"run": "r9", "message": "m4"}]),
            "followups[0].run",
            'unknown run "r9"',
            id="followup-unknown-run",
        ),
        pytest.param(
            lambda w: w["people"][1].update(token="tok-robin"),
            "people[1].token",
            "duplicate token (already used at people[0].token)",
            id="duplicate-token",
        ),
        pytest.param(
            lambda w: w["people"][1].update(
                id=w["people"][0].setdefault("id", "00000000-0000-4000-8000-000000000001")
            ),
            "people[1].id",
            "duplicate id (already used at people[0].id)",
            id="duplicate-id",
        ),
    ],
)
def test_invalid_world_names_the_path(mutate: Any, path: str, message: str) -> None:
    world = copy.deepcopy(_world())
    mutate(world)
    error = _error(world)
    assert (error.path, error.message) == (path, message)


def test_rfc3339_lower_case_separators_are_accepted() -> None:
    world = _world()
    world["grants"][0]["expires_at"] = "2030-01-01t00:00:00z"
    validate_world(world)


def test_a_parent_in_another_channel_models_a_moved_thread() -> None:
    world = _world()
    world["threads"][0]["channel"] = "support/general"
    validate_world(world)


def test_errors_never_echo_message_content() -> None:
    world = _world()
    world["spaces"][0]["channels"][1]["messages"][1]["author"] = "ghost"
    assert CANARY not in str(_error(world))
    world = _world()
    world["spaces"][0]["channels"][1]["messages"][1]["content"] = [CANARY]
    assert CANARY not in str(_error(world))
