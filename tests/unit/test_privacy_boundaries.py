"""Static boundaries of the privacy guard, checked on the source tree.

* Only ``repositories/run_privacy.py`` writes run steps, the background answer, a run's
  ceilings, its attempted provider ids or its sealed envelope: the admin API, the world
  loader and every other module cannot write content around the guard.
* The adapter SDK imports nothing of the service (``app``, ``repositories``) and none
  of its server dependencies.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from world import WorldError, validate_world

ROOT = Path(__file__).resolve().parents[2]

# SQL that writes run content: inserts or updates of the tables, or an assignment of
# a run's content column to a bind parameter or SQL expression (not a Python keyword).
_CONTENT_WRITES = re.compile(
    r"INSERT\s+INTO\s+run_steps|UPDATE\s+run_steps|INSERT\s+INTO\s+run_provider_attempts"
    r"|\b(background_answer|\w+_ceiling|\w+_ceiling_explicit|attempted_provider_ids"
    r"|sealed_envelope)\s+=\s+(:|CASE\b|NULL\b|array_|EXCLUDED\b|')",
    re.IGNORECASE,
)
_GUARDED = {
    ROOT / "repositories" / "run_privacy.py",
    # Provider and task policy columns share the *_ceiling names; they are policies,
    # not a run's ceilings.
    ROOT / "repositories" / "privacy_policies.py",
}


def _sources() -> list[Path]:
    files = [*(ROOT / "app").rglob("*.py"), *(ROOT / "repositories").rglob("*.py")]
    return [
        path
        for path in files
        if "migrations" not in path.parts and path.name != "models.py" and path not in _GUARDED
    ]


def test_only_the_guarded_repository_writes_run_content() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in _sources()
        for match in _CONTENT_WRITES.finditer(path.read_text(encoding="utf-8"))
    ]

    assert offenders == []


def test_the_guarded_repository_is_the_one_that_does() -> None:
    text = (ROOT / "repositories" / "run_privacy.py").read_text(encoding="utf-8")

    assert _CONTENT_WRITES.search(text)


def test_the_sdk_imports_nothing_of_the_service() -> None:
    forbidden = ("app", "repositories", "sqlalchemy", "connexion", "psycopg2", "alembic")
    for path in (ROOT / "agent_sdk").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in forbidden, f"{path.name} imports {name}"


def _world_with_run(**run_fields: object) -> dict[str, object]:
    return {
        "agents": [{"handle": "lotse"}],
        "spaces": [
            {
                "name": "support",
                "channels": [{"name": "general", "messages": [{"key": "m1", "author": "lotse"}]}],
            }
        ],
        "runs": [
            {
                "key": "r1",
                "thread": "support/general",
                "agent": "lotse",
                "trigger": "m1",
                **run_fields,
            }
        ],
    }


@pytest.mark.parametrize(
    "field",
    [
        {"background_answer": "injected"},
        {"steps": [{"kind": "note", "content": "injected"}]},
        {"audit_content_ceiling": "full"},
        {"attempted_provider_ids": ["open-full"]},
        {"sealed_envelope": "c2VhbGVk"},
        {"task_key": "Not-Lower"},
    ],
)
def test_a_world_cannot_write_a_runs_content_ceilings_or_provenance(
    field: dict[str, object],
) -> None:
    with pytest.raises(WorldError, match=r"runs\[0\]"):
        validate_world(_world_with_run(**field))


def test_a_world_has_no_section_for_run_steps() -> None:
    world = _world_with_run()
    world["run_steps"] = [{"run": "r1", "payload": {}}]

    with pytest.raises(WorldError):
        validate_world(world)


def test_a_world_holds_policies_and_a_runs_task() -> None:
    world = _world_with_run(task_key="hr-review")
    world["provider_policies"] = [
        {"provider": "openai-eu", "audit_content_ceiling": "metadata"},
        {"provider": "inherits"},
    ]
    world["task_policies"] = [{"task": "hr-review", "background_answer_ceiling": "metadata"}]

    plan = validate_world(world)

    rows = dict(plan.inserts)
    assert rows["provider_policies"] == (
        {
            "provider_id": "openai-eu",
            "audit_content_ceiling": "metadata",
            "background_answer_ceiling": None,
        },
        {
            "provider_id": "inherits",
            "audit_content_ceiling": None,
            "background_answer_ceiling": None,
        },
    )
    assert rows["task_policies"][0]["task_key"] == "hr-review"
    assert rows["runs"][0]["task_key"] == "hr-review"
    assert rows.get("run_steps") is None


@pytest.mark.parametrize(
    ("section", "item", "path"),
    [
        ("provider_policies", {"provider": "https://api.example.com"}, r"provider_policies\[0\]"),
        (
            "provider_policies",
            {"provider": "eu", "audit_content_ceiling": "ful"},
            r"provider_policies\[0\]",
        ),
        ("provider_policies", {"provider": "eu\n"}, r"provider_policies\[0\]"),
        ("task_policies", {"task": "hr", "prompt": "x"}, r"task_policies\[0\]"),
    ],
)
def test_a_world_rejects_malformed_policies(section: str, item: dict[str, str], path: str) -> None:
    world = _world_with_run()
    world[section] = [item]

    with pytest.raises(WorldError, match=path):
        validate_world(world)


def test_a_world_rejects_a_provider_twice() -> None:
    world = _world_with_run()
    world["provider_policies"] = [{"provider": "eu"}, {"provider": "eu"}]

    with pytest.raises(WorldError, match=r"provider_policies\[1\]\.provider"):
        validate_world(world)
