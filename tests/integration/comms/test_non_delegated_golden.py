"""The non-delegated path answers byte for byte as before acting-for (issue 21).

An agent without ``acting_for: required`` relaying through a session without a bound
run, and the same agent calling the messages API with its own token, must answer
exactly as the code before issue 21 did. ``golden/non_delegated.json`` holds the raw
answers of a fixed scenario, captured from that code (commit 06ffbe4) with
``GOLDEN_WRITE=1``: status, the headers that do not vary per request, and the body
bytes with only the per-run values replaced (ids by their world keys or by the order
in which new ids appear, fresh timestamps, correlation ids). A reviewed change of one
of these answers by another issue re-baselines the file with ``GOLDEN_WRITE=1`` on the
current code, which strips the acting-for member again. This test replays the
scenario and compares:

* every Problem answer and every answer of the messages API: byte-identical;
* every 200 answer of the relay: byte-identical except for the one member issue 21
  adds at the end, ``"acting_for":{"mode":"own"}`` (every relayed answer says which
  mode decided it);
* the denial audit rows: identical in the columns that existed before (mode ``own``
  in the new ones).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.comms_world import CommsWorld
from tests.support.run_context_world import CAMPAIGNS, GENERAL, OTHER, audit_rows

pytestmark = pytest.mark.integration

Start = Callable[..., CommsWorld]

GOLDEN = Path(__file__).parent / "golden" / "non_delegated.json"
# Headers whose values are fixed by the contract (the others vary per request).
_STABLE_HEADERS = ("content-type", "www-authenticate", "allow", "retry-after", "cache-control")
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# World messages are stamped on 2025-01-01 (world.BASE_TIME); anything else is new.
_TIMESTAMP = re.compile(rb'"(?!2025-01-01T)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(?:Z|[+-][0-9:]+)"')
_CORRELATION = re.compile(rb'"(correlation_id|instance)":"[^"]*"')
_OWN_MODE = b',"acting_for":{"mode":"own"}}'


class _Normaliser:
    """Replaces the per-run values of raw bodies with stable labels."""

    def __init__(self, ids: dict[str, str]) -> None:
        self._labels = {value.encode(): f"<{key}>".encode() for key, value in ids.items()}
        self._fresh: dict[bytes, bytes] = {}

    def _uuid(self, match: re.Match[bytes]) -> bytes:
        value = match.group(0)
        label = self._labels.get(value)
        if label is None:
            label = self._fresh.setdefault(value, f"<new-{len(self._fresh) + 1}>".encode())
        return label

    def __call__(self, body: bytes) -> str:
        body = _UUID.sub(self._uuid, body)
        body = _TIMESTAMP.sub(b'"<now>"', body)
        return _CORRELATION.sub(rb'"\1":"<cid>"', body).decode("utf-8")


def _answer(name: str, response: requests.Response, normalise: _Normaliser) -> dict[str, Any]:
    headers = {
        header: response.headers[header] for header in _STABLE_HEADERS if header in response.headers
    }
    assert int(response.headers.get("content-length", len(response.content))) == len(
        response.content
    )
    return {
        "name": name,
        "status": response.status_code,
        "headers": headers,
        "body": normalise(response.content),
    }


def _scenario(world: CommsWorld) -> list[tuple[str, requests.Response]]:
    """A fixed sequence of relayed and direct calls of lotse and texter (no run bound)."""
    ids = world.ids
    lotse = world.client("tok-lotse")
    q1, q2 = ids["q1"], ids["q2"]
    general, campaigns, other = ids[GENERAL], ids[CAMPAIGNS], ids[OTHER]
    list_, post = world.list_call, world.post_call
    relayed: list[tuple[str, str, dict[str, Any], str]] = [
        ("list home", "sess-1", list_("c01", limit=2), "runner-a"),
        ("list general", "sess-1", list_("c02", channel_id=general), "runner-a"),
        ("list campaigns (read)", "sess-1", list_("c03", channel_id=campaigns), "runner-a"),
        ("list other (invisible)", "sess-1", list_("c04", channel_id=other), "runner-a"),
        ("list before q2", "sess-1", list_("c05", before_message_id=q2), "runner-a"),
        (
            "list before foreign",
            "sess-1",
            list_("c06", channel_id=campaigns, before_message_id=q1),
            "runner-a",
        ),
        ("post home", "sess-1", post("c07", "g:k1", "Golden post one."), "runner-a"),
        ("post home replay", "sess-1", post("c08", "g:k1", "Another text."), "runner-a"),
        (
            "post key reused in a thread",
            "sess-1",
            post("c09", "g:k1", "Reuse.", parent_message_id=q1),
            "runner-a",
        ),
        (
            "post in thread",
            "sess-1",
            post("c10", "g:k2", "Threaded.", parent_message_id=q1),
            "runner-a",
        ),
        (
            "post campaigns (read only)",
            "sess-1",
            post("c11", "g:k3", "No.", channel_id=campaigns),
            "runner-a",
        ),
        (
            "post other (invisible)",
            "sess-1",
            post("c12", "g:k4", "No.", channel_id=other),
            "runner-a",
        ),
        ("post empty channel", "sess-1", post("c13", "g:k5", "No.", channel_id=""), "runner-a"),
        ("list limit out of range", "sess-1", list_("c14", limit=101), "runner-a"),
        ("list before not a uuid", "sess-1", list_("c15", before_message_id="nope"), "runner-a"),
        (
            "post in a new thread under q2",
            "sess-1",
            post("c16", "g:k6", "New thread.", parent_message_id=q2),
            "runner-a",
        ),
        ("texter list home", "sess-b1", list_("c17", limit=1), "runner-b"),
        (
            "texter post general",
            "sess-b1",
            post("c18", "g:k7", "Texter here.", channel_id=general),
            "runner-b",
        ),
        ("unknown session", "sess-none", list_("c19"), "runner-a"),
        ("another runner's session", "sess-b1", list_("c20"), "runner-a"),
        ("provisioned, unbound session", "ws-a3", list_("c21"), "runner-a"),
    ]
    answers = [
        (name, world.relay(session, call, runner)) for name, session, call, runner in relayed
    ]
    messages = "/api/v1/channels/{}/messages"
    no = {"content_md": "No."}
    once = {"content_md": "Direct.", "client_request_id": "g:d1"}
    again = {"content_md": "Again.", "client_request_id": "g:d1"}
    answers += [
        ("direct list general", lotse.get(messages.format(general), params={"limit": 3})),
        ("direct list other", lotse.get(messages.format(other))),
        ("direct post general", lotse.post(messages.format(general), json=once)),
        ("direct post replay", lotse.post(messages.format(general), json=again)),
        ("direct post campaigns", lotse.post(messages.format(campaigns), json=no)),
        ("direct post other", lotse.post(messages.format(other), json=no)),
    ]
    return answers


def _audit(world: CommsWorld) -> list[dict[str, Any]]:
    keys = {value: key for key, value in world.ids.items()}
    return [
        {
            "actor": keys.get(row["actor_id"], "?"),
            "action": row["action"],
            "resource_kind": row["resource_kind"],
            "reason": row["reason"],
            "status": row["status"],
            "count": row["count"],
        }
        for row in audit_rows(world.database_url)
    ]


def _expected_now(answer: dict[str, Any]) -> str:
    """What the golden answer must look like today: relay 200s end with the mode."""
    body: str = answer["body"]
    if answer["name"].startswith(("direct ",)) or answer["status"] != 200:
        return body
    assert body.endswith("}")
    return body[:-1] + _OWN_MODE.decode()


def test_the_non_delegated_path_answers_as_before_issue_21(start_comms: Start) -> None:
    world = start_comms()
    normalise = _Normaliser(world.ids)

    answers = [_answer(name, response, normalise) for name, response in _scenario(world)]
    audit = _audit(world)

    if os.environ.get("GOLDEN_WRITE") == "1":
        # Re-baselining on code with acting-for (after a reviewed change of another
        # answer) stores the answers as the code before it gave them.
        for answer in answers:
            if answer["body"].endswith(_OWN_MODE.decode()) and answer["status"] == 200:
                answer["body"] = answer["body"][: -len(_OWN_MODE)] + "}"
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(
            json.dumps({"answers": answers, "audit": audit}, indent=1) + "\n", encoding="utf-8"
        )
        pytest.fail("golden answers written; run again without GOLDEN_WRITE")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert [a["name"] for a in answers] == [g["name"] for g in golden["answers"]]
    for now, before in zip(answers, golden["answers"], strict=True):
        assert (now["status"], now["headers"]) == (before["status"], before["headers"]), now["name"]
        assert now["body"] == _expected_now(before), now["name"]
    assert audit == golden["audit"]
    rows = audit_rows(world.database_url)
    assert {row.get("acting_for", "own") for row in rows} == {"own"}
    assert {row.get("acting_for_run_id") for row in rows} == {None}
