"""Read, validate and load a world fixture: what ``python -m app world load`` runs.

Two strictly separated phases, so an invalid file writes nothing: :func:`validate_world`
checks the shape (:mod:`world.validation`) and plans every row (:mod:`world.planner`)
without a database; :func:`load_world` checks the plan against existing rows and writes
it through :mod:`repositories.bulk` in a savepoint of the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import Connection

from repositories.bulk import RowConflict, analyze_tables, existing_values, write_rows
from repositories.engine import make_engine
from world.errors import WorldError
from world.plan_state import Probe, WorldPlan
from world.planner import plan_world
from world.validation import check_shape, normalise

__all__ = [
    "load_world",
    "load_world_data",
    "load_world_file",
    "parse_world_yaml",
    "validate_world",
]


class _WorldLoader(yaml.SafeLoader):
    """Safe YAML loader that rejects duplicate keys and keeps timestamps as strings.

    PyYAML silently keeps the last of two equal keys, which would hide a mistake in a
    fixture; and it turns unquoted timestamps into naive ``datetime`` objects, losing
    the time zone the schema requires.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        seen: set[Hashable] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, Hashable) and key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f'duplicate key "{key}"',
                    key_node.start_mark,
                )
            if isinstance(key, Hashable):
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


_WorldLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def parse_world_yaml(text: str, source: str = "<world>") -> dict[str, Any]:
    """Parse the YAML text of a world fixture into a mapping.

    ``source`` names the text in errors (usually the file path).

    Raises:
        WorldError: the text is not valid YAML (path ``SOURCE:LINE:COLUMN``; the
            message gives the parser's reason but no excerpt of the text), contains a
            duplicate key, or is not a mapping at the top level.
    """
    try:
        document = yaml.load(text, Loader=_WorldLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        raise WorldError(where, f"invalid YAML: {exc.problem or 'syntax error'}") from None
    except yaml.YAMLError:
        raise WorldError(source, "invalid YAML") from None
    if not isinstance(document, dict):
        raise WorldError("$", "must be a mapping of sections such as people and spaces")
    return document


def validate_world(world: Mapping[str, Any]) -> WorldPlan:
    """Check a parsed world completely and compute what loading it would write.

    Null values count as absent. The shape is checked against
    :data:`world.schema.WORLD_SCHEMA` (the first error in document order is
    reported), then every reference and cross-entity rule; no database is touched.

    Raises:
        WorldError: the first problem found, with the path that names it.
    """
    if not isinstance(world, Mapping):
        raise WorldError("$", "must be a mapping of sections such as people and spaces")
    document = normalise(world, [])
    check_shape(document)
    return plan_world(document)


def _check_existing(conn: Connection, plan: WorldPlan) -> None:
    """Fail with a precise path when a unique value of the plan already exists."""
    by_column: dict[tuple[str, str], list[Probe]] = {}
    for probe in plan.probes:
        by_column.setdefault((probe.table, probe.column), []).append(probe)
    clashes: list[Probe] = []
    for (table, column), probes in by_column.items():
        existing = existing_values(conn, table, column, [probe.value for probe in probes])
        clashes.extend(probe for probe in probes if probe.value in existing)
    if clashes:
        order = {id(probe): index for index, probe in enumerate(plan.probes)}
        first = min(clashes, key=lambda probe: order[id(probe)])
        raise WorldError(first.path, f"{first.what} already exists in the database")


def load_world(conn: Connection, world: Mapping[str, Any]) -> dict[str, str]:
    """Validate ``world`` and write it through ``conn``; return the name-to-id mapping.

    The caller owns the transaction (``with engine.begin() as conn``). All writes run
    inside a savepoint, so on failure the world's rows are gone and the caller's
    transaction is still usable. Nothing is written unless validation passed. The
    planner's statistics are the caller's business here (:func:`load_world_data`
    analyses what it filled after the commit).

    Raises:
        WorldError: the world is invalid (see :func:`validate_world`), a handle, key,
            token or id already exists in the database, or the database rejects a row
            (path ``$``, naming the constraint).
    """
    return _load(conn, world)[0]


def _load(conn: Connection, world: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """:func:`load_world`, also returning the names of the tables it wrote rows to."""
    plan = validate_world(world)
    _check_existing(conn, plan)
    try:
        write_rows(conn, plan.inserts, plan.updates)
    except RowConflict as exc:
        raise WorldError("$", f"conflicts with the database ({exc})") from None
    filled = [name for name, _rows in plan.inserts]
    filled += [name for name, _column, _pairs in plan.updates if name not in filled]
    return dict(plan.mapping), filled


def load_world_data(
    database_url: str, world: Mapping[str, Any], *, analyze: bool = True
) -> dict[str, str]:
    """Load a parsed world into ``database_url`` in one transaction, then ``ANALYZE``
    the tables it filled (unless ``analyze`` is false); the name-to-id mapping.

    What ``python -m app world load`` does after reading the file.

    Raises:
        WorldError: see :func:`load_world`; nothing was written.
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            mapping, filled = _load(conn, world)
        if analyze:
            with engine.connect() as conn:
                analyze_tables(conn, filled)
                conn.commit()
        return mapping
    finally:
        engine.dispose()


def load_world_file(database_url: str, path: str, *, analyze: bool = True) -> dict[str, str]:
    """Load the YAML world fixture at ``path`` into ``database_url`` in one transaction,
    then ``ANALYZE`` the tables it filled (see :func:`load_world_data`).

    Raises:
        WorldError: the file cannot be read, is not valid YAML, or fails
            :func:`load_world`; nothing was written.
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise WorldError(path, f"cannot read the file ({reason})") from None
    world = parse_world_yaml(text, source=path)
    return load_world_data(database_url, world, analyze=analyze)
