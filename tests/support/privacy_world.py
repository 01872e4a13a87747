"""The world of the privacy integration tests and a driver around the privacy endpoints.

The world is the run-context seed world (``tests/support/run_context_world.py``) plus:

* a thread ``t1`` of ``support/general`` with the triggering message ``trig``;
* the run ``historical`` (running, no ceilings: a run from before the privacy guard);
* provider policies (explicit levels, or inherited from the global default):

  ============== ============= =================
  provider       audit content background answer
  ============== ============= =================
  open-full      full          full
  eu-meta        metadata      metadata
  inherits       (default)     (default)
  strict-none    none          none
  answer-meta    full          metadata
  ============== ============= =================

* task policies ``hr-review`` (background answer metadata) and ``secret`` (audit
  content none).

Tests make their own runs with :meth:`PrivacyWorld.new_run` (the admin API), so runs
never leak state between tests that share one service.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg2
import psycopg2.extensions
import psycopg2.extras
import requests

from tests.support.client import ApiClient
from tests.support.run_context_world import (
    GENERAL,
    add_main_messages,
    add_run,
    add_thread,
    base_world,
    msg,
)

__all__ = ["PROVIDERS", "PrivacyWorld", "ceiling", "privacy_world"]

PROVIDERS: dict[str, dict[str, str]] = {
    "open-full": {"audit_content_ceiling": "full", "background_answer_ceiling": "full"},
    "eu-meta": {"audit_content_ceiling": "metadata", "background_answer_ceiling": "metadata"},
    "inherits": {},
    "strict-none": {"audit_content_ceiling": "none", "background_answer_ceiling": "none"},
    "answer-meta": {"audit_content_ceiling": "full", "background_answer_ceiling": "metadata"},
}


def privacy_world() -> dict[str, Any]:
    """A fresh copy of the privacy test world."""
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Please prepare the export."))
    add_thread(world, "t1", parent="p1", messages=[msg("trig", "alex", "@lotse go ahead")])
    add_run(world, "historical", "t1", "trig", state="running")
    world["provider_policies"] = [
        {"provider": provider, **levels} for provider, levels in PROVIDERS.items()
    ]
    world["task_policies"] = [
        {"task": "hr-review", "background_answer_ceiling": "metadata"},
        {"task": "secret", "audit_content_ceiling": "none"},
    ]
    return world


def ceiling(level: str, explicit: bool) -> dict[str, Any]:
    """A ``Ceiling`` body."""
    return {"level": level, "explicit": explicit}


@dataclass
class PrivacyWorld:
    """The loaded world, the running service and SQL probes on its database."""

    base_url: str
    ids: dict[str, str]
    database_url: str

    def client(self, handle: str | None = "lotse") -> ApiClient:
        """A validating client with the token of ``handle``."""
        return ApiClient(self.base_url, None if handle is None else f"tok-{handle}")

    def id(self, name: str) -> str:
        """The id of a handle, key or channel path (a UUID passes through)."""
        return self.ids.get(name, name)

    # -- runs

    def new_run(
        self, *, task_key: str | None = None, state: str = "running", agent: str = "lotse"
    ) -> str:
        """A new run of ``agent`` in thread t1 (through the admin API); its id."""
        body: dict[str, Any] = {
            "thread_id": self.id("t1"),
            "agent_id": self.id(agent),
            "triggering_message_id": self.id("trig"),
            "triggered_by": self.id("alex"),
            "state": state,
        }
        if task_key is not None:
            body["task_key"] = task_key
        response = self.client("robin").post("/api/v1/admin/runs", json=body)
        assert response.status_code == 201, response.text
        run_id: str = response.json()["id"]
        return run_id

    def set_state(self, run_id: str, state: str) -> None:
        """PATCH the run's state as the instance owner."""
        response = self.client("robin").patch(f"/api/v1/admin/runs/{run_id}", json={"state": state})
        assert response.status_code == 200, response.text

    def set_task_policy(self, task_key: str, **levels: str) -> None:
        """PUT a task policy as the instance owner."""
        response = self.client("robin").request(
            "PUT", f"/api/v1/admin/task-policies/{task_key}", json=levels
        )
        assert response.status_code == 200, response.text

    # -- the agent's calls

    def attempt_response(
        self,
        run_id: str,
        provider_id: str,
        *,
        kind: str = "chat",
        attempt_id: str | None = None,
        as_: str = "lotse",
    ) -> requests.Response:
        """POST a provider attempt (validated against the spec)."""
        body = {
            "attempt_id": uuid.uuid4().hex if attempt_id is None else attempt_id,
            "provider_id": provider_id,
            "kind": kind,
        }
        return self.client(as_).post(f"/api/v1/runs/{run_id}/provider-attempts", json=body)

    def attempt(self, run_id: str, provider_id: str, **kwargs: Any) -> dict[str, Any]:
        """A provider attempt that must answer "go"; the ceilings."""
        response = self.attempt_response(run_id, provider_id, **kwargs)
        assert response.status_code == 200, response.text
        assert response.headers["Cache-Control"] == "no-store"
        body: dict[str, Any] = response.json()
        assert body["outcome"] == "go"
        ceilings: dict[str, Any] = body["ceilings"]
        return ceilings

    def step_response(
        self, run_id: str, body: dict[str, Any], *, as_: str = "lotse"
    ) -> requests.Response:
        """POST a run step."""
        return self.client(as_).post(f"/api/v1/runs/{run_id}/steps", json=body)

    def step(
        self,
        run_id: str,
        content: str = "secret prompt text",
        *,
        kind: str = "chat_request",
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A run step that must be stored; the 201 body."""
        body: dict[str, Any] = {
            "kind": kind,
            "metadata": metadata if metadata is not None else {"model": "m-1", "status": "ok"},
            "content": content,
        }
        response = self.step_response(run_id, body)
        assert response.status_code == 201, response.text
        stored: dict[str, Any] = response.json()
        return stored

    def answer_response(
        self, run_id: str, answer: str = "The export is ready.", *, as_: str = "lotse"
    ) -> requests.Response:
        """PUT the background answer."""
        return self.client(as_).request(
            "PUT", f"/api/v1/runs/{run_id}/answer", json={"answer_md": answer}
        )

    def answer(self, run_id: str, answer: str = "The export is ready.") -> bool:
        """PUT the background answer; whether it was stored."""
        response = self.answer_response(run_id, answer)
        assert response.status_code == 200, response.text
        return bool(response.json()["stored"])

    def privacy_response(self, run_id: str, *, as_: str = "lotse") -> requests.Response:
        """GET the run's privacy state."""
        return self.client(as_).get(f"/api/v1/runs/{run_id}/privacy")

    def privacy(self, run_id: str) -> dict[str, Any]:
        """The run's privacy body (200)."""
        response = self.privacy_response(run_id)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def etag(self, run_id: str) -> str:
        """The envelope ETag of the run."""
        response = self.privacy_response(run_id)
        assert response.status_code == 200, response.text
        return response.headers["ETag"]

    def rotate_response(
        self, run_id: str, etag: str, sealed: str = "c2VhbGVk", *, as_: str = "lotse"
    ) -> requests.Response:
        """POST an envelope rotation with ``If-Match: etag``."""
        return self.client(as_).post(
            f"/api/v1/runs/{run_id}/envelope:rotate",
            json={"sealed_envelope": sealed},
            headers={"If-Match": etag},
        )

    # -- SQL probes (the stored rows are what the guard is about)

    @contextmanager
    def connection(self) -> Iterator[psycopg2.extensions.connection]:
        """An independent psycopg2 connection to the test database (autocommit off)."""
        conn = psycopg2.connect(self.database_url)
        try:
            yield conn
        finally:
            conn.close()

    def sql(self, statement: str, **params: Any) -> list[dict[str, Any]]:
        """Run one statement in its own committed transaction; rows as dicts."""
        with self.connection() as conn:
            with conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor) as cursor:
                cursor.execute(statement, params)
                rows = [dict(row) for row in cursor.fetchall()] if cursor.description else []
            conn.commit()
        return rows

    def run_row(self, run_id: str) -> dict[str, Any]:
        """The run's privacy columns as stored."""
        rows = self.sql(
            "SELECT audit_content_ceiling, audit_content_ceiling_explicit, "
            "background_answer_ceiling, background_answer_ceiling_explicit, "
            "attempted_provider_ids, background_answer, sealed_envelope, envelope_version, "
            "state, task_key FROM runs WHERE id = %(id)s",
            id=run_id,
        )
        assert len(rows) == 1
        return rows[0]

    def steps(self, run_id: str) -> list[dict[str, Any]]:
        """The run's step payloads as stored, in order."""
        rows = self.sql(
            "SELECT payload FROM run_steps WHERE run_id = %(id)s ORDER BY seq", id=run_id
        )
        return [row["payload"] for row in rows]

    def attempts(self, run_id: str) -> list[dict[str, Any]]:
        """The run's recorded attempts in order."""
        return self.sql(
            "SELECT attempt_id, position, provider_id, kind FROM run_provider_attempts "
            "WHERE run_id = %(id)s ORDER BY position",
            id=run_id,
        )

    def insert_legacy_step(self, run_id: str, payload: Any) -> None:
        """A step stored before the privacy guard existed (written around it on purpose)."""
        self.sql(
            "INSERT INTO run_steps (run_id, seq, payload) SELECT %(id)s, "
            "COALESCE(max(seq), 0) + 1, %(payload)s FROM run_steps WHERE run_id = %(id)s",
            id=run_id,
            payload=psycopg2.extras.Json(payload),
        )

    def set_legacy_answer(self, run_id: str, answer: str) -> None:
        """A background answer stored before the privacy guard existed."""
        self.sql(
            "UPDATE runs SET background_answer = %(answer)s WHERE id = %(id)s",
            id=run_id,
            answer=answer,
        )
