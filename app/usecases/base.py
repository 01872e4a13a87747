"""What a use case over the unit of work is built with, written once.

Most use cases take a unit-of-work factory (a writer for a transaction, a reader for
autocommit reads) and the :class:`~app.usecases.authorization.Authorizer` that decides
their action and audits its denials. :class:`Writes` and :class:`Reads` hold the two,
keyword-only as ``app/services.py`` and the tests build them; a use case that needs
more (the gateway, limits) is a dataclass of its own on top that adds those fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.usecases.authorization import Authorizer
from repositories.unit_of_work import UnitFactory

__all__ = ["Reads", "Writes"]


@dataclass(frozen=True, kw_only=True, eq=False)
class Writes:
    """A use case that writes in one transaction per call.

    Attributes:
        writer: opens a unit of work (one transaction, rolled back unless committed).
        authorizer: decides the use case's action and audits denials.
    """

    writer: UnitFactory
    authorizer: Authorizer


@dataclass(frozen=True, kw_only=True, eq=False)
class Reads:
    """A use case that only reads: autocommit statements, no transaction, no lock.

    Attributes:
        reader: opens a read-only unit.
        authorizer: decides the use case's action and audits denials.
    """

    reader: UnitFactory
    authorizer: Authorizer
