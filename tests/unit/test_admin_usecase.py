"""The admin writes (``app/usecases/admin.py``): authorize first, write, commit only
when the whole write succeeded; nothing is written or committed for a denial."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.domain.facts import FactBundle
from app.domain.identity import Actor
from app.errors import Forbidden, NotFound, ValidationFailed
from app.usecases.admin import AdminWrites
from repositories.admin import AdminRepository
from repositories.facts import FactsRepository
from repositories.unit_of_work import UnitOfWork
from tests.unit.fakes import empty_facts

ALEX = Actor(id="alex", kind="user", status="active", is_owner=True)
SAM = Actor(id="sam", kind="user", status="active", is_owner=False)


@dataclass
class _Journal:
    """What happened, in order, across the fakes."""

    events: list[str] = field(default_factory=list)


@dataclass
class _Facts(FactsRepository):
    journal: _Journal

    def bundle(self, principal_ids: Iterable[str], channel_ids: Iterable[str]) -> FactBundle:
        self.journal.events.append(f"facts {principal_ids} {channel_ids}")
        return empty_facts()


@dataclass
class _AdminRepo(AdminRepository):
    journal: _Journal
    known: dict[tuple[str, str], Any] = field(default_factory=dict)

    def lookup(self, kind: str, entity_id: str) -> Any:
        self.journal.events.append(f"lookup {kind} {entity_id}")
        return self.known.get((kind, entity_id))

    def delete_grant(self, grant_id: str) -> bool:
        self.journal.events.append(f"delete_grant {grant_id}")
        return ("grant", grant_id) in self.known

    def update_channel(self, channel_id: str, changes: dict[str, Any]) -> dict[str, Any] | None:
        self.journal.events.append(f"update_channel {channel_id}")
        return {"id": channel_id, **changes}

    def update_space(self, space_id: str, archived: bool) -> dict[str, Any] | None:
        self.journal.events.append(f"update_space {space_id}")
        return {"id": space_id, "archived": archived}


@dataclass
class _Unit(UnitOfWork):
    """The product's unit over the fakes: journals opening, commits and closing."""

    journal: _Journal
    # field(): the unit's repositories are descriptors, which a bare annotation here
    # would take as this field's default.
    admin: _AdminRepo = field()
    facts: _Facts = field()

    def _open(self) -> None:
        self.journal.events.append("open")

    def commit(self) -> None:
        self.journal.events.append("commit")

    def _close(self) -> None:
        self.journal.events.append("close")


@dataclass
class _Authorizer:
    """Allows instance owners only, like ``policies/authz/admin``."""

    journal: _Journal

    def require(self, actor: Actor, action: str, resource: Any, facts: Any) -> None:
        self.journal.events.append(f"require {action} {resource['kind']}")
        if not actor.is_owner:
            raise Forbidden("not_instance_owner")


def _admin(known: dict[tuple[str, str], Any] | None = None) -> tuple[AdminWrites, _Journal]:
    journal = _Journal()
    unit = _Unit(journal, _AdminRepo(journal, known or {}), _Facts(journal))
    writes = AdminWrites(
        writer=lambda: unit,
        authorizer=_Authorizer(journal),  # type: ignore[arg-type]
        backfill_max=50,
    )
    return writes, journal


def test_an_allowed_write_is_authorized_on_the_instance_then_written_then_committed() -> None:
    writes, journal = _admin()

    answer = writes.update_space(ALEX, "admin.updateSpace", "s1", {"archived": True})

    assert answer == {"id": "s1", "archived": True}
    assert journal.events == [
        "open",
        "facts ['alex'] []",
        "require admin.updateSpace instance",
        "update_space s1",
        "commit",
        "close",
    ]


def test_a_denied_write_writes_nothing_and_commits_nothing() -> None:
    writes, journal = _admin()

    with pytest.raises(Forbidden):
        writes.update_space(SAM, "admin.updateSpace", "s1", {"archived": True})

    assert journal.events == [
        "open",
        "facts ['sam'] []",
        "require admin.updateSpace instance",
        "close",
    ]


def test_an_unknown_target_is_404_and_rolls_back() -> None:
    writes, journal = _admin()

    with pytest.raises(NotFound):
        writes.delete_grant(ALEX, "admin.deleteGrant", "g1")

    assert "commit" not in journal.events
    assert journal.events[-1] == "close"


def test_a_known_target_is_deleted_and_committed() -> None:
    writes, journal = _admin({("grant", "g1"): True})

    writes.delete_grant(ALEX, "admin.deleteGrant", "g1")

    assert journal.events[-3:] == ["delete_grant g1", "commit", "close"]


def test_a_channel_limit_above_the_configured_maximum_is_refused_after_authorization() -> None:
    writes, journal = _admin()

    with pytest.raises(ValidationFailed) as raised:
        writes.update_channel(ALEX, "admin.updateChannel", "c1", {"history_backfill_limit": 51})

    assert raised.value.errors == [
        {
            "path": "body/history_backfill_limit",
            "message": "above channel.history_backfill_limit_max",
        }
    ]
    assert "require admin.updateChannel instance" in journal.events
    assert not any(event.startswith("update_channel") for event in journal.events)
    assert "commit" not in journal.events


def test_an_operator_that_is_not_an_agent_is_refused_naming_the_field() -> None:
    writes, journal = _admin({("principal", "robin"): "user"})

    with pytest.raises(ValidationFailed) as raised:
        writes.update_channel(
            ALEX,
            "admin.updateChannel",
            "c1",
            {"history_backfill_limit": 50, "operator_agent_id": "robin"},
        )

    assert raised.value.errors == [{"path": "body/operator_agent_id", "message": "not an agent"}]
    assert "commit" not in journal.events
