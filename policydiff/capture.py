"""The captured corpus: OPA decision logs of a deployment turned into corpus records.

OPA's console decision logger (``deploy/opa/config.yaml``) writes one JSON object per
decision to the sidecar's output, with the query ``path``, the ``input``, the
``result`` and, when the ``system.log`` mask removed something, ``erased`` (and
``masked``) listing the JSON pointers. :func:`capture` reads such log lines (any other
line is skipped and counted), keeps the decisions of the service's entry points
(:data:`app.policy.gateway.ENTRYPOINTS`) and writes ``{entrypoint, input}`` records.

Masked fields stay masked: a decision whose input lost fields becomes a record marked
``partial`` with the pointers under ``masked``; the diff replays it without them.
Results are not kept: the diff asks both policy sets anew.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import orjson

from app.policy.gateway import ENTRYPOINTS
from policydiff.corpus import Record

__all__ = ["CaptureStats", "capture"]


@dataclass
class CaptureStats:
    """What a capture read.

    Attributes:
        records: decision events turned into records.
        partial: of those, records with masked input fields.
        skipped: lines that were not decision events of a known entry point, counted
            by cause (``not json``, ``not a decision``, ``other path``, ``no input``).
    """

    records: int = 0
    partial: int = 0
    skipped: Counter[str] = field(default_factory=Counter)


def capture(
    lines: Iterable[bytes | str], source: str = "captured"
) -> tuple[list[Record], CaptureStats]:
    """Records from OPA decision-log lines, and what was read."""
    stats = CaptureStats()
    records = []
    for line in lines:
        if not line.strip():
            continue
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:
            stats.skipped["not json"] += 1
            continue
        if not isinstance(event, dict) or "decision_id" not in event or "path" not in event:
            stats.skipped["not a decision"] += 1
            continue
        path = str(event["path"]).strip("/").removeprefix("data/")
        if path not in ENTRYPOINTS:
            stats.skipped["other path"] += 1
            continue
        if "input" not in event:
            stats.skipped["no input"] += 1
            continue
        removed = [
            pointer
            for key in ("erased", "masked")
            for pointer in event.get(key) or []
            if isinstance(pointer, str) and pointer.startswith("/input")
        ]
        record = Record(
            entrypoint=path,
            input=event["input"],
            source=source,
            partial=bool(removed),
            masked=tuple(sorted(set(removed))),
        )
        records.append(record)
        stats.records += 1
        stats.partial += record.partial
    return records, stats
