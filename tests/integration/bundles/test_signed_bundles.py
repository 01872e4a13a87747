"""Policies ship as signed OPA bundles, and every decision names its revision (issue 24).

Real processes on loopback: ``scripts/bundle_service.py`` serves the bundle, OPA
sidecars run the deploy configuration (``deploy/opa/config.yaml``: bundle service,
polling every second here, mandatory signature verification, status API), and each app
replica talks to its own sidecar with ``policy.require_bundle_revision`` on, as in
``deploy/k8s``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RunningService
from tests.integration.bundles.conftest import (
    FIRST,
    SECOND,
    Bundles,
    deployment,
    replicas,
    revision_info,
)
from tests.integration.foundation.conftest import messages_path
from tests.support.bundles import POLL_SECONDS, wait_until
from tests.support.services import OpaServer

pytestmark = pytest.mark.integration

EXPLAIN = "/api/v1/authz/explain"
# How long a sidecar may take to activate a published bundle: one polling interval,
# plus download, verification and compilation on a busy two-core machine.
ACTIVATION_SECONDS = POLL_SECONDS + 4.0


def _ready(service: RunningService) -> None:
    wait_until(
        lambda: service.client().get("/readyz").status_code == 200, 20, "the replica is ready"
    )


def _explained_revision(service: RunningService, ids: dict[str, str]) -> Any:
    answer = service.client("tok-robin").post(
        EXPLAIN,
        json={
            "actor_id": ids["reader"],
            "action": "message.list",
            "resource": {"kind": "channel", "id": ids["support/general"]},
        },
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def _audited(sql: Any, action: str) -> list[tuple[Any, ...]]:
    return [
        tuple(row)
        for row in sql(
            "SELECT policy_revision, reason, count FROM audit_log WHERE action = :action "
            "ORDER BY first_at, id",
            action=action,
        )
    ]


def test_two_replicas_pull_the_signed_bundle_and_name_the_same_revision(
    bundles: Bundles, database_url: str, ids: dict[str, str], sql: Any
) -> None:
    with deployment(bundles, database_url, 2, bundles.first) as running:
        for app in running.apps:
            _ready(app)

        assert [sidecar.active_revision() for sidecar in running.sidecars] == [FIRST, FIRST]
        assert all(sidecar.bundles_ready() for sidecar in running.sidecars)
        for app in running.apps:
            assert app.client().get("/readyz").json()["policy_revision"] == FIRST
            denied = app.client("tok-reader").post(
                messages_path(ids["support/general"]), json={"content_md": "no write"}
            )
            assert denied.status_code == 403
            explained = _explained_revision(app, ids)
            assert explained["policy_revision"] == FIRST
            assert explained["decision"]["allow"] is True
            assert revision_info(app) == {FIRST: 1}

    assert _audited(sql, "message.post") == [(FIRST, "no_grant", 2)]


def test_a_new_revision_is_activated_by_both_within_the_polling_interval(
    bundles: Bundles, database_url: str, ids: dict[str, str], sql: Any
) -> None:
    general = messages_path(ids["support/general"])
    with deployment(bundles, database_url, 2, bundles.first) as running:
        for app in running.apps:
            _ready(app)
            assert app.client("tok-reader").get(general).status_code == 200

        running.service.publish(bundles.second)
        took = wait_until(
            lambda: all(sidecar.active_revision() == SECOND for sidecar in running.sidecars),
            ACTIVATION_SECONDS,
            "both sidecars activate the second revision",
        )

        assert took <= ACTIVATION_SECONDS
        for app in running.apps:
            # The reviewed change decides now: listing needs write.
            assert app.client("tok-reader").get(general).status_code == 404
            assert app.client().get("/readyz").json()["policy_revision"] == SECOND
            assert _explained_revision(app, ids)["decision"]["allow"] is False
            assert revision_info(app) == {SECOND: 1}

    assert _audited(sql, "message.list") == [(SECOND, "not_found", 2)]


@pytest.mark.parametrize(
    ("bad", "why"),
    [("tampered", "digest mismatch"), ("foreign", "failed to verify JWT signature")],
)
def test_a_bundle_that_does_not_verify_is_rejected_and_the_previous_revision_decides(
    bundles: Bundles, database_url: str, ids: dict[str, str], sql: Any, bad: str, why: str
) -> None:
    general = messages_path(ids["support/general"])
    with deployment(bundles, database_url, 1, bundles.first) as running:
        (sidecar,), (app,) = running.sidecars, running.apps
        _ready(app)
        failed_before = sidecar.failed_loads()

        running.service.publish(getattr(bundles, bad))
        wait_until(
            lambda: sidecar.failed_loads() >= failed_before + 2,
            2 * ACTIVATION_SECONDS,
            "the sidecar rejects the bundle (twice: every poll retries)",
        )

        status = sidecar.status()
        assert status["active_revision"] == FIRST
        assert status["code"] == "bundle_error"
        assert why in status["message"]
        assert sidecar.bundles_ready()
        # Posting still needs write: the bad bundle would let reader post.
        denied = app.client("tok-reader").post(general, json={"content_md": "still no write"})
        assert denied.status_code == 403
        assert app.client().get("/readyz").json()["policy_revision"] == FIRST
        assert revision_info(app) == {FIRST: 1}

    assert _audited(sql, "message.post") == [(FIRST, "no_grant", 1)]
    assert sql("SELECT count(*) FROM messages WHERE content_md = 'still no write'")[0][0] == 0


@pytest.mark.parametrize("served", ["foreign", "nothing"])
def test_a_sidecar_that_never_activated_a_bundle_keeps_the_pod_unready_and_fails_closed(
    bundles: Bundles, database_url: str, ids: dict[str, str], sql: Any, served: str
) -> None:
    general = messages_path(ids["support/general"])
    messages_before = sql("SELECT count(*) FROM messages")[0][0]
    published = bundles.foreign if served == "foreign" else None
    with deployment(bundles, database_url, 1, published) as running:
        (sidecar,), (app,) = running.sidecars, running.apps
        wait_until(lambda: sidecar.failed_loads() >= 1, 2 * ACTIVATION_SECONDS, "a failed load")

        assert not sidecar.bundles_ready()
        assert sidecar.active_revision() is None
        assert app.client().get("/readyz").status_code == 503
        robin = app.client("tok-robin")
        answers = [
            robin.get(general),
            robin.post(general, json={"content_md": "no verified policy"}),
            app.client("tok-reader").post(general, json={"content_md": "no policy"}),
            _explain_status(app, ids),
        ]
        assert [answer.status_code for answer in answers] == [503] * 4
        assert {answer.json()["code"] for answer in answers} == {"service_unavailable"}

    assert sql("SELECT count(*) FROM messages")[0][0] == messages_before
    assert sql("SELECT count(*) FROM audit_log")[0][0] == 0


def _explain_status(app: RunningService, ids: dict[str, str]) -> Any:
    return app.client("tok-robin").post(
        EXPLAIN,
        json={
            "actor_id": ids["reader"],
            "action": "message.list",
            "resource": {"kind": "instance"},
        },
    )


def test_decision_log_entries_and_the_access_log_name_each_other_and_the_revision(
    bundles: Bundles, database_url: str, ids: dict[str, str]
) -> None:
    correlation_id = "bundle-corr-0001"
    with deployment(bundles, database_url, 1, bundles.first) as running:
        (sidecar,), (app,) = running.sidecars, running.apps
        _ready(app)
        answer = app.client("tok-reader").get(
            messages_path(ids["support/general"]),
            headers={"X-Correlation-Id": correlation_id},
        )
        assert answer.status_code == 200
        assert answer.headers["X-Correlation-Id"] == correlation_id
        opa_log = sidecar.read_log()
        app_log = app.log.getvalue()

    entries = [
        json.loads(line)
        for line in opa_log.splitlines()
        if '"decision_id"' in line and correlation_id in line
    ]
    assert len(entries) == 1
    assert entries[0]["request_context"]["http"]["headers"]["X-Correlation-Id"] == [correlation_id]
    assert entries[0]["bundles"] == {"agent-authz": {"revision": FIRST}}
    access = [
        json.loads(line)
        for line in app_log.splitlines()
        if '"app.access"' in line and correlation_id in line
    ]
    assert len(access) == 1
    assert access[0]["policy_revision"] == FIRST
    assert access[0]["correlation_id"] == correlation_id


def test_a_replica_that_requires_a_bundle_refuses_a_sidecar_serving_a_folder(
    database_url: str, ids: dict[str, str], opa_server: OpaServer
) -> None:
    # The working-tree configuration (make run, the tests) serves policies/ without a
    # revision: nothing proves what it enforces, so a deployment refuses it.
    with replicas(database_url, [opa_server]) as (app,):
        assert app.client().get("/readyz").status_code == 503
        listed = app.client("tok-robin").get(messages_path(ids["support/general"]))
        assert listed.status_code == 503
        assert revision_info(app) == {"none": 1}
