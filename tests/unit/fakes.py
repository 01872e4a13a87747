"""In-memory fakes of what the use cases use: units of work, repositories, OPA, audit.

The unit and repository fakes subclass the real classes
(:class:`~repositories.unit_of_work.UnitOfWork` and the repositories) and override the
reads a test scripts, so mypy holds them to the real signatures; the OPA fake
implements the gateway's :class:`~app.policy.gateway.Transport`. A use case runs
unchanged without PostgreSQL, OPA or HTTP. They record what they were asked.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from app.domain.decisions import Decision
from app.domain.facts import FactBundle
from app.domain.representation import StoredMessage
from app.domain.run_context import WindowPlan
from app.opa_client import Evaluation
from repositories.facts import FactsRepository
from repositories.run_context import CandidateRows, LoadedRun, RunContextRepository
from repositories.unit_of_work import UnitOfWork

__all__ = [
    "FakeAudit",
    "FakeFacts",
    "FakeRunContextReads",
    "FakeTransport",
    "FakeUnit",
    "empty_facts",
    "stored",
]


def empty_facts() -> FactBundle:
    """A fact bundle without principals, channels or grants."""
    return {
        "now": "2026-11-29T12:00:00Z",
        "principals": {},
        "channels": {},
        "spaces": {},
        "grants": [],
    }


def stored(
    message_id: str,
    thread_id: str,
    seq: int,
    *,
    author_id: str = "sam",
    origin: str = "human",
    content: str = "",
    channel_id: str = "general",
) -> StoredMessage:
    """A stored message with the given place and author; other fields are plain."""
    return StoredMessage(
        id=message_id,
        channel_id=channel_id,
        thread_id=thread_id,
        thread_seq=seq,
        author_id=author_id,
        author_kind="user" if origin == "human" else origin,
        author_handle=author_id,
        author_display_name=author_id.title(),
        origin=origin,
        kind="text",
        content_md=content or f"message {message_id}",
        created_at=dt.datetime(2026, 11, 29, 12, 0, seq % 60, tzinfo=dt.UTC),
        reply_to_message_id=None,
        parent_message_id=None,
        client_request_id=None,
        deleted=False,
    )


@dataclass
class FakeFacts(FactsRepository):
    """Fact bundles from memory; records each request."""

    bundle_for: Callable[[set[str], set[str]], FactBundle] = lambda _p, _c: empty_facts()
    asked: list[tuple[set[str], set[str]]] = field(default_factory=list)

    def bundle(self, principal_ids: Iterable[str], channel_ids: Iterable[str]) -> FactBundle:
        """The scripted bundle for these principals and channels."""
        request = (set(principal_ids), set(channel_ids))
        self.asked.append(request)
        return self.bundle_for(*request)


@dataclass
class FakeRunContextReads(RunContextRepository):
    """The two reads of a context read, from memory; records the plan it was given."""

    loaded: LoadedRun | None
    rows: CandidateRows | None = None
    plans: list[WindowPlan] = field(default_factory=list)
    asked_facts: list[tuple[str, str]] = field(default_factory=list)

    def load(self, run_id: str, actor_id: str) -> LoadedRun | None:
        """The scripted run."""
        return self.loaded

    def candidates(self, plan: WindowPlan, *, actor_id: str, channel_id: str) -> CandidateRows:
        """The scripted rows; the plan and the facts' scope are recorded."""
        self.plans.append(plan)
        self.asked_facts.append((actor_id, channel_id))
        if self.rows is None:
            raise AssertionError("candidates were not expected")
        return self.rows


@dataclass
class FakeUnit(UnitOfWork):
    """A unit of work over the fake repositories; counts how often it was opened."""

    # field(): the unit's repositories are descriptors, which a bare annotation here
    # would take as this field's default.
    run_context: FakeRunContextReads = field()
    facts: FakeFacts = field(default_factory=FakeFacts)
    opened: int = 0
    closed: int = 0

    def _open(self) -> None:
        self.opened += 1

    def _close(self) -> None:
        self.closed += 1


@dataclass
class FakeAudit:
    """The denial sink, as a list."""

    denials: list[tuple[str, str, str, Decision]] = field(default_factory=list)

    def record(self, *, actor_id: str, action: str, resource_kind: str, decision: Decision) -> None:
        """Remember the denial."""
        self.denials.append((actor_id, action, resource_kind, decision))


_NO_DEFAULT: Any = object()


@dataclass
class FakeTransport:
    """OPA from memory; records each query as ``(path, input)``.

    ``answers`` maps an entry point to its answer and ``default`` (when given) answers
    every other one. An answer is a function of the input, an exception to raise, or a
    constant to return. The input is recorded as sent (so a test can check that it is
    the object it built) unless ``copy_inputs`` asks for a deep copy. ``provenance`` is
    what :meth:`evaluate` reports beside each answer (none by default, like OPA serving
    a policy folder); ``correlation_ids`` records the id each call carried.
    """

    answers: dict[str, Any] = field(default_factory=dict)
    default: Any = _NO_DEFAULT
    copy_inputs: bool = False
    asked: list[tuple[str, Any]] = field(default_factory=list)
    provenance: Any = None
    correlation_ids: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int:
        """Queries so far."""
        return len(self.asked)

    def query(self, path: str, input: Any) -> Any:
        """The scripted answer of ``path`` for ``input``."""
        self.asked.append((path, copy.deepcopy(input) if self.copy_inputs else input))
        if path in self.answers or self.default is _NO_DEFAULT:
            answer = self.answers[path]
        else:
            answer = self.default
        if isinstance(answer, BaseException):
            raise answer
        return answer(input) if callable(answer) else answer

    def evaluate(self, path: str, input: Any, *, correlation_id: str = "") -> Evaluation:
        """The scripted answer of ``path`` with :attr:`provenance`."""
        result = self.query(path, input)
        self.correlation_ids.append(correlation_id)
        return Evaluation(result=result, provenance=self.provenance)
