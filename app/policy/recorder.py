"""The policy corpus recorder: every input the gateway sends, appended to a file.

When the configuration key ``policy.corpus_file`` names a file, the composition root
wraps the OPA transport in a :class:`RecordingTransport`, so every call of
:meth:`PolicyGateway._ask <app.policy.gateway.PolicyGateway>` (the only caller of
``Transport.evaluate``) appends one JSON line ``{"entrypoint", "input"}`` before the
input is sent. The policy impact diff (``python -m app policy diff``, package
``policydiff``) replays these records against two policy revisions. Off by default
and never set in the deployment files: it is for test and staging runs.

What is written: the input exactly as sent, less the fields that the OPA decision-log
mask (``policies/system/log/log.rego``) removes from decision logs, since those are
client-supplied bags (a session-context resolution's surface keys and intents). A
record that lost a field says so: ``"partial": true`` and ``"masked"`` lists the JSON
pointers removed. The recorder is therefore never a weaker sink than OPA's own log.
Inputs carry no message content, handle, display name or token in the first place
(``docs/policy-input.md``).

Concurrency: each record is one ``write`` on a descriptor opened with ``O_APPEND``
under an exclusive ``flock``, so threads of one process and several processes (every
service of a test run, the replicas of ``test_two_replicas``) append whole lines to
one file without interleaving.

Errors: a corpus that cannot be written raises ``OSError`` and so fails the request
(500). A silently incomplete corpus would let a policy change through unseen, and the
recorder never runs where availability matters more than the record.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

import orjson

from app.opa_client import Evaluation
from app.policy.gateway import Transport

__all__ = ["MASKED_INPUT_POINTERS", "CorpusRecorder", "RecordingTransport", "recording"]

# The JSON pointers under /input that system.log.mask removes from decision logs (an
# integration test pins this tuple to the policy's mask). All are top-level fields.
MASKED_INPUT_POINTERS = ("/input/context", "/input/intents", "/input/payload", "/input/surfaces")
_MASKED_FIELDS = tuple(pointer.removeprefix("/input/") for pointer in MASKED_INPUT_POINTERS)


def _masked(input: Any) -> tuple[Any, list[str]]:
    if not isinstance(input, dict):
        return input, []
    removed = [field for field in _MASKED_FIELDS if field in input]
    if not removed:
        return input, []
    kept = {key: value for key, value in input.items() if key not in removed}
    return kept, [f"/input/{field}" for field in removed]


class CorpusRecorder:
    """Append ``{entrypoint, input}`` records to a JSON Lines corpus file.

    Args:
        path: the corpus file; created (with its folder) when missing, never truncated.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def record(self, entrypoint: str, input: Any) -> None:
        """Append one record (masked fields removed, the record marked partial).

        Raises:
            OSError: the file cannot be opened, locked or written.
        """
        kept, removed = _masked(input)
        record: dict[str, Any] = {"entrypoint": entrypoint, "input": kept}
        if removed:
            record["partial"] = True
            record["masked"] = removed
        line = orjson.dumps(record) + b"\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)  # closing releases the lock


class RecordingTransport:
    """A :class:`~app.policy.gateway.Transport` that records every input, then sends it.

    It wraps the real transport instead of changing the gateway, so the gateway's
    ``_ask`` stays the single place every call passes and other observers (metrics,
    traces) can hook it independently.
    """

    def __init__(self, transport: Transport, recorder: CorpusRecorder) -> None:
        self._transport = transport
        self.recorder = recorder

    @property
    def calls(self) -> int:
        """Round trips made so far by the wrapped transport."""
        return self._transport.calls

    def evaluate(self, path: str, input: Any, *, correlation_id: str = "") -> Evaluation:
        """Record ``input`` for ``path``, then evaluate it with the wrapped transport.

        Raises:
            OSError: the record cannot be written (nothing is sent then).
            OpaUnavailable: as the wrapped transport.
        """
        self.recorder.record(path, input)
        return self._transport.evaluate(path, input, correlation_id=correlation_id)


def recording(transport: Transport, corpus_file: str) -> Transport:
    """``transport`` itself when ``corpus_file`` is empty, else a recording wrapper."""
    if not corpus_file:
        return transport
    return RecordingTransport(transport, CorpusRecorder(corpus_file))
