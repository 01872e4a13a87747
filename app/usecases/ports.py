"""What the use cases need from the outside world, as protocols.

The use cases are typed against these, not against the SQLAlchemy repositories, so a
unit test can hand them in-memory fakes (``tests/unit/fakes.py``) and test the rules of
a use case without PostgreSQL, OPA or HTTP. The real implementations live in
``repositories/`` and are wired in the composition root (``app/services.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Protocol, Self

from app.domain.run_context import WindowPlan
from app.policy.inputs import FactBundle
from repositories.run_context import CandidateRows, LoadedRun
from repositories.unit_of_work import UnitOfWork

__all__ = ["FactReads", "FactsUnit", "RunContextReads", "RunContextUnit", "UnitFactory"]

# Opens a unit of work on the real repositories: a writer (one transaction) or a
# reader (autocommit, no locks), as wired in app/services.py.
UnitFactory = Callable[[], UnitOfWork]


class FactReads(Protocol):
    """Builds fact bundles (``repositories.facts.FactsRepository``)."""

    def bundle(self, principal_ids: Iterable[str], channel_ids: Iterable[str]) -> FactBundle:
        """The bundle covering these principals and channels."""


class RunContextReads(Protocol):
    """The reads of a context read (``repositories.run_context.RunContextRepository``)."""

    def load(self, run_id: str, actor_id: str) -> LoadedRun | None:
        """The run, its surroundings and the actor's facts, or ``None`` if unknown."""

    def candidates(self, plan: WindowPlan, *, actor_id: str, channel_id: str) -> CandidateRows:
        """The trigger, both windows, the delivered follow-ups and the authors' facts."""


class RunContextUnit(Protocol):
    """A read-only unit of work with the repositories a context read uses."""

    @property
    def run_context(self) -> RunContextReads:
        """The run-context reads on the unit's connection."""

    def __enter__(self) -> Self:
        """Open the unit (take a pooled connection)."""

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the unit (return the connection)."""


class FactsUnit(Protocol):
    """A read-only unit of work that only builds fact bundles."""

    @property
    def facts(self) -> FactReads:
        """The fact bundles on the unit's connection."""

    def __enter__(self) -> Self:
        """Open the unit (take a pooled connection)."""

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the unit (return the connection)."""
