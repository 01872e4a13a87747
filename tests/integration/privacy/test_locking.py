"""The run-row lock: stale handles, independent connections, timeouts, rollback, races.

decisions.md S4-3: tightening and content writes serialise on the run row; every
content write rereads the ceiling under the lock with a current locking read; a failure in
filtering, locking or persistence rolls back and refuses dispatch; the guard never
runs inside an outer transaction.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg2
import psycopg2.extensions
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from agent_sdk.privacy import AttemptRefused, build_dispatcher
from app.errors import InternalError
from app.opa_client import OpaClient
from app.policy import PolicyGateway
from app.usecases.authorization import Authorizer
from app.usecases.retention_guard import RetentionGuard
from app.usecases.run_privacy import RecordProviderAttempt
from repositories import make_engine
from repositories.audit import SqlDenialAudit
from repositories.principals import Actor
from repositories.run_privacy import StaleRunLock
from repositories.unit_of_work import GuardedUnitOfWork
from tests.support.privacy_world import PrivacyWorld, ceiling
from tests.support.services import OpaServer

pytestmark = pytest.mark.integration

Start = Callable[..., tuple[PrivacyWorld, Any]]

_TIGHTEN_BY_HAND = """
UPDATE runs SET audit_content_ceiling = 'none', audit_content_ceiling_explicit = true,
  background_answer_ceiling = 'none', background_answer_ceiling_explicit = true,
  background_answer = NULL, envelope_version = envelope_version + 1
WHERE id = %(id)s
"""


def _wait_until_a_backend_waits_for_a_lock(world: PrivacyWorld, timeout: float = 10.0) -> None:
    """Poll pg_stat_activity until some backend waits on a lock (no fixed sleeps)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = world.sql(
            "SELECT count(*) AS waiting FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        if rows[0]["waiting"] >= 1:
            return
        time.sleep(0.02)
    raise AssertionError("no backend started waiting for the run lock")


def _lotse(world: PrivacyWorld) -> Actor:
    return Actor(id=world.id("lotse"), kind="agent", status="active", is_owner=False)


@pytest.fixture(scope="module")
def engine(shared: PrivacyWorld) -> Iterator[Engine]:
    """An engine of its own on the shared database (an independent integration)."""
    engine = make_engine(shared.database_url, pool_size=2)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def gateway(opa_server: OpaServer) -> Iterator[PolicyGateway]:
    """The real policies through their own client."""
    client = OpaClient(opa_server.url, timeout=2.0, pool_size=2)
    yield PolicyGateway(client)
    client.close()


def _attempt_use_case(
    engine: Engine, gateway: PolicyGateway, unit: Callable[[], GuardedUnitOfWork]
) -> RecordProviderAttempt:
    authorizer = Authorizer(gateway, SqlDenialAudit(engine, window_seconds=300))
    guard = RetentionGuard(units=unit, authorizer=authorizer, policy=gateway, lock_timeout_ms=2000)
    return RecordProviderAttempt(guard=guard)


def _body(provider_id: str) -> dict[str, str]:
    return {"attempt_id": uuid.uuid4().hex, "provider_id": provider_id, "kind": "chat"}


# ------------------------------------------------------------ stale handles


def test_a_client_with_a_stale_view_cannot_restore_content_after_tightening(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    assert shared.attempt(run, "open-full")["audit_content"] == ceiling("full", True)
    seen_by_the_worker = shared.privacy(run)  # the worker's in-memory view: "full"

    shared.attempt(run, "strict-none")  # another worker tightens
    stored = shared.step(run, "written after the tightening with the old view")

    assert seen_by_the_worker["ceilings"]["audit_content"]["level"] == "full"
    assert stored["kept"] == ["kind"]
    assert shared.steps(run) == [{"kind": "chat_request", "retention": "none"}]
    assert not shared.answer(run)


def test_a_run_lock_handle_is_refused_outside_its_transaction(
    shared: PrivacyWorld, engine: Engine
) -> None:
    run = shared.new_run()
    with GuardedUnitOfWork(engine) as first:
        first.begin()
        handle = first.run_privacy.lock(
            run, actor_id=shared.id("lotse"), provider_id=None, lock_timeout_ms=1000
        )
        assert handle is not None
        first.commit()
        with pytest.raises(StaleRunLock):
            first.run_privacy.insert_step(handle, {"kind": "note", "content": "late"})
    with GuardedUnitOfWork(engine) as second:
        second.begin()
        assert second.run_privacy.lock(
            run, actor_id=shared.id("lotse"), provider_id=None, lock_timeout_ms=1000
        )
        with pytest.raises(StaleRunLock):
            second.run_privacy.set_answer(handle, "restored from an old handle")
    assert shared.steps(run) == []
    assert shared.run_row(run)["background_answer"] is None


# ------------------------------------------------------------ independent connections


def test_a_write_waits_for_a_concurrent_tightening_and_sees_it(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")
    with shared.connection() as holder:
        with holder.cursor() as cursor:
            cursor.execute("SELECT id FROM runs WHERE id = %(id)s FOR UPDATE", {"id": run})
            cursor.execute(_TIGHTEN_BY_HAND, {"id": run})
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(shared.step, run, "full content written during the tightening")
            _wait_until_a_backend_waits_for_a_lock(shared)
            assert not pending.done()
            holder.commit()
            stored = pending.result(timeout=10)

    assert stored["kept"] == ["kind"]
    assert shared.steps(run) == [{"kind": "chat_request", "retention": "none"}]


def test_a_repeatable_read_connection_cannot_write_from_a_stale_snapshot(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")
    independent = make_engine(shared.database_url, pool_size=1, isolation_level="REPEATABLE READ")
    try:
        with shared.connection() as holder:
            with holder.cursor() as cursor:
                cursor.execute("SELECT id FROM runs WHERE id = %(id)s FOR UPDATE", {"id": run})
                cursor.execute(_TIGHTEN_BY_HAND, {"id": run})

            def write_in_repeatable_read() -> None:
                with GuardedUnitOfWork(independent) as unit:
                    unit.begin()
                    locked = unit.run_privacy.lock(
                        run, actor_id=shared.id("lotse"), provider_id=None, lock_timeout_ms=5000
                    )
                    assert locked is not None
                    unit.run_privacy.insert_step(locked, {"kind": "note", "content": "stale"})
                    unit.commit()

            with ThreadPoolExecutor(max_workers=1) as pool:
                pending = pool.submit(write_in_repeatable_read)
                _wait_until_a_backend_waits_for_a_lock(shared)
                holder.commit()
                with pytest.raises(OperationalError):
                    pending.result(timeout=10)
    finally:
        independent.dispose()

    assert shared.steps(run) == []
    assert shared.run_row(run)["audit_content_ceiling"] == "none"


def test_a_lock_held_too_long_is_a_503_and_changes_nothing(start_privacy: Start) -> None:
    world, service = start_privacy(**{"privacy.lock_timeout_ms": 150})
    run = world.new_run()
    with world.connection() as holder:
        with holder.cursor() as cursor:
            cursor.execute("SELECT id FROM runs WHERE id = %(id)s FOR UPDATE", {"id": run})
        started = time.monotonic()
        attempt = world.attempt_response(run, "open-full")
        step = world.step_response(run, {"kind": "note", "content": "waiting"})
        elapsed = time.monotonic() - started
        holder.rollback()

    assert attempt.status_code == 503
    assert step.status_code == 503
    assert elapsed < 4.0  # well below database.statement_timeout_ms twice over
    assert world.run_row(run)["attempted_provider_ids"] == []
    assert world.steps(run) == []
    assert '"reason": "lock_timeout"' in service.log.getvalue()
    assert world.attempt(run, "open-full")["audit_content"] == ceiling("full", True)


# ------------------------------------------------------------ scrub failure


def test_a_scrub_failure_rolls_back_and_refuses_dispatch(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")
    shared.step(run, "content that the scrub would remove")
    assert shared.answer(run, "An answer the scrub would remove.")
    before = shared.run_row(run)
    function = f"fail_scrub_{uuid.uuid4().hex[:8]}"
    shared.sql(
        f"""CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.run_id = '{run}' THEN RAISE EXCEPTION 'injected scrub failure'; END IF;
          RETURN NEW;
        END $$"""
    )
    shared.sql(
        f"CREATE TRIGGER {function} BEFORE UPDATE ON run_steps "
        f"FOR EACH ROW EXECUTE FUNCTION {function}()"
    )
    called: list[str] = []
    try:
        refused = shared.attempt_response(run, "strict-none")
        dispatcher = build_dispatcher(shared.base_url, "tok-lotse")
        with pytest.raises(AttemptRefused):
            dispatcher.chat(
                lambda provider, request: called.append(provider),
                {"messages": []},
                provider_id="strict-none",
                run_id=run,
            )
    finally:
        shared.sql(f"DROP TRIGGER {function} ON run_steps")
        shared.sql(f"DROP FUNCTION {function}()")

    assert refused.status_code == 500
    assert called == []
    assert shared.run_row(run) == before
    assert shared.steps(run)[0]["content"] == "content that the scrub would remove"
    assert [a["provider_id"] for a in shared.attempts(run)] == ["open-full"]


# ------------------------------------------------------------ outer transactions


def test_the_guard_refuses_a_unit_that_is_already_in_a_transaction(
    shared: PrivacyWorld, engine: Engine, gateway: PolicyGateway
) -> None:
    run = shared.new_run()
    with engine.connect() as conn:
        outer = conn.begin()
        conn.execute(text("SELECT 1"))
        use_case = _attempt_use_case(engine, gateway, lambda: GuardedUnitOfWork(connection=conn))
        with pytest.raises(InternalError):
            use_case(_lotse(shared), "provider.attempt", run, _body("open-full"))
        assert outer.is_active  # the outer transaction is not the guard's to end
        outer.rollback()

    assert shared.run_row(run)["attempted_provider_ids"] == []


def test_the_guard_refuses_a_transaction_begun_on_the_raw_driver_connection(
    shared: PrivacyWorld, engine: Engine, gateway: PolicyGateway
) -> None:
    run = shared.new_run()
    with engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert isinstance(raw, psycopg2.extensions.connection)
        with raw.cursor() as cursor:
            cursor.execute("SELECT 1")  # psycopg2 opens a transaction SQLAlchemy never saw
        assert not conn.in_transaction()
        use_case = _attempt_use_case(engine, gateway, lambda: GuardedUnitOfWork(connection=conn))
        with pytest.raises(InternalError):
            use_case(_lotse(shared), "provider.attempt", run, _body("open-full"))
        raw.rollback()

    assert shared.run_row(run)["attempted_provider_ids"] == []


def test_the_same_use_case_on_an_idle_connection_records_the_attempt(
    shared: PrivacyWorld, engine: Engine, gateway: PolicyGateway
) -> None:
    run = shared.new_run()
    with engine.connect() as conn:
        use_case = _attempt_use_case(engine, gateway, lambda: GuardedUnitOfWork(connection=conn))
        answer = use_case(_lotse(shared), "provider.attempt", run, _body("eu-meta"))

    assert sorted(answer) == ["audit_content", "background_answer"]  # "go" with the ceilings
    assert shared.run_row(run)["attempted_provider_ids"] == ["eu-meta"]


def test_a_run_carrying_call_without_a_guard_is_refused(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    with pytest.raises(InternalError):
        RecordProviderAttempt(guard=None)(
            _lotse(shared), "provider.attempt", run, _body("open-full")
        )

    assert shared.run_row(run)["attempted_provider_ids"] == []


# ------------------------------------------------------------ races


def test_racing_attempts_and_writes_end_in_what_the_strictest_ceiling_allows(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    providers = ["open-full", "answer-meta", "inherits", "eu-meta"] * 3
    workers = 6
    barrier = threading.Barrier(workers)
    attempted: list[str] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        # Each worker has its own HTTP connection, so its own pooled database connection.
        world = PrivacyWorld(shared.base_url, shared.ids, shared.database_url)
        barrier.wait()
        for round_ in range(len(providers) // workers):
            provider = providers[index + round_ * workers]
            world.attempt(run, provider)
            with lock:
                attempted.append(provider)
            world.step(run, f"content of worker {index} round {round_}")
            world.answer(run, f"answer of worker {index}")

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(worker, index) for index in range(workers)]:
            future.result(timeout=60)

    row = shared.run_row(run)
    assert Counter(row["attempted_provider_ids"]) == Counter(providers)
    assert [a["position"] for a in shared.attempts(run)] == list(range(1, len(providers) + 1))
    # The strictest committed ceiling is eu-meta's explicit metadata for both kinds:
    # no step keeps content, and the explicit metadata ceiling keeps no answer.
    assert shared.privacy(run)["ceilings"] == {
        "audit_content": ceiling("metadata", True),
        "background_answer": ceiling("metadata", True),
    }
    assert row["background_answer"] is None
    steps = shared.steps(run)
    assert len(steps) == len(providers)
    for payload in steps:
        assert set(payload) <= {"kind", "metadata", "retention"}
        assert payload["retention"] == "metadata"
