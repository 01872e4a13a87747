"""The guard is wired where content is written, the mirrors of the scale agree, and no
content reaches a log.

* The production app factory wires one retention guard into every run-carrying write.
* The level names, step parts and reasons that Python, the contract and the world
  format mirror are the policy's own.
* Step content and answers reach neither the app log nor OPA's decision logs; the
  privacy inputs hold ids and level names only.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import requests

from app.config import load_settings
from app.domain.privacy import CEILING_LEVELS, STEP_PARTS
from app.http.routes import load_spec
from app.main import create_app
from app.policy.privacy_results import StepPart
from app.policy.results import REASONS
from app.usecases.retention_guard import RetentionGuard
from repositories.unit_of_work import GuardedUnitOfWork
from tests.support.privacy_world import PrivacyWorld
from tests.support.services import OpaServer
from world.schema import WORLD_SCHEMA

pytestmark = pytest.mark.integration

Start = Callable[..., tuple[PrivacyWorld, Any]]


def _data(opa_server: OpaServer, path: str) -> Any:
    response = requests.get(f"{opa_server.url}/v1/data/{path}", timeout=10)
    response.raise_for_status()
    return response.json()["result"]


def test_the_production_factory_wires_one_guard_into_every_run_carrying_write(
    opa_server: OpaServer,
) -> None:
    settings = load_settings(environ={}).replace(**{"opa.url": opa_server.url})
    app = create_app(settings)
    try:
        use_cases = app.services.use_cases
        guards = {
            id(use_case.guard)
            for use_case in (
                use_cases.record_provider_attempt,
                use_cases.append_run_step,
                use_cases.put_run_answer,
                use_cases.rotate_run_envelope,
            )
        }
        guard = use_cases.record_provider_attempt.guard
        assert isinstance(guard, RetentionGuard)
        assert guards == {id(guard)}
        assert guard.policy is app.services.policy
        assert isinstance(guard._units(), GuardedUnitOfWork)
    finally:
        app.services.close()


def test_the_level_names_are_the_scales(opa_server: OpaServer) -> None:
    levels = _data(opa_server, "privacy/scale/levels")
    spec = load_spec()["components"]["schemas"]

    assert list(CEILING_LEVELS) == levels
    assert spec["CeilingLevel"]["enum"] == levels
    assert WORLD_SCHEMA["$defs"]["ceiling_level"]["enum"] == levels


def test_the_step_parts_are_the_ones_the_scale_keeps(opa_server: OpaServer) -> None:
    retention = _data(opa_server, "privacy/scale/retention")
    kept = {part for row in retention.values() for part in row["step_parts"]}
    spec = load_spec()["components"]["schemas"]

    assert {part.value for part in StepPart} == kept
    assert set(STEP_PARTS) == kept
    assert set(spec["RunStepPart"]["enum"]) == kept
    assert set(spec["AppendRunStepRequest"]["properties"]) == kept


def test_the_reasons_are_the_policys(opa_server: OpaServer) -> None:
    assert set(_data(opa_server, "authz/results/reasons")) == REASONS


def _opa_log_with(opa_server: OpaServer, needle: str) -> str:
    deadline = time.monotonic() + 10
    text = opa_server.read_log()
    while needle not in text and time.monotonic() < deadline:
        time.sleep(0.1)
        text = opa_server.read_log()
    return text


def test_content_reaches_no_log_and_privacy_inputs_hold_ids_and_levels(
    start_privacy: Start, opa_server: OpaServer
) -> None:
    world, service = start_privacy()
    canary = f"canary-{uuid.uuid4().hex}"
    run = world.new_run(task_key="hr-review")
    attempt_id = f"attempt-{uuid.uuid4().hex}"

    world.attempt(run, "open-full", attempt_id=attempt_id)
    world.step(run, f"prompt with {canary}")
    world.answer(run, f"answer with {canary}")
    world.attempt(run, "strict-none")
    world.step(run, f"another prompt with {canary}")
    assert world.attempt_response(run, "shadow-llm").status_code == 403

    opa_log = _opa_log_with(opa_server, "shadow-llm")
    assert canary not in opa_log
    assert canary not in service.log.getvalue()
    entries = [json.loads(line) for line in opa_log.splitlines() if line.startswith("{")]
    decisions = [e for e in entries if e.get("path") in {"privacy/attempt", "privacy/write"}]
    assert {entry["path"] for entry in decisions} == {"privacy/attempt", "privacy/write"}
    privacy_inputs = [entry["input"] for entry in decisions]
    for sent in privacy_inputs:
        assert set(sent) <= {"run", "provider", "task"}
        assert set(sent["run"]) <= {"ceilings"}
        for ceiling in sent["run"].get("ceilings", {}).values():
            assert set(ceiling) == {"level", "explicit"}
        if "provider" in sent:
            assert set(sent["provider"]) <= {"id", "policy"}


def test_each_privacy_request_makes_at_most_two_opa_round_trips(start_privacy: Start) -> None:
    world, service = start_privacy()
    run = world.new_run()
    world.step(run, "before the attempt")
    etag = world.etag(run)

    requests_and_budgets: list[tuple[Callable[[], Any], int]] = [
        (lambda: world.attempt(run, "strict-none"), 2),  # authorize, ceilings (a scrub)
        (lambda: world.attempt(run, "open-full"), 2),  # authorize, ceilings
        (lambda: world.step(run, "after"), 2),  # authorize, ceilings
        (lambda: world.answer(run), 2),  # authorize, ceilings
        (lambda: world.privacy(run), 1),  # authorize
        (lambda: world.rotate_response(run, etag), 1),  # authorize
    ]
    for send, budget in requests_and_budgets:
        before = service.opa_calls
        send()
        assert service.opa_calls - before == budget
