"""Unit of work: one connection and one transaction per use case.

``__exit__`` always rolls back; only an explicit :meth:`UnitOfWork.commit` keeps work,
so an exception anywhere in a use case loses nothing half-written. Repositories are
built on the unit's connection and never commit themselves.

A read-only unit (``read_only=True``) runs its statements in autocommit mode: no
``BEGIN``/``ROLLBACK`` round trips and no locks. Under READ COMMITTED a transaction
would give each statement its own snapshot anyway, so reads lose nothing by it; this is
how a run-context read "opens no unit of work and takes no lock" (seed 000 ruling 13).
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

from sqlalchemy import Connection, Engine

from repositories.admin import AdminRepository
from repositories.facts import FactsRepository
from repositories.messages import MessageRepository
from repositories.principals import PrincipalRepository
from repositories.run_context import RunContextRepository
from repositories.runners import RunnerRepository

__all__ = ["UnitOfWork"]


class UnitOfWork:
    """A transaction on one pooled connection, with the repositories bound to it.

    Example::

        with UnitOfWork(engine) as uow:
            actor = uow.principals.by_token_hash(digest)
            uow.commit()
    """

    conn: Connection
    principals: PrincipalRepository
    facts: FactsRepository
    messages: MessageRepository
    run_context: RunContextRepository
    admin: AdminRepository
    runners: RunnerRepository

    def __init__(self, engine: Engine, *, read_only: bool = False) -> None:
        """``read_only`` units need an engine created with ``isolation_level="AUTOCOMMIT"``."""
        self._engine = engine
        self.read_only = read_only

    def __enter__(self) -> Self:
        self.conn = self._engine.connect()
        if not self.read_only:
            self.conn.begin()
        self.principals = PrincipalRepository(self.conn)
        self.facts = FactsRepository(self.conn)
        self.messages = MessageRepository(self.conn)
        self.run_context = RunContextRepository(self.conn)
        self.admin = AdminRepository(self.conn)
        self.runners = RunnerRepository(self.conn)
        return self

    def commit(self) -> None:
        """Commit the transaction and start a new one on the same connection.

        Raises:
            RuntimeError: the unit is read-only (a write there is a programming error).
        """
        if self.read_only:
            raise RuntimeError("commit on a read-only unit of work")
        self.conn.commit()
        self.conn.begin()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if not self.read_only:
                self.conn.rollback()
        finally:
            self.conn.close()
