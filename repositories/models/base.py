"""The declarative base, the schema's conventions and its enumerations.

Conventions, chosen so that the schema protects itself even against a buggy writer:

* Primary keys are ``uuid`` with the server default ``gen_random_uuid()`` (built into
  PostgreSQL 13 and later, so no extension is needed). Writers that must know an id
  before inserting (the world loader) may still supply one.
* Timestamps are ``timestamptz``; ``created_at`` defaults to ``now()``.
* Enumerations are ``text`` columns with a ``CHECK (col IN (...))`` rather than
  PostgreSQL enum types: adding a value is then a plain constraint swap in a migration
  instead of an ``ALTER TYPE`` that cannot run inside a transaction on older servers.
  The allowed values are exported as tuples (``PRINCIPAL_KINDS``, ...) so that input
  validation (for example the world fixture schema) uses the same lists.
* Every constraint and index has a deterministic name (see ``NAMING_CONVENTION``) so
  the migrations can refer to them and errors can be mapped back to a cause.

Import these names from :mod:`repositories.models`; the helpers here serve the table
modules of the package.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, ClassVar, Final

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Text,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, MappedColumn, mapped_column

PRINCIPAL_KINDS: Final = ("user", "agent", "app")
PRINCIPAL_STATUSES: Final = ("active", "pending", "disabled", "deleted")
TOKEN_KINDS: Final = ("session", "agent", "app", "runner")
CHANNEL_KINDS: Final = ("regular", "dm")
# Listed from weakest to strongest for readers; the ordering is decided in Rego, never
# by comparing positions in Python.
GRANT_LEVELS: Final = ("read", "write", "trigger", "manage")
THREAD_KINDS: Final = ("main", "thread", "forum_post")
MESSAGE_ORIGINS: Final = ("human", "agent", "app", "import", "system")
MESSAGE_KINDS: Final = ("text", "system", "file")
SCAN_STATUSES: Final = ("pending", "clean", "infected", "failed")
RUN_TRIGGER_KINDS: Final = ("message", "command", "interaction")
RUN_STATES: Final = ("queued", "running", "waiting_input", "succeeded", "failed", "cancelled")
ACTIVE_RUN_STATES: Final = ("queued", "running", "waiting_input")
FOLLOWUP_STATES: Final = ("pending", "delivered", "absorbed", "dropped")
BINDING_STATES: Final = ("provisioned", "bound", "stopped")
# principals.acting_for: "required" agents may post and list only for a bound run's
# requester (issue 21); the rule itself is decided in Rego (policies/authz/actingfor).
ACTING_FOR_VALUES: Final = ("optional", "required")
# audit_log.acting_for: the mode that decided a denial.
ACTING_FOR_MODES: Final = ("own", "run")

NAMING_CONVENTION: Final[dict[str, str]] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def sql_list(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{value}'" for value in values)


def one_of(column: str, values: tuple[str, ...]) -> CheckConstraint:
    """CHECK that ``column`` holds one of ``values``; named ``ck_<table>_<column>_valid``."""
    return CheckConstraint(f"{column} IN ({sql_list(values)})", name=f"{column}_valid")


def matches(column: str, pattern: str) -> CheckConstraint:
    """CHECK that ``column`` matches ``pattern`` in full; named ``ck_<table>_<column>_valid``.

    PostgreSQL's ``$`` matches only at the end of the string, so a trailing newline
    cannot slip through as it can with Python's ``re.search``.
    """
    return CheckConstraint(f"{column} ~ '^{pattern}$'", name=f"{column}_valid")


def uuid_pk() -> MappedColumn[Any]:
    return mapped_column(
        UUID(as_uuid=True), primary_key=True, server_default=text("gen_random_uuid()")
    )


def created_at_column() -> MappedColumn[Any]:
    return mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())


def cascade_to(table: str, *, primary_key: bool = False) -> MappedColumn[Any]:
    """A foreign key to ``<table>.id`` whose row is deleted with the row it refers to."""
    return mapped_column(ForeignKey(f"{table}.id", ondelete="CASCADE"), primary_key=primary_key)


class Membership:
    """Mixin of a table that pairs an owner with principals (channel or group members).

    The table declares its owner column, ``cascade_to(<owner table>, primary_key=True)``;
    ``principal_id`` follows it (a mixin's columns come after the table's own). The
    primary key (owner, principal) serves "members of an owner"; the index
    ``ix_<table>_principal_id`` serves "what a principal is a member of", which every
    fact bundle needs.
    """

    principal_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("principals.id", ondelete="CASCADE"), primary_key=True, index=True
    )


def unique_where(name: str, column: str, where: str) -> Index:
    """A partial unique index ``name``: one row per ``column`` among the rows ``where``."""
    return Index(name, column, unique=True, postgresql_where=text(where))


class Base(DeclarativeBase):
    """Declarative base carrying the shared metadata and its naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        uuid.UUID: UUID(as_uuid=True),
        datetime: DateTime(timezone=True),
        str: Text(),
        int: Integer(),
        bool: Boolean(),
    }
