"""Scratch OPA servers: a policy set served on a free loopback port, replayed in batches.

A generated ``policydiff_batch`` module evaluates hundreds of records per request
(ADR 0014); :func:`replay` sends a corpus to started servers, :func:`extract_revision`
writes a git revision's ``policies/`` into a folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from opa_client.opa import OpaClient as PolicyLoader

from app.opa_client import OpaClient, OpaHttpError, OpaUnavailable, OpaUndefined
from app.policy.gateway import ENTRYPOINTS
from policydiff.corpus import Record

__all__ = [
    "BATCH_PACKAGE",
    "Outcome",
    "ScratchError",
    "ScratchOpa",
    "batch_module",
    "data_files",
    "end_process",
    "extract_revision",
    "free_port",
    "replay",
]

BATCH_PACKAGE = "policydiff_batch"

# The bounds of one batch request of :func:`replay`: records and encoded bytes.
_BATCH_RECORDS = 500
_BATCH_BYTES = 2_000_000

# An outcome: {"result": <document>} when defined, {} when undefined, {"error": code}.
Outcome = dict[str, Any]

_PACKAGE = re.compile(r"^package\s+([\w.\"\[\]-]+)", re.MULTILINE)
_IMPORT = re.compile(r"^import\s+data\.([\w.]+)", re.MULTILINE)


def end_process(process: subprocess.Popen[Any], timeout: float = 10) -> None:
    """Terminate ``process`` if it runs, and kill it if it has not ended in ``timeout``
    seconds (a server that ignores SIGTERM must not outlive the tool)."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class ScratchError(RuntimeError):
    """A scratch server could not be started or loaded, or a revision not extracted."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rule(entrypoint: str) -> str:
    return entrypoint.replace("/", "__")


def batch_module(entrypoints: Sequence[str] = ENTRYPOINTS) -> str:
    """The Rego source of the batch module for ``entrypoints``."""
    lines = [f"package {BATCH_PACKAGE}", ""]
    for entrypoint in entrypoints:
        rule, ref = _rule(entrypoint), "data." + entrypoint.replace("/", ".")
        lines += [
            f"{rule} := [_{rule}(x) | some x in input.items]",
            "",
            f'_{rule}(x) := {{"result": r}} if {{',
            f"\tr := {ref} with input as x",
            "} else := {}",
            "",
        ]
    return "\n".join(lines)


def _modules(policies: Path, *, tests: bool = False) -> list[tuple[Path, str]]:
    """The policy modules (tests only when ``tests``) and their source, dependencies first."""
    files = sorted(
        path for path in policies.rglob("*.rego") if tests or not path.name.endswith("_test.rego")
    )
    sources = {path: path.read_text(encoding="utf-8") for path in files}
    packages = {}
    for path in files:
        match = _PACKAGE.search(sources[path])
        packages[path] = match.group(1) if match else ""
    ordered: list[Path] = []
    visiting: set[Path] = set()

    def visit(path: Path) -> None:
        if path in ordered or path in visiting:
            return
        visiting.add(path)
        for imported in _IMPORT.findall(sources[path]):
            for other in files:
                package = packages[other]
                if other != path and (package == imported or package.startswith(imported + ".")):
                    visit(other)
        visiting.discard(path)
        ordered.append(path)

    for path in files:
        visit(path)
    return [(path, sources[path]) for path in ordered]


def data_files(policies: Path) -> list[tuple[str, Any]]:
    """``data.json`` files as (data path, document), as a bundle would place them."""
    documents = []
    for path in sorted(policies.rglob("data.json")):
        relative = path.parent.relative_to(policies).as_posix()
        try:
            documents.append((relative if relative != "." else "", json.loads(path.read_text())))
        except (OSError, ValueError) as exc:
            raise ScratchError(f"{path}: unreadable policy data") from exc
    return documents


class ScratchOpa:
    """One throwaway OPA serving one policy folder on a free loopback port.

    Args:
        policies: the folder to serve (``*_test.rego`` files are not loaded).
        binary: the OPA binary (``.bin/opa``).
        name: used in error messages (``base``, ``working tree``).

    Use as a context manager; :meth:`stop` ends the process, :meth:`close` ends it
    and closes its output file (leaving the context closes).
    """

    def __init__(self, policies: Path, *, binary: Path, name: str) -> None:
        self.policies = policies
        self.binary = binary
        self.name = name
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        # OPA's output, read only for error messages; kept across the restarts of
        # _spawn (which stop() between attempts), closed by close().
        self._log = tempfile.TemporaryFile()  # noqa: SIM115
        self._loader: PolicyLoader | None = None
        self._client: OpaClient | None = None

    def __enter__(self) -> ScratchOpa:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _spawn(self) -> None:
        if not self.binary.exists():
            raise ScratchError(f"{self.binary} missing: run make tools")
        for _attempt in range(3):
            self.port = free_port()
            self._process = subprocess.Popen(
                [
                    str(self.binary),
                    "run",
                    "--server",
                    "--addr",
                    f"127.0.0.1:{self.port}",
                    "--log-level",
                    "error",
                ],
                stdout=self._log,
                stderr=subprocess.STDOUT,
            )
            self._loader = PolicyLoader(host="127.0.0.1", port=self.port, timeout=30, retries=0)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self._process.poll() is None:
                if self._loader.check_health():
                    return
                time.sleep(0.02)
            self.stop()  # the port was taken meanwhile, or OPA is broken: try again
        raise ScratchError(f"OPA for the {self.name} policies did not start: {self._output()}")

    def _output(self) -> str:
        self._log.seek(0)
        return self._log.read()[-2000:].decode("utf-8", errors="replace")

    def start(self) -> ScratchOpa:
        """Start OPA, load the policies and the batch module, check health.

        Raises:
            ScratchError: OPA does not start, or a module or data file does not load
                (the message carries OPA's compile error).
        """
        self._spawn()
        loader = self._loader
        assert loader is not None
        try:
            for data_path, document in data_files(self.policies):
                loader.update_or_create_data(document, data_path)
            for path, source in _modules(self.policies):
                loader.update_policy_from_string(
                    source,
                    path.relative_to(self.policies).as_posix(),
                    rego_compat=False,
                )
            loader.update_policy_from_string(batch_module(), BATCH_PACKAGE, rego_compat=False)
        except Exception as exc:
            self.stop()
            detail = getattr(exc, "message", None) or exc
            raise ScratchError(f"the {self.name} policies do not load: {detail}") from exc
        if not loader.check_health():
            self.stop()
            raise ScratchError(f"OPA for the {self.name} policies is not healthy")
        self._client = OpaClient(f"http://127.0.0.1:{self.port}", timeout=300, pool_size=4)
        return self

    def stop(self) -> None:
        """End the OPA process (idempotent)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._loader is not None:
            with contextlib.suppress(Exception):
                self._loader.close_connection()
        if self._process is not None:
            end_process(self._process)

    def close(self) -> None:
        """End the OPA process and close its output file (idempotent; no restart after)."""
        try:
            self.stop()
        finally:
            self._log.close()

    def query_document(self, path: str) -> Any:
        """The document at ``data.<path>`` (slashes separate segments), ``None`` if undefined.

        Raises:
            ScratchError: the server is not running or does not answer.
        """
        if self._client is None:
            raise ScratchError(f"OPA for the {self.name} policies is not running")
        try:
            return self._client.query(path, {})
        except OpaUndefined:
            return None
        except OpaUnavailable as exc:
            raise ScratchError(f"OPA for the {self.name} policies: {exc}") from exc

    def put_module(self, module_id: str, source: str) -> str | None:
        """Replace (or add) one policy module through OPA's policy API.

        ``module_id`` is the module's path relative to the policies folder, the id
        :meth:`start` loaded it under. OPA compiles every module again; on a compile
        error it keeps the previous set.

        Returns:
            OPA's error message when the module does not compile, else ``None``.

        Raises:
            ScratchError: the server is not running.
        """
        if self._loader is None or self._process is None or self._process.poll() is not None:
            raise ScratchError(f"OPA for the {self.name} policies is not running")
        try:
            self._loader.update_policy_from_string(source, module_id, rego_compat=False)
        except Exception as exc:
            return str(getattr(exc, "message", None) or exc)
        return None

    def evaluate(
        self, entrypoint: str, inputs: Sequence[Any], *, split: bool = True
    ) -> list[Outcome]:
        """The outcome of every input at ``entrypoint``, in order, in one request.

        A batch OPA cannot evaluate is split in halves down to the failing records
        (``split``); without splitting, every record of it gets the error outcome.

        Raises:
            ScratchError: the server is not running or does not answer at all.
        """
        if self._client is None:
            raise ScratchError(f"OPA for the {self.name} policies is not running")
        if not inputs:
            return []
        try:
            outcomes = self._client.query(
                f"{BATCH_PACKAGE}/{_rule(entrypoint)}", {"items": list(inputs)}
            )
        except OpaUnavailable as exc:
            if self._process is None or self._process.poll() is not None:
                raise ScratchError(f"OPA for the {self.name} policies stopped") from exc
            if len(inputs) == 1 or not split:
                return [{"error": _error_code(exc)} for _ in inputs]
            half = len(inputs) // 2
            return self.evaluate(entrypoint, inputs[:half]) + self.evaluate(
                entrypoint, inputs[half:]
            )
        if not isinstance(outcomes, list) or len(outcomes) != len(inputs):
            raise ScratchError(f"the {self.name} batch answer does not match the records sent")
        return outcomes


def _error_code(exc: OpaUnavailable) -> str:
    if isinstance(exc, OpaHttpError) and exc.status is not None:
        return f"http_{exc.status}"
    return "unavailable"


def _chunks(indices: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    chunks: list[list[int]] = []
    current: list[int] = []
    weight = 0
    for index in indices:
        if current and (len(current) >= _BATCH_RECORDS or weight + sizes[index] > _BATCH_BYTES):
            chunks.append(current)
            current, weight = [], 0
        current.append(index)
        weight += sizes[index]
    if current:
        chunks.append(current)
    return chunks


def replay(
    pool: ThreadPoolExecutor,
    servers: Sequence[ScratchOpa],
    records: Sequence[Record],
    *,
    sizes: Sequence[int] | None = None,
) -> list[list[Outcome]]:
    """The outcomes of every record on every server, in record order.

    Records are sent per entry point in batches of at most 500 records and 2 MB (a
    larger record goes alone); ``sizes`` are the records' sizes in bytes,
    ``len(record.key)`` by default. Every batch is submitted to ``pool`` at once, so
    several are in flight and every server stays busy.

    Raises:
        ScratchError: a server stops answering.
    """
    if sizes is None:
        sizes = [len(record.key) for record in records]
    by_entrypoint: dict[str, list[int]] = {}
    for index, record in enumerate(records):
        by_entrypoint.setdefault(record.entrypoint, []).append(index)
    outcomes: list[list[Outcome]] = [[{} for _ in records] for _ in servers]
    futures: list[tuple[int, list[int], Future[list[Outcome]]]] = []
    for entrypoint, indices in by_entrypoint.items():
        for chunk in _chunks(indices, sizes):
            inputs = [records[index].input for index in chunk]
            for position, server in enumerate(servers):
                futures.append((position, chunk, pool.submit(server.evaluate, entrypoint, inputs)))
    for position, chunk, future in futures:
        for index, outcome in zip(chunk, future.result(), strict=True):
            outcomes[position][index] = outcome
    return outcomes


def extract_revision(revision: str, destination: Path, *, repo: Path) -> Path:
    """Write ``policies/`` of git ``revision`` into ``destination``; returns the folder.

    Raises:
        ScratchError: git fails (unknown revision, no ``policies/`` folder there).
    """
    result = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", revision, "--", "policies"],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", errors="replace").strip()
        raise ScratchError(f"git archive {revision} policies failed: {message}")
    with tarfile.open(fileobj=io.BytesIO(result.stdout)) as archive:
        archive.extractall(destination, filter="data")
    return destination / "policies"
