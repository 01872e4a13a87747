"""The seed world of the run-context integration tests and a small driver around it.

The world is independent of ``examples/demo-world.yaml``:

* space ``support`` with channel ``general`` (operator lotse, guests allowed,
  ``history_backfill_limit`` 50) and channel ``other`` (operator lotse, no own limit);
  space ``marketing`` with channel ``campaigns`` (operator texter);
* people robin (instance owner, no grant), alex (trigger on space support), sam
  (trigger on channel support/general) and writer (write on general only);
* agents lotse and texter (owner robin); texter has write on general and trigger on
  space marketing; the app importer holds ``authz:inspect``;
* every principal has the token ``tok-<handle>``.

Tests add main-thread messages, threads, sessions, runs and follow-ups to a fresh copy
with the helpers below, load it through the real loader, and then change the world
while the service runs only through the admin facts API as robin
(:class:`RunContextWorld`).
"""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg2
import psycopg2.extras
import requests

from tests.support.client import ApiClient
from tests.support.world import (
    add_followup,
    add_main_messages,
    add_run,
    add_session,
    add_thread,
    channel,
    msg,
)

__all__ = [
    "ACTIVE_STATES",
    "CAMPAIGNS",
    "GENERAL",
    "OTHER",
    "RunContextWorld",
    "add_followup",
    "add_main_messages",
    "add_run",
    "add_session",
    "add_thread",
    "all_elements",
    "audit_columns",
    "audit_rows",
    "base_world",
    "channel",
    "dumps",
    "msg",
    "nbytes",
]

GENERAL = "support/general"  # the default channel of tests.support.world.add_thread
OTHER = "support/other"
CAMPAIGNS = "marketing/campaigns"
ACTIVE_STATES = ("queued", "running", "waiting_input")

_BASE: dict[str, Any] = {
    "people": [
        {
            "handle": "robin",
            "display_name": "Robin",
            "email": "robin@example.com",
            "owner": True,
            "token": "tok-robin",
        },
        {
            "handle": "alex",
            "display_name": "Alex",
            "email": "alex@example.com",
            "token": "tok-alex",
        },
        {"handle": "sam", "display_name": "Sam", "email": "sam@example.com", "token": "tok-sam"},
        {
            "handle": "writer",
            "display_name": "Writer",
            "email": "writer@example.com",
            "token": "tok-writer",
        },
    ],
    "agents": [
        {"handle": "lotse", "display_name": "Lotse", "owner": "robin", "token": "tok-lotse"},
        {"handle": "texter", "display_name": "Texter", "owner": "robin", "token": "tok-texter"},
    ],
    "apps": [
        {
            "handle": "importer",
            "display_name": "Importer",
            "token": "tok-importer",
            "permissions": ["authz:inspect"],
        },
    ],
    "spaces": [
        {
            "name": "support",
            "channels": [
                {
                    "name": "general",
                    "operator": "lotse",
                    "allow_mentioned_agents": True,
                    "history_backfill_limit": 50,
                    "messages": [],
                },
                {"name": "other", "operator": "lotse", "messages": []},
            ],
        },
        {
            "name": "marketing",
            "channels": [{"name": "campaigns", "operator": "texter", "messages": []}],
        },
    ],
    "grants": [
        {"key": "g-alex-support", "subject": "alex", "target": "space:support", "level": "trigger"},
        {
            "key": "g-sam-general",
            "subject": "sam",
            "target": f"channel:{GENERAL}",
            "level": "trigger",
        },
        {
            "key": "g-writer-general",
            "subject": "writer",
            "target": f"channel:{GENERAL}",
            "level": "write",
        },
        {
            "key": "g-texter-general",
            "subject": "texter",
            "target": f"channel:{GENERAL}",
            "level": "write",
        },
        {
            "key": "g-texter-marketing",
            "subject": "texter",
            "target": "space:marketing",
            "level": "trigger",
        },
    ],
    "threads": [],
    "sessions": [],
    "runs": [],
    "followups": [],
}


def base_world() -> dict[str, Any]:
    """A fresh deep copy of the seed world (no messages, threads, sessions or runs)."""
    return copy.deepcopy(_BASE)


def nbytes(text: str) -> int:
    """UTF-8 length of ``text``: the only size the run context budget counts."""
    return len(text.encode("utf-8"))


def audit_columns(database_url: str) -> list[str]:
    """The column names of the audit_log table."""
    conn = psycopg2.connect(database_url)
    try:
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'audit_log' ORDER BY ordinal_position"
            )
            return [row[0] for row in cursor.fetchall()]
    finally:
        conn.close()


def audit_rows(database_url: str) -> list[dict[str, Any]]:
    """Every row of audit_log as a dict (actor_id as text), oldest first."""
    conn = psycopg2.connect(database_url)
    try:
        with conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor) as cursor:
            cursor.execute("SELECT *, actor_id::text AS actor_id FROM audit_log ORDER BY id")
            return [dict(row) for row in cursor.fetchall()]
    finally:
        conn.close()


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@dataclass
class RunContextWorld:
    """The loaded world and the running service, driven like an adapter and an owner.

    ``ids`` maps handles, keys, ``space/channel`` and ``space/channel#main`` to ids;
    entities created through the API with a ``key`` are added to it.
    """

    service: Any
    ids: dict[str, str]
    database_url: str
    created: dict[str, dict[str, Any]] = field(default_factory=dict)

    # -- names and clients

    def id(self, name: str) -> str:
        """The id of a handle, key or channel path; a UUID passes through."""
        if name in self.ids:
            return self.ids[name]
        if _is_uuid(name):
            return name
        raise KeyError(name)

    def client(self, handle: str | None) -> ApiClient:
        """A validating client with the token of ``handle`` (``None``: no token)."""
        return ApiClient(self.service.base_url, None if handle is None else f"tok-{handle}")

    @property
    def robin(self) -> ApiClient:
        """The instance owner, who changes the world through the admin API."""
        return self.client("robin")

    # -- the adapter's read

    def context_response(self, run: str, as_: str = "lotse") -> requests.Response:
        """GET the context of ``run`` as ``as_`` (validated against the spec)."""
        return self.client(as_).get(f"/api/v1/runs/{self.id(run)}/context")

    def context(self, run: str, as_: str = "lotse") -> dict[str, Any]:
        """The 200 body of the context of ``run`` read by ``as_``."""
        response = self.context_response(run, as_)
        assert response.status_code == 200, response.text
        body = response.json()
        assert isinstance(body, dict)
        return body

    # -- messages over the real API

    def post(
        self,
        author: str,
        content: str,
        *,
        key: str | None = None,
        path: str = GENERAL,
        parent: str | None = None,
        reply_to: str | None = None,
    ) -> dict[str, Any]:
        """Post a message as ``author`` (into the thread under ``parent`` if given)."""
        body: dict[str, Any] = {"content_md": content}
        if parent is not None:
            body["parent_message_id"] = self.id(parent)
        if reply_to is not None:
            body["reply_to_message_id"] = self.id(reply_to)
        response = self.client(author).post(f"/api/v1/channels/{self.id(path)}/messages", json=body)
        assert response.status_code == 201, response.text
        message: dict[str, Any] = response.json()
        self._remember(key, message)
        return message

    # -- admin facts API as robin

    def _admin(self, method: str, path: str, expected: int, **kwargs: Any) -> Any:
        response = self.robin.request(method, f"/api/v1/admin{path}", **kwargs)
        assert response.status_code == expected, response.text
        return response.json() if response.content else None

    def _remember(self, key: str | None, row: dict[str, Any]) -> None:
        if key is not None:
            assert key not in self.ids, key
            self.ids[key] = row["id"]
            self.created[key] = row

    def create_run(
        self,
        key: str,
        thread: str,
        trigger: str | None,
        *,
        agent: str = "lotse",
        triggered_by: str | None = "alex",
        session: str | None = None,
        state: str | None = None,
        trigger_kind: str | None = None,
    ) -> dict[str, Any]:
        """POST /admin/runs; the run's queued_at is the time of this transaction."""
        body: dict[str, Any] = {"thread_id": self.id(thread), "agent_id": self.id(agent)}
        if trigger is not None:
            body["triggering_message_id"] = self.id(trigger)
        if triggered_by is not None:
            body["triggered_by"] = self.id(triggered_by)
        if session is not None:
            body["session_id"] = self.id(session)
        if state is not None:
            body["state"] = state
        if trigger_kind is not None:
            body["trigger_kind"] = trigger_kind
        row: dict[str, Any] = self._admin("POST", "/runs", 201, json=body)
        self._remember(key, row)
        return row

    def set_run_state(self, run: str, state: str) -> dict[str, Any]:
        """PATCH /admin/runs/{id}: running also starts the run's session."""
        row: dict[str, Any] = self._admin(
            "PATCH", f"/runs/{self.id(run)}", 200, json={"state": state}
        )
        assert row["state"] == state
        return row

    def create_followup(
        self, key: str | None, run: str, message: str, state: str = "pending"
    ) -> dict[str, Any]:
        """POST /admin/followups."""
        row: dict[str, Any] = self._admin(
            "POST",
            "/followups",
            201,
            json={"run_id": self.id(run), "message_id": self.id(message), "state": state},
        )
        self._remember(key, row)
        return row

    def set_followup_state(self, followup: str, state: str) -> dict[str, Any]:
        """PATCH /admin/followups/{id}."""
        row: dict[str, Any] = self._admin(
            "PATCH", f"/followups/{self.id(followup)}", 200, json={"state": state}
        )
        return row

    def set_session(
        self, key: str | None, thread: str, mode: str, agent: str | None = None
    ) -> dict[str, Any]:
        """POST /admin/threads/{id}/session with mode reset or bind."""
        body: dict[str, Any] = {"mode": mode}
        if agent is not None:
            body["agent_id"] = self.id(agent)
        row: dict[str, Any] = self._admin(
            "POST", f"/threads/{self.id(thread)}/session", 200, json=body
        )
        self._remember(key, row)
        return row

    def move_thread(self, thread: str, path: str) -> dict[str, Any]:
        """POST /admin/threads/{id}/move."""
        row: dict[str, Any] = self._admin(
            "POST", f"/threads/{self.id(thread)}/move", 200, json={"channel_id": self.id(path)}
        )
        return row

    def delete_message(self, message: str) -> None:
        """DELETE /admin/messages/{id} (tombstone)."""
        self._admin("DELETE", f"/messages/{self.id(message)}", 204)

    def revoke(self, grant: str) -> None:
        """DELETE /admin/grants/{id}."""
        self._admin("DELETE", f"/grants/{self.id(grant)}", 204)

    def grant(
        self, key: str | None, subject: str, target: str, level: str, expires_at: str | None = None
    ) -> dict[str, Any]:
        """POST /admin/grants; ``target`` is ``space:<name>`` or ``channel:<space/ch>``."""
        kind, name = target.split(":", 1)
        body: dict[str, Any] = {
            "subject": {"kind": "principal", "id": self.id(subject)},
            "target": {"kind": kind, "id": self.id(name)},
            "level": level,
        }
        if expires_at is not None:
            body["expires_at"] = expires_at
        row: dict[str, Any] = self._admin("POST", "/grants", 201, json=body)
        self._remember(key, row)
        return row

    def patch_channel(self, path: str, **changes: Any) -> dict[str, Any]:
        """PATCH /admin/channels/{id}."""
        row: dict[str, Any] = self._admin("PATCH", f"/channels/{self.id(path)}", 200, json=changes)
        return row

    def patch_principal(self, handle: str, status: str) -> dict[str, Any]:
        """PATCH /admin/principals/{id}."""
        row: dict[str, Any] = self._admin(
            "PATCH", f"/principals/{self.id(handle)}", 200, json={"status": status}
        )
        return row

    def patch_space(self, name: str, archived: bool) -> dict[str, Any]:
        """PATCH /admin/spaces/{id}."""
        row: dict[str, Any] = self._admin(
            "PATCH", f"/spaces/{self.id(name)}", 200, json={"archived": archived}
        )
        return row

    # -- assertion helpers

    def ids_of(self, elements: list[dict[str, Any]]) -> list[str]:
        """The message ids of context elements, in order."""
        return [element["message_id"] for element in elements]

    def keys_of(self, elements: list[dict[str, Any]]) -> list[str]:
        """The world or API keys of context elements, in order (ids without a key)."""
        by_id = {value: key for key, value in self.ids.items()}
        return [by_id.get(element["message_id"], element["message_id"]) for element in elements]

    def element(self, body: dict[str, Any], key: str) -> dict[str, Any]:
        """The element of message ``key`` in any part of a context body."""
        wanted = self.id(key)
        for element in _all_elements(body):
            if element["message_id"] == wanted:
                return element
        raise AssertionError(f"message {key} is not in the context")


def _all_elements(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [body["trigger_message"], *body["thread_context"], *body.get("channel_context", [])]


def all_elements(body: dict[str, Any]) -> list[dict[str, Any]]:
    """trigger_message, thread_context and channel_context elements of a body."""
    return _all_elements(body)


def dumps(value: Any) -> str:
    """Compact JSON text of ``value`` for substring searches."""
    return json.dumps(value, ensure_ascii=False, default=str)
