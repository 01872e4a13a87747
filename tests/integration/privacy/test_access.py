"""Who may call the privacy endpoints, and where policies and content can come from.

The run's own agent on a queued, running or waiting-input run only; anyone else and
any other state get exactly the run context's 404. Provider and task policies come
from the admin facts API (instance owners) and the world format; neither can write a
run's steps, answer or ceilings.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import psycopg2
import pytest
import requests

from tests.support.client import comparable
from tests.support.privacy_world import PrivacyWorld, ceiling, privacy_world
from tests.support.world import load
from world import WorldError

pytestmark = pytest.mark.integration


def _calls(world: PrivacyWorld) -> dict[str, Callable[[str, str], requests.Response]]:
    return {
        "attempt": lambda run, as_: world.attempt_response(run, "open-full", as_=as_),
        "step": lambda run, as_: world.step_response(run, {"kind": "note"}, as_=as_),
        "answer": lambda run, as_: world.answer_response(run, as_=as_),
        "privacy": lambda run, as_: world.privacy_response(run, as_=as_),
        "rotate": lambda run, as_: world.rotate_response(run, '"0"', as_=as_),
    }


@pytest.mark.parametrize("call", ["attempt", "step", "answer", "privacy", "rotate"])
def test_everyone_but_the_runs_own_agent_on_an_active_run_gets_the_context_404(
    shared: PrivacyWorld, call: str
) -> None:
    run = shared.new_run()
    ended = shared.new_run(state="succeeded")
    send = _calls(shared)[call]
    reference = comparable(shared.client().get(f"/api/v1/runs/{uuid.uuid4()}/context"))
    assert reference[0] == 404

    answers = {
        "unknown run": send(str(uuid.uuid4()), "lotse"),
        "another agent with write on the channel": send(run, "texter"),
        "a person with trigger on the channel": send(run, "alex"),
        "the instance owner": send(run, "robin"),
        "an app": send(run, "importer"),
        "the own agent on an ended run": send(ended, "lotse"),
    }

    for who, response in answers.items():
        assert comparable(response) == reference, who
    row = shared.run_row(run)
    assert row["attempted_provider_ids"] == []
    assert row["sealed_envelope"] is None
    assert shared.steps(run) == []


@pytest.mark.parametrize("state", ["queued", "running", "waiting_input"])
def test_the_own_agent_is_served_in_every_active_state(shared: PrivacyWorld, state: str) -> None:
    run = shared.new_run(state=state)

    assert shared.attempt(run, "open-full")["audit_content"] == ceiling("full", True)
    assert shared.step(run, "x")["seq"] == 1


def test_without_a_token_every_privacy_endpoint_is_401(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    anonymous = shared.client(None)

    assert anonymous.get(f"/api/v1/runs/{run}/privacy").status_code == 401
    assert (
        anonymous.post(
            f"/api/v1/runs/{run}/provider-attempts",
            json={"attempt_id": "a1", "provider_id": "open-full", "kind": "chat"},
        ).status_code
        == 401
    )


# ------------------------------------------------------------ admin facts API


def test_only_an_instance_owner_sets_policies(shared: PrivacyWorld) -> None:
    for who in ("alex", "lotse"):
        client = shared.client(who)
        provider = client.request(
            "PUT", "/api/v1/admin/provider-policies/owned", json={"audit_content_ceiling": "full"}
        )
        task = client.request("PUT", "/api/v1/admin/task-policies/owned", json={})
        assert provider.status_code == 403, who
        assert provider.json()["reason"] == "not_owner"
        assert task.status_code == 403, who
    assert shared.sql("SELECT * FROM provider_policies WHERE provider_id = 'owned'") == []


def test_a_new_provider_policy_makes_the_provider_known(shared: PrivacyWorld) -> None:
    provider = f"new-{uuid.uuid4().hex[:8]}"
    run = shared.new_run()
    assert shared.attempt_response(run, provider).status_code == 403

    response = shared.client("robin").request(
        "PUT",
        f"/api/v1/admin/provider-policies/{provider}",
        json={"background_answer_ceiling": "none"},
    )

    assert response.status_code == 200
    assert response.json() == {"provider_id": provider, "background_answer_ceiling": "none"}
    assert shared.attempt(run, provider) == {
        "audit_content": ceiling("metadata", False),
        "background_answer": ceiling("none", True),
    }


def test_a_task_policy_set_through_the_admin_api_applies_to_its_runs(shared: PrivacyWorld) -> None:
    task = f"task-{uuid.uuid4().hex[:8]}"
    response = shared.client("robin").request(
        "PUT", f"/api/v1/admin/task-policies/{task}", json={"audit_content_ceiling": "none"}
    )
    assert response.json() == {"task_key": task, "audit_content_ceiling": "none"}
    run = shared.new_run(task_key=task)

    assert shared.attempt(run, "open-full")["audit_content"] == ceiling("none", True)
    assert shared.run_row(run)["task_key"] == task


@pytest.mark.parametrize("key", ["api.example.com:443", "UPPER", "open-full%0A", "a" * 65])
def test_a_policy_key_that_is_not_an_id_is_rejected(shared: PrivacyWorld, key: str) -> None:
    robin = shared.client("robin")

    provider = robin.request("PUT", f"/api/v1/admin/provider-policies/{key}", json={})
    task = robin.request("PUT", f"/api/v1/admin/task-policies/{key}", json={})

    # A newline does not even route (404); everything else breaks the id rules (422).
    assert provider.status_code in {404, 422}
    assert task.status_code in {404, 422}
    assert (provider.status_code == 404) == ("%0A" in key)
    valid = "'^[a-z0-9][a-z0-9._-]*$'"
    assert shared.sql(f"SELECT 1 FROM provider_policies WHERE provider_id !~ {valid}") == []
    assert shared.sql(f"SELECT 1 FROM task_policies WHERE task_key !~ {valid}") == []


def test_a_level_off_the_scale_is_rejected(shared: PrivacyWorld) -> None:
    response = shared.client("robin").request(
        "PUT", "/api/v1/admin/provider-policies/typo", json={"audit_content_ceiling": "ful"}
    )

    assert response.status_code == 422
    assert shared.sql("SELECT * FROM provider_policies WHERE provider_id = 'typo'") == []


def test_the_admin_api_cannot_write_a_runs_content_or_ceilings(shared: PrivacyWorld) -> None:
    robin = shared.client("robin")
    base = {
        "thread_id": shared.id("t1"),
        "agent_id": shared.id("lotse"),
        "triggering_message_id": shared.id("trig"),
    }

    for extra in (
        {"background_answer": "injected"},
        {"steps": [{"kind": "note", "content": "injected"}]},
        {"audit_content_ceiling": "full"},
        {"attempted_provider_ids": ["open-full"]},
        {"task_key": "Not A Key"},
    ):
        assert robin.post("/api/v1/admin/runs", json={**base, **extra}).status_code == 422, extra
    run = shared.new_run()
    patched = robin.patch(f"/api/v1/admin/runs/{run}", json={"state": "running", "answer": "x"})
    assert patched.status_code == 422


def test_an_unreadable_stored_policy_fails_closed(shared: PrivacyWorld) -> None:
    provider = f"bad-{uuid.uuid4().hex[:8]}"
    # Written around the API on purpose: a level the scale does not know (a typo, or a
    # level a reviewer removed from the scale) must never count as permissive.
    shared.sql(
        "INSERT INTO provider_policies (provider_id, audit_content_ceiling) "
        "VALUES (%(p)s, 'confidential')",
        p=provider,
    )
    run = shared.new_run()

    response = shared.attempt_response(run, provider)

    assert response.status_code == 503
    assert shared.run_row(run)["attempted_provider_ids"] == []


def test_an_unreadable_stored_run_ceiling_fails_closed(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.sql(
        "UPDATE runs SET audit_content_ceiling = 'legacy-level', "
        "background_answer_ceiling = 'none' WHERE id = %(id)s",
        id=run,
    )

    assert shared.attempt_response(run, "open-full").status_code == 503
    assert shared.step_response(run, {"kind": "note", "content": "x"}).status_code == 503
    assert shared.steps(run) == []
    # The read fails closed too (issue 19): never a level outside the contract's enum.
    read = shared.privacy_response(run)
    assert (read.status_code, read.json()["code"]) == (503, "service_unavailable")
    assert "legacy-level" not in read.text


def test_a_stored_provider_id_that_is_not_one_fails_the_read_closed(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.sql(
        "UPDATE runs SET attempted_provider_ids = ARRAY['https://llm.example.com/v1'] "
        "WHERE id = %(id)s",
        id=run,
    )

    read = shared.privacy_response(run)

    assert read.status_code == 503
    assert "llm.example.com" not in read.text


# ------------------------------------------------------------ world format


def test_the_world_format_loads_policies_and_a_runs_task(shared: PrivacyWorld) -> None:
    policies = shared.sql(
        "SELECT provider_id, audit_content_ceiling, background_answer_ceiling "
        "FROM provider_policies WHERE provider_id IN ('inherits', 'answer-meta') "
        "ORDER BY provider_id"
    )
    tasks = shared.sql("SELECT * FROM task_policies ORDER BY task_key")

    assert policies == [
        {
            "provider_id": "answer-meta",
            "audit_content_ceiling": "full",
            "background_answer_ceiling": "metadata",
        },
        {
            "provider_id": "inherits",
            "audit_content_ceiling": None,
            "background_answer_ceiling": None,
        },
    ]
    assert {
        "task_key": "hr-review",
        "audit_content_ceiling": None,
        "background_answer_ceiling": "metadata",
    } in tasks


def test_a_world_cannot_redefine_a_provider_that_exists(shared: PrivacyWorld) -> None:
    world: dict[str, Any] = {"provider_policies": [{"provider": "open-full"}]}

    with pytest.raises(WorldError, match=r"provider_policies\[0\]\.provider"):
        load(shared.database_url, world)


def test_a_world_run_carries_its_task(database_url: str) -> None:
    world = privacy_world()
    world["runs"][0]["task_key"] = "hr-review"

    ids = load(database_url, world)

    conn = psycopg2.connect(database_url)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT task_key FROM runs WHERE id = %s", (ids["historical"],))
            assert cursor.fetchone() == ("hr-review",)
    finally:
        conn.close()
