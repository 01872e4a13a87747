"""The one world builder of the tests: build world dicts, load them in-process.

Worlds are plain dicts in the fixture format of ``examples/demo-world.yaml`` (the
models are ``world/schema.py``). Tests start from :func:`demo_world` or from
the seed world of ``tests.support.run_context_world.base_world`` and change it only
through the helpers below (people, grants, channels, messages, threads, sessions,
runs, follow-ups), so no test pokes at the dict's layout itself. :func:`load` runs the
real loader in-process and returns the map of keys and handles to ids.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from repositories import make_engine
from tests.support.services import REPO_ROOT
from world import load_world, parse_world_yaml

__all__ = [
    "add_channel",
    "add_followup",
    "add_grant",
    "add_main_messages",
    "add_person",
    "add_run",
    "add_session",
    "add_thread",
    "channel",
    "demo_world",
    "load",
    "msg",
    "set_display_name",
]


@lru_cache(maxsize=1)
def _demo_world() -> dict[str, Any]:
    text = (REPO_ROOT / "examples" / "demo-world.yaml").read_text(encoding="utf-8")
    return parse_world_yaml(text)


def demo_world() -> dict[str, Any]:
    """A fresh copy of ``examples/demo-world.yaml`` as a dict (parsed once)."""
    return copy.deepcopy(_demo_world())


def load(database_url: str, world: dict[str, Any]) -> dict[str, str]:
    """Load ``world`` into the database through the real loader; returns the id map.

    In-process, in one transaction, without a YAML file in between: the loader's
    validation and writes are the same as ``python -m app world load``.
    """
    engine = make_engine(database_url, pool_size=1)
    try:
        with engine.begin() as conn:
            return load_world(conn, world)
    finally:
        engine.dispose()


def add_person(
    world: dict[str, Any],
    handle: str,
    *,
    display_name: str | None = None,
    email: str | None = None,
    token: str | None = None,
    **extra: Any,
) -> None:
    """Add an active person, by default with the token ``tok-<handle>``.

    ``extra`` sets further fields of the format (owner, status, permissions, ...).
    """
    world["people"].append(
        {
            "handle": handle,
            "display_name": display_name or handle.title(),
            "email": email or f"{handle}@example.com",
            "token": token or f"tok-{handle}",
            **extra,
        }
    )


def set_display_name(world: dict[str, Any], handle: str, display_name: str) -> None:
    """Change the display name of a person, agent or app."""
    for kind in ("people", "agents", "apps"):
        for principal in world.get(kind, []):
            if principal["handle"] == handle:
                principal["display_name"] = display_name
                return
    raise KeyError(handle)


def add_grant(
    world: dict[str, Any], subject: str, target: str, level: str, key: str | None = None
) -> None:
    """Add a grant; ``target`` is ``space:<name>`` or ``channel:<space/channel>``."""
    grant: dict[str, Any] = {"subject": subject, "target": target, "level": level}
    if key is not None:
        grant["key"] = key
    world["grants"].append(grant)


def add_channel(world: dict[str, Any], space: str, name: str, **extra: Any) -> None:
    """Add a channel to ``space`` (``extra``: kind, members, archived, messages, ...)."""
    for item in world["spaces"]:
        if item["name"] == space:
            item["channels"].append({"name": name, "messages": [], **extra})
            return
    raise KeyError(space)


def msg(key: str | None, author: str, content: str = "", **extra: Any) -> dict[str, Any]:
    """A world message; ``extra`` may set origin, system_code, reply_to, deleted, ..."""
    message: dict[str, Any] = {"author": author, "content": content, **extra}
    if key is not None:
        message["key"] = key
    return message


def channel(world: dict[str, Any], path: str) -> dict[str, Any]:
    """The channel dict of ``space/channel`` inside ``world`` (to change its switches)."""
    space_name, channel_name = path.split("/")
    for space in world["spaces"]:
        if space["name"] == space_name:
            for item in space["channels"]:
                if item["name"] == channel_name:
                    found: dict[str, Any] = item
                    return found
    raise KeyError(path)


def add_main_messages(world: dict[str, Any], path: str, *messages: dict[str, Any]) -> None:
    """Append messages to the main thread of the channel ``space/channel``."""
    channel(world, path)["messages"].extend(messages)


def add_thread(
    world: dict[str, Any],
    key: str,
    path: str = "support/general",
    *,
    parent: str | None = None,
    messages: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> None:
    """Add a thread of channel ``path`` (under main-thread message ``parent``)."""
    thread: dict[str, Any] = {"key": key, "channel": path, "messages": messages or [], **extra}
    if parent is not None:
        thread["parent"] = parent
    world["threads"].append(thread)


def add_session(
    world: dict[str, Any],
    key: str,
    thread: str,
    agent: str = "lotse",
    *,
    started: bool = False,
    current: bool = True,
) -> None:
    """Add an agent session of ``thread``."""
    world["sessions"].append(
        {"key": key, "thread": thread, "agent": agent, "started": started, "current": current}
    )


def add_run(
    world: dict[str, Any],
    key: str,
    thread: str,
    trigger: str | None,
    *,
    agent: str = "lotse",
    triggered_by: str | None = "alex",
    session: str | None = None,
    state: str = "queued",
    trigger_kind: str = "message",
) -> None:
    """Add a run; later runs in the same session should go through the admin API."""
    run: dict[str, Any] = {
        "key": key,
        "thread": thread,
        "agent": agent,
        "state": state,
        "trigger_kind": trigger_kind,
    }
    if trigger is not None:
        run["trigger"] = trigger
    if triggered_by is not None:
        run["triggered_by"] = triggered_by
    if session is not None:
        run["session"] = session
    world["runs"].append(run)


def add_followup(
    world: dict[str, Any], key: str, run: str, message: str, state: str = "pending"
) -> None:
    """Add a follow-up of ``run``."""
    world["followups"].append({"key": key, "run": run, "message": message, "state": state})
