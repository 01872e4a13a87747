"""Unit of work: one connection and one transaction per use case.

The one unit-of-work interface (``docs/adr/0022-one-unit-of-work.md``): the use cases
are typed against :class:`UnitOfWork` (through :data:`UnitFactory`), the privacy guard
against :class:`GuardedUnitOfWork`; unit-test fakes subclass :class:`UnitOfWork`.

``__exit__`` always rolls back; only an explicit :meth:`UnitOfWork.commit` keeps work,
so an exception anywhere in a use case loses nothing half-written. Each repository is
named once in its unit (:class:`_Bound`), built on the unit's connection when a use
case first reaches it, and never commits itself.

A read-only unit (``read_only=True``) runs its statements in autocommit mode: no
``BEGIN``/``ROLLBACK`` round trips and no locks. Under READ COMMITTED a transaction
would give each statement its own snapshot anyway, so reads lose nothing by it; this is
how a run-context read "opens no unit of work and takes no lock" (decisions.md R13).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Self, TypeVar, overload

import psycopg2.extensions
from sqlalchemy import Connection, Engine

from repositories.admin import AdminRepository
from repositories.facts import FactsRepository
from repositories.messages import MessageRepository
from repositories.principals import PrincipalRepository
from repositories.privacy_policies import PrivacyPolicyRepository
from repositories.run_context import RunContextRepository
from repositories.run_privacy import RunPrivacyRepository
from repositories.runners import RunnerRepository

__all__ = ["GuardedUnitOfWork", "OuterTransaction", "UnitFactory", "UnitOfWork"]


R = TypeVar("R")


class _Bound(Generic[R]):
    """A repository on the unit's connection, built the first time a use case reaches it.

    One line per repository in a unit, and a repository the use case never touches
    costs nothing. A non-data descriptor: the built repository is stored on the unit
    and found there from then on (a fake unit may also set its own). Unlike
    ``functools.cached_property`` on Python 3.11 it takes no lock shared by every unit
    of the process. A unit is entered once (the factories make a new one per use), so
    the repository never outlives its connection.
    """

    def __init__(self, repository: Callable[[Connection], R]) -> None:
        self._repository = repository
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, unit: None, owner: type) -> Self: ...

    @overload
    def __get__(self, unit: _Unit, owner: type) -> R: ...

    def __get__(self, unit: _Unit | None, owner: type) -> Self | R:
        if unit is None:
            return self
        built = self._repository(unit.conn)
        unit.__dict__[self._name] = built
        return built


class _Unit:
    """The context-manager half every unit shares (and the unit-test fakes reuse).

    Entering opens the unit, leaving closes it whatever happened: subclasses say what
    opening and closing mean in :meth:`_open` and :meth:`_close`.
    """

    conn: Connection

    def __enter__(self) -> Self:
        self._open()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        # Whatever ended the block, closing is the same: what was not committed is lost.
        self._close()

    def _open(self) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def _end(self, *, rollback: bool, release: bool) -> None:
        """Roll back when asked, then give the connection back even if that failed."""
        try:
            if rollback:
                self.conn.rollback()
        finally:
            if release:
                self.conn.close()


class UnitOfWork(_Unit):
    """A transaction on one pooled connection, with the repositories bound to it.

    Example::

        with UnitOfWork(engine) as uow:
            holder = uow.principals.token_holder(digest)
            uow.commit()
    """

    principals = _Bound(PrincipalRepository)
    facts = _Bound(FactsRepository)
    messages = _Bound(MessageRepository)
    run_context = _Bound(RunContextRepository)
    admin = _Bound(AdminRepository)
    runners = _Bound(RunnerRepository)
    run_privacy = _Bound(RunPrivacyRepository)
    privacy_policies = _Bound(PrivacyPolicyRepository)

    def __init__(self, engine: Engine, *, read_only: bool = False) -> None:
        """``read_only`` units need an engine created with ``isolation_level="AUTOCOMMIT"``."""
        self._engine = engine
        self.read_only = read_only

    def _open(self) -> None:
        self.conn = self._engine.connect()
        if not self.read_only:
            self.conn.begin()

    def commit(self) -> None:
        """Commit the transaction and start a new one on the same connection.

        Raises:
            RuntimeError: the unit is read-only (a write there is a programming error).
        """
        if self.read_only:
            raise RuntimeError("commit on a read-only unit of work")
        self.conn.commit()
        self.conn.begin()

    def _close(self) -> None:
        self._end(rollback=not self.read_only, release=True)


# Opens a unit of work: a writer (one transaction) or a reader (autocommit, no locks),
# as wired in app/services.py.
UnitFactory = Callable[[], UnitOfWork]


def _server_in_transaction(conn: Connection) -> bool:
    """Whether the server reports an open (or failed) transaction on this connection."""
    dbapi = conn.connection.dbapi_connection
    status = getattr(getattr(dbapi, "info", None), "transaction_status", None)
    # psycopg2: 0 idle, 1 active (a command in progress), 2 in transaction, 3 failed.
    return status != psycopg2.extensions.TRANSACTION_STATUS_IDLE


class OuterTransaction(RuntimeError):
    """The guarded unit's connection is already in a transaction it did not open."""


class GuardedUnitOfWork(_Unit):
    """The privacy guard's unit: it must open its transaction itself, or it refuses.

    Releasing a savepoint inside somebody else's transaction does not make a tightened
    ceiling durable before the provider receives the request (decisions.md S4-3), so the guard
    never runs inside an outer transaction. ``__enter__`` takes a connection (or uses
    the one given) without beginning; :meth:`begin` raises :class:`OuterTransaction`
    when the connection is already in a transaction, whether SQLAlchemy began it or
    the server reports one (libpq's transaction status, which the server sends with
    every ReadyForQuery: a transaction begun on the raw driver connection counts too).
    An outer transaction is left alone: only a transaction this unit began is rolled
    back on exit.

    Example::

        with GuardedUnitOfWork(engine) as unit:
            unit.begin()
            fresh, run = unit.run_privacy.lock(...)
            unit.commit()
    """

    run_privacy = _Bound(RunPrivacyRepository)

    def __init__(self, engine: Engine | None = None, *, connection: Connection | None = None):
        """Use a pooled connection of ``engine``, or ``connection`` (tests, integrations)."""
        if (engine is None) == (connection is None):
            raise ValueError("give exactly one of engine and connection")
        self._engine = engine
        self._given = connection
        self._began = False

    def _open(self) -> None:
        self.conn = self._given if self._given is not None else self._engine_connect()

    def _engine_connect(self) -> Connection:
        assert self._engine is not None
        return self._engine.connect()

    def begin(self) -> None:
        """Begin the guarded transaction.

        Raises:
            OuterTransaction: the connection is already in a transaction.
        """
        if self.conn.in_transaction() or _server_in_transaction(self.conn):
            raise OuterTransaction("the guard runs only in a transaction it opens")
        self.conn.begin()
        self._began = True

    def commit(self) -> None:
        """Commit the guarded transaction (the unit is done afterwards)."""
        self.conn.commit()
        self._began = False

    def _close(self) -> None:
        began, self._began = self._began, False
        self._end(rollback=began and self.conn.in_transaction(), release=self._given is None)
