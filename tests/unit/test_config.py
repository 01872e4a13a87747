"""Configuration: key naming, sources and their precedence, types and minimums."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import SCHEMA, ConfigError, Key, Settings, load_settings, render_reference


def _key(name: str) -> Key:
    return next(key for key in SCHEMA if key.name == name)


@pytest.mark.parametrize(
    ("name", "env_name"),
    [
        ("agent.context_max_bytes", "AGENT_CONTEXT_MAX_BYTES"),
        ("agent.context_message_max_bytes", "AGENT_CONTEXT_MESSAGE_MAX_BYTES"),
        ("channel.history_backfill_limit_default", "CHANNEL_HISTORY_BACKFILL_LIMIT_DEFAULT"),
        ("channel.history_backfill_limit_max", "CHANNEL_HISTORY_BACKFILL_LIMIT_MAX"),
        ("audit.deny_aggregate_window", "AUDIT_DENY_AGGREGATE_WINDOW"),
        ("rate_limit.chat.per_minute", "RATE_LIMIT_CHAT_PER_MINUTE"),
        ("database.url", "DATABASE_URL"),
        ("opa.url", "OPA_URL"),
        ("opa.timeout_seconds", "OPA_TIMEOUT_SECONDS"),
        ("port", "PORT"),
    ],
)
def test_each_key_is_overridden_by_the_upper_case_underscore_variable(
    name: str, env_name: str
) -> None:
    assert _key(name).env_name == env_name


def test_a_dash_in_a_key_name_becomes_an_underscore() -> None:
    assert Key("a.b-c", str, "", "x").env_name == "A_B_C"


def test_the_schema_names_every_key_the_foundation_needs_once() -> None:
    names = [key.name for key in SCHEMA]

    assert len(names) == len(set(names))
    assert {
        "database.url",
        "opa.url",
        "opa.timeout_seconds",
        "port",
        "agent.context_max_bytes",
        "agent.context_message_max_bytes",
        "channel.history_backfill_limit_default",
        "channel.history_backfill_limit_max",
        "audit.deny_aggregate_window",
    } <= set(names)
    assert len({key.env_name for key in SCHEMA}) == len(names)
    assert all(key.description for key in SCHEMA)


def test_defaults_apply_without_file_or_environment() -> None:
    settings = load_settings(environ={})

    for key in SCHEMA:
        if key.type is int:
            assert settings.integer(key.name) == key.default
        elif key.type is float:
            assert settings.number(key.name) == key.default
        elif key.type is bool:
            assert settings.flag(key.name) is key.default
        else:
            assert settings.text(key.name) == key.default


@pytest.mark.parametrize(("raw", "expected"), [("true", True), ("0", False), ("on", True)])
def test_a_boolean_key_reads_the_usual_spellings(raw: str, expected: bool) -> None:
    settings = load_settings(environ={"POLICY_REQUIRE_BUNDLE_REVISION": raw})

    assert settings.flag("policy.require_bundle_revision") is expected


def test_a_boolean_key_refuses_other_words() -> None:
    with pytest.raises(ConfigError, match="POLICY_REQUIRE_BUNDLE_REVISION"):
        load_settings(environ={"POLICY_REQUIRE_BUNDLE_REVISION": "maybe"})


def test_the_environment_overrides_the_defaults() -> None:
    settings = load_settings(
        environ={
            "AGENT_CONTEXT_MAX_BYTES": "4096",
            "DATABASE_URL": "postgresql://db/x",
            "OPA_URL": "http://opa:8181",
            "PORT": "9000",
            "OPA_TIMEOUT_SECONDS": "0.25",
        }
    )

    assert settings.integer("agent.context_max_bytes") == 4096
    assert settings.text("database.url") == "postgresql://db/x"
    assert settings.text("opa.url") == "http://opa:8181"
    assert settings.integer("port") == 9000
    assert settings.number("opa.timeout_seconds") == 0.25


def test_the_file_overrides_defaults_and_the_environment_overrides_the_file(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "agent.context_max_bytes: 2048\nchannel.history_backfill_limit_max: 40\nport: 8181\n",
        encoding="utf-8",
    )

    settings = load_settings(environ={"CONFIG_FILE": str(config), "PORT": "9090"})

    assert settings.integer("agent.context_max_bytes") == 2048
    assert settings.integer("channel.history_backfill_limit_max") == 40
    assert settings.integer("port") == 9090
    assert (
        settings.integer("audit.deny_aggregate_window")
        == _key("audit.deny_aggregate_window").default
    )


def test_an_explicit_config_file_argument_wins_over_config_file_in_the_environment(
    tmp_path: Path,
) -> None:
    chosen, ignored = tmp_path / "chosen.yaml", tmp_path / "ignored.yaml"
    chosen.write_text("port: 1111\n", encoding="utf-8")
    ignored.write_text("port: 2222\n", encoding="utf-8")

    settings = load_settings(environ={"CONFIG_FILE": str(ignored)}, config_file=str(chosen))

    assert settings.integer("port") == 1111


def test_an_empty_file_gives_the_defaults(tmp_path: Path) -> None:
    config = tmp_path / "empty.yaml"
    config.write_text("", encoding="utf-8")

    assert load_settings(environ={}, config_file=str(config)).integer("port") == 8080


def test_an_unknown_key_in_the_file_is_rejected_by_name(tmp_path: Path) -> None:
    config = tmp_path / "typo.yaml"
    config.write_text("agent.context_max_byte: 10\n", encoding="utf-8")

    with pytest.raises(ConfigError, match=r"agent\.context_max_byte"):
        load_settings(environ={}, config_file=str(config))


def test_a_file_that_is_not_a_mapping_is_rejected(tmp_path: Path) -> None:
    config = tmp_path / "list.yaml"
    config.write_text("- port\n- 8080\n", encoding="utf-8")

    with pytest.raises(ConfigError, match="mapping"):
        load_settings(environ={}, config_file=str(config))


def test_unknown_environment_variables_are_ignored() -> None:
    settings = load_settings(environ={"AGENT_CONTEXT_MAX_BYTE": "1", "HOME": "/root"})

    assert settings.integer("agent.context_max_bytes") == _key("agent.context_max_bytes").default


@pytest.mark.parametrize(
    ("env_name", "raw"),
    [
        ("AGENT_CONTEXT_MAX_BYTES", "0"),
        ("AGENT_CONTEXT_MESSAGE_MAX_BYTES", "-5"),
        ("AUDIT_DENY_AGGREGATE_WINDOW", "0"),
        ("PORT", "0"),
        ("OPA_TIMEOUT_SECONDS", "0"),
        ("CHANNEL_HISTORY_BACKFILL_LIMIT_MAX", "-1"),
        ("RATE_LIMIT_CHAT_PER_MINUTE", "-1"),
    ],
)
def test_a_value_below_the_minimum_is_rejected_naming_key_and_source(
    env_name: str, raw: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={env_name: raw})

    message = str(caught.value)
    assert env_name in message
    assert "at least" in message


def test_the_minimum_itself_is_accepted() -> None:
    settings = load_settings(
        environ={
            "CHANNEL_HISTORY_BACKFILL_LIMIT_DEFAULT": "0",
            "RATE_LIMIT_CHAT_PER_MINUTE": "0",
            "AGENT_CONTEXT_MAX_BYTES": "1",
        }
    )

    assert settings.integer("channel.history_backfill_limit_default") == 0
    assert settings.integer("rate_limit.chat.per_minute") == 0
    assert settings.integer("agent.context_max_bytes") == 1


@pytest.mark.parametrize("raw", ["abc", "1.5", "", "0x10", "1e3"])
def test_a_non_integer_for_an_integer_key_is_rejected_without_echoing_it(raw: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"AGENT_CONTEXT_MAX_BYTES": raw})

    assert "AGENT_CONTEXT_MAX_BYTES" in str(caught.value)
    assert "expected int" in str(caught.value)
    if raw:
        assert raw not in str(caught.value)


def test_a_float_in_the_file_for_an_integer_key_is_rejected(tmp_path: Path) -> None:
    config = tmp_path / "float.yaml"
    config.write_text("agent.context_max_bytes: 10.5\n", encoding="utf-8")

    with pytest.raises(ConfigError, match=r"agent\.context_max_bytes"):
        load_settings(environ={}, config_file=str(config))


@pytest.mark.parametrize("raw", ["true", "false"])
def test_a_boolean_in_the_file_for_a_number_key_is_rejected(tmp_path: Path, raw: str) -> None:
    config = tmp_path / "bool.yaml"
    config.write_text(f"port: {raw}\nopa.timeout_seconds: {raw}\n", encoding="utf-8")

    with pytest.raises(ConfigError):
        load_settings(environ={}, config_file=str(config))


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf"])
def test_a_non_finite_float_is_rejected(raw: str) -> None:
    with pytest.raises(ConfigError, match="OPA_TIMEOUT_SECONDS"):
        load_settings(environ={"OPA_TIMEOUT_SECONDS": raw})


def test_an_integer_is_accepted_for_a_float_key() -> None:
    assert load_settings(environ={"OPA_TIMEOUT_SECONDS": "3"}).number("opa.timeout_seconds") == 3


FLAG = Key("feature.flag", bool, False, "A switch.")


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", " yes ", "on", "On", True])
def test_true_spellings_parse_as_true(raw: object) -> None:
    assert FLAG.parse(raw, "test") is True


@pytest.mark.parametrize("raw", ["0", "false", "False", "no", "OFF", False])
def test_false_spellings_parse_as_false(raw: object) -> None:
    assert FLAG.parse(raw, "test") is False


@pytest.mark.parametrize("raw", ["maybe", "", "2", "tru", None])
def test_other_spellings_of_a_boolean_are_rejected(raw: object) -> None:
    with pytest.raises(ConfigError, match=r"feature\.flag \(test\): expected bool"):
        FLAG.parse(raw, "test")


def test_replace_parses_and_checks_the_minimum_by_key_name() -> None:
    settings = load_settings(environ={})

    changed = settings.replace(**{"agent.context_max_bytes": "64", "opa.timeout_seconds": 1})

    assert changed.integer("agent.context_max_bytes") == 64
    assert changed.number("opa.timeout_seconds") == 1.0
    assert settings.integer("agent.context_max_bytes") == _key("agent.context_max_bytes").default
    with pytest.raises(ConfigError):
        settings.replace(**{"agent.context_max_bytes": 0})
    with pytest.raises(KeyError):
        settings.replace(**{"agent.no_such_key": 1})


def test_reading_an_unknown_key_is_a_programming_error() -> None:
    settings = Settings({})

    with pytest.raises(KeyError):
        settings.integer("agent.context_max_bytes")


def test_the_reference_has_one_row_per_key_with_its_environment_variable() -> None:
    reference = render_reference()
    rows = [line for line in reference.splitlines() if line.startswith("| `")]

    assert len(rows) == len(SCHEMA)
    for key, row in zip(SCHEMA, rows, strict=True):
        assert row.startswith(f"| `{key.name}` | `{key.env_name}` |")
    assert reference.endswith("\n")


def test_a_value_above_the_maximum_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"http\.max_validation_errors .*at most 100"):
        load_settings(environ={"HTTP_MAX_VALIDATION_ERRORS": "101"})
    assert (
        load_settings(environ={"HTTP_MAX_VALIDATION_ERRORS": "100"}).integer(
            "http.max_validation_errors"
        )
        == 100
    )
