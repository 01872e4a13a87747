"""Corpus records: ``{entrypoint, input}`` as JSON Lines, read, written and deduplicated.

A record is one policy question: the entry point (``authz/decision``, ...; the paths of
:data:`app.policy.gateway.ENTRYPOINTS`) and the ``input`` sent to it. Optional fields:

* ``partial`` and ``masked``: fields were removed before the record was written (the
  recorder and the decision-log capture drop what the decision-log mask drops); the
  JSON pointers are listed. A partial record is replayed without those fields.
* ``label``: only in the generated corpus, the generator's name for the facts of the
  record (``{"table": ..., "facts": {...}}``); the decision tables read it, the diff
  ignores it.

The three corpus parts (recorded, generated, captured) share this format, so any mix
of files can be diffed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from app.policy.gateway import ENTRYPOINTS

__all__ = ["CorpusError", "Record", "dedupe", "dump_records", "read_corpus", "write_corpus"]


class CorpusError(ValueError):
    """A corpus file cannot be read, or a line is not a valid record."""


@dataclass(frozen=True, slots=True)
class Record:
    """One policy question of a corpus.

    Attributes:
        entrypoint: the OPA path the input is sent to, e.g. ``authz/decision``.
        input: the input document.
        source: where the record comes from (``generated``, ``recorded``, a file name).
        partial: fields were masked before the record was written.
        masked: the JSON pointers that were removed.
        label: the generator's facts (generated records only).
    """

    entrypoint: str
    input: Any
    source: str = ""
    partial: bool = False
    masked: tuple[str, ...] = ()
    label: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def key(self) -> bytes:
        """Identity of the question: entry point and input, key order ignored."""
        return orjson.dumps([self.entrypoint, self.input], option=orjson.OPT_SORT_KEYS)

    @property
    def action(self) -> str:
        """The input's ``action`` when it has one, else the entry point."""
        if isinstance(self.input, dict) and isinstance(self.input.get("action"), str):
            return str(self.input["action"])
        return self.entrypoint

    def to_json(self) -> dict[str, Any]:
        """The record as written to a corpus file."""
        document: dict[str, Any] = {"entrypoint": self.entrypoint, "input": self.input}
        if self.partial:
            document["partial"] = True
            document["masked"] = list(self.masked)
        if self.label is not None:
            document["label"] = self.label
        return document


def _parse(line: bytes, where: str, source: str) -> Record:
    try:
        document = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise CorpusError(f"{where}: not JSON") from exc
    if not isinstance(document, dict) or "input" not in document:
        raise CorpusError(f"{where}: a record is an object with entrypoint and input")
    entrypoint = document.get("entrypoint")
    if entrypoint not in ENTRYPOINTS:
        raise CorpusError(f"{where}: unknown entrypoint {entrypoint!r}")
    masked = document.get("masked", [])
    partial = document.get("partial", False)
    label = document.get("label")
    if (
        not isinstance(partial, bool)
        or not isinstance(masked, list)
        or not all(isinstance(p, str) for p in masked)
        or (label is not None and not isinstance(label, dict))
    ):
        raise CorpusError(f"{where}: partial, masked or label has the wrong type")
    return Record(
        entrypoint=str(entrypoint),
        input=document["input"],
        source=source,
        partial=partial or bool(masked),
        masked=tuple(masked),
        label=label,
    )


def read_corpus(path: str | Path, source: str | None = None) -> list[Record]:
    """Read a JSON Lines corpus; blank lines are skipped.

    Raises:
        CorpusError: the file cannot be read, or a line is not a record of a known
            entry point (the message names the file and line).
    """
    path = Path(path)
    name = source if source is not None else path.stem
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{path}: {exc.strerror or type(exc).__name__}") from exc
    records = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if line.strip():
            records.append(_parse(line, f"{path}:{number}", name))
    return records


def dump_records(records: Iterable[Record]) -> Iterator[bytes]:
    """Each record as one JSON line (bytes, newline included)."""
    for record in records:
        yield orjson.dumps(record.to_json()) + b"\n"


def write_corpus(path: str | Path, records: Iterable[Record]) -> int:
    """Write ``records`` to ``path`` (replacing it); returns how many were written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("wb") as sink:
        for line in dump_records(records):
            sink.write(line)
            count += 1
    temporary.replace(path)
    return count


def dedupe(records: Iterable[Record]) -> list[Record]:
    """The records in order, each question once (the first occurrence wins)."""
    seen: set[bytes] = set()
    unique = []
    for record in records:
        key = record.key
        if key not in seen:
            seen.add(key)
            unique.append(record)
    return unique
