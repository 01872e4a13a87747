"""Throwaway PostgreSQL clusters, OPA and Redis servers and app processes for the tests.

The default test path needs no Docker: PostgreSQL comes from Debian's package
(``scripts/install-postgres.sh``) and runs as a cluster in a temp dir on a free port;
OPA is the real binary built into ``.bin/`` by ``scripts/build-tools.sh``; Redis is
Debian's ``redis-server`` (``scripts/install-redis.sh``) on a free port without
persistence. A missing binary raises :class:`ServiceError`, so integration tests fail,
never skip.
:class:`AppProcess` runs the app as ``python -m app serve`` (or a variant) does, and
:func:`run_sql` sends statements to a database in autocommit mode.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import psycopg2
import requests

from policydiff.scratch import end_process

__all__ = [
    "REPO_ROOT",
    "AppProcess",
    "OpaServer",
    "PostgresCluster",
    "RedisServer",
    "ServiceError",
    "free_port",
    "run_sql",
]

REPO_ROOT = Path(__file__).resolve().parents[2]


class ServiceError(RuntimeError):
    """A service binary is missing or did not become ready."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_sql(url: str, *statements: str) -> list[tuple[Any, ...]]:
    """Run ``statements`` in autocommit mode; returns the rows of the last one ([] if none).

    Each statement is its own transaction, so ``CREATE DATABASE`` works too.
    """
    conn = psycopg2.connect(url)
    conn.autocommit = True
    rows: list[tuple[Any, ...]] = []
    try:
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
                rows = list(cursor.fetchall()) if cursor.description else []
    finally:
        conn.close()
    return rows


def _installed(script: str, what: str) -> Path:
    """The path the install script prints last (it installs Debian's package if needed)."""
    result = subprocess.run(
        ["bash", str(REPO_ROOT / "scripts" / script)],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise ServiceError(f"{what} unavailable: {result.stderr.strip()}")
    return Path(lines[-1])


def _postgres_bin() -> Path:
    return _installed("install-postgres.sh", "PostgreSQL binaries")


@dataclass
class PostgresCluster:
    """A PostgreSQL cluster in a temp dir, owned by the ``postgres`` user when run as root."""

    port: int = field(default_factory=free_port)
    datadir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="pgtest-")))

    def __post_init__(self) -> None:
        self.bindir = _postgres_bin()
        self._as_postgres = os.geteuid() == 0

    @property
    def admin_url(self) -> str:
        """URL of the ``postgres`` maintenance database."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        """URL of ``database`` on this cluster."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise ServiceError(f"{args[0]} failed: {result.stderr.strip() or result.stdout}")

    def start(self) -> PostgresCluster:
        """initdb, start on 127.0.0.1:port and wait until it accepts connections."""
        pgdata = self.datadir / "data"
        if self._as_postgres:
            uid = pwd.getpwnam("postgres").pw_uid
            os.chown(self.datadir, uid, -1)
        self._run(
            "initdb", "-D", str(pgdata), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"
        )
        options = (
            f"-p {self.port} -k {self.datadir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(pgdata),
            "-o",
            options,
            "-l",
            str(self.datadir / "server.log"),
            "-w",
            "start",
        )
        return self

    def restart(self) -> None:
        """Restart the server (fast shutdown: every open connection is cut).

        pg_ctl reuses the server options of the start; the log file is named again, or
        the new server would hold this process's output pipes open.
        """
        self._run(
            "pg_ctl",
            "-D",
            str(self.datadir / "data"),
            "-l",
            str(self.datadir / "server.log"),
            "-m",
            "fast",
            "-w",
            "restart",
        )

    def stop(self) -> None:
        """Stop the server and remove the data directory."""
        with contextlib.suppress(ServiceError):
            self._run("pg_ctl", "-D", str(self.datadir / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.datadir, ignore_errors=True)


@dataclass
class OpaServer:
    """The real OPA binary serving ``policies/`` with console decision logs to a file.

    It serves the folder as ``make run`` does, with ``deploy/opa/config.working-tree.yaml``
    (the sidecar configuration without a bundle service), so its answers name no policy
    revision. Signed bundles pulled from a bundle service: ``tests/support/bundles.py``.
    """

    port: int = field(default_factory=free_port)
    policies: Path = REPO_ROOT / "policies"
    # Extra environment of the OPA process (e.g. OPA_TRACING_ADDRESS for its traces).
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.binary = REPO_ROOT / ".bin" / "opa"
        if not self.binary.exists():
            raise ServiceError(f"{self.binary} missing: run scripts/build-tools.sh (make tools)")
        self.log_path = Path(tempfile.mkstemp(prefix="opa-", suffix=".log")[1])
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Base URL of the server."""
        return f"http://127.0.0.1:{self.port}"

    def server_command(self, config: str) -> list[str]:
        """``opa run --server`` on this port with ``deploy/opa/<config>``, JSON logs."""
        return [
            str(self.binary),
            "run",
            "--server",
            "--addr",
            f"127.0.0.1:{self.port}",
            "--config-file",
            str(REPO_ROOT / "deploy" / "opa" / config),
            "--log-format",
            "json",
        ]

    def command(self) -> list[str]:
        """The ``opa run`` command line (subclasses serve other sources)."""
        # Serve the policies, not their unit tests.
        return [
            *self.server_command("config.working-tree.yaml"),
            "--ignore",
            "*_test.rego",
            str(self.policies),
        ]

    def start(self) -> Self:
        """Start ``opa run --server`` and wait for /health."""
        log = self.log_path.open("ab")
        self._process = subprocess.Popen(
            self.command(),
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **self.env} if self.env else None,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise ServiceError(f"OPA exited: {self.log_path.read_text()[-2000:]}")
            try:
                if requests.get(f"{self.url}/health", timeout=0.5).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.05)
        raise ServiceError("OPA did not become healthy")

    def stop(self) -> None:
        """Terminate the server (idempotent)."""
        if self._process is not None:
            end_process(self._process)

    def read_log(self) -> str:
        """Everything OPA wrote so far (decision logs included)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")


@dataclass
class RedisServer:
    """A real ``redis-server`` on 127.0.0.1 and a free port, without persistence.

    :meth:`stop` and :meth:`start` again keep the port, so a test can take Redis away
    under a running app and bring it back (empty, as after a restart without
    persistence); :meth:`pause` and :meth:`resume` freeze it (SIGSTOP), so that
    connections hang instead of being refused.
    """

    port: int = field(default_factory=free_port)

    def __post_init__(self) -> None:
        self.binary = _installed("install-redis.sh", "redis-server")
        self.datadir = Path(tempfile.mkdtemp(prefix="redistest-"))
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``rate_limit.storage`` for this server (database 0)."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        """Whether the server process is alive (paused counts as alive)."""
        return self._process is not None and self._process.poll() is None

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *args: str) -> bytes:
        """Send one command (RESP) and return the raw first reply line."""
        payload = f"*{len(args)}\r\n".encode() + b"".join(
            f"${len(arg.encode())}\r\n{arg}\r\n".encode() for arg in args
        )
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            sock.sendall(payload)
            return sock.recv(65536).split(b"\r\n", 1)[0]

    def start(self) -> RedisServer:
        """Start ``redis-server`` and wait until it answers PING."""
        log = (self.datadir / "redis.log").open("ab")
        self._process = subprocess.Popen(
            [
                str(self.binary),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.datadir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                text = (self.datadir / "redis.log").read_text(errors="replace")
                raise ServiceError(f"redis-server exited: {text[-2000:]}")
            if self._ping():
                return self
            time.sleep(0.05)
        raise ServiceError("redis-server did not answer PING")

    def stop(self) -> None:
        """Stop the server (idempotent); its data is gone (no persistence)."""
        if self._process is not None and self._process.poll() is None:
            self.resume()
            end_process(self._process)

    def pause(self) -> None:
        """Freeze the server: connections are accepted by the kernel, never answered."""
        if self._process is not None:
            self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Undo :meth:`pause`."""
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        shutil.rmtree(self.datadir, ignore_errors=True)


@dataclass
class AppProcess:
    """The app in a child process, as ``python -m app serve`` runs it; output to ``log``.

    ``command`` follows ``python -m`` (``("app", "serve")`` or a variant of the app);
    the process runs in the repository with ``env`` plus ``HOST`` 127.0.0.1 and a free
    ``PORT``. :meth:`wait_ready` polls ``/readyz``; :meth:`stop` (also on leaving a
    ``with`` block) signals it and waits, killing it if it does not exit in time.
    """

    process: subprocess.Popen[bytes]
    base_url: str
    log: Path
    name: str

    @classmethod
    def start(
        cls, command: Sequence[str], env: Mapping[str, str], log: Path, *, name: str = "the app"
    ) -> AppProcess:
        """Start ``python -m <command>``; ``name`` is used in error messages."""
        port = free_port()
        with log.open("ab") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", *command],
                cwd=REPO_ROOT,
                env={**env, "HOST": "127.0.0.1", "PORT": str(port)},
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        return cls(process, f"http://127.0.0.1:{port}", log, name)

    def wait_ready(self, timeout: float = 60) -> None:
        """Return once ``/readyz`` answers 200.

        Raises:
            ServiceError: the process exited (with the end of its log) or did not
                become ready within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        with requests.Session() as probe:
            probe.trust_env = False
            while True:
                if self.process.poll() is not None:
                    raise ServiceError(f"{self.name} exited: {self.log.read_text()[-2000:]}")
                with contextlib.suppress(requests.RequestException):
                    if probe.get(f"{self.base_url}/readyz", timeout=1).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise ServiceError(f"{self.name} did not become ready")
                time.sleep(0.1)

    def rss_bytes(self) -> int:
        """The process's resident memory (``VmRSS`` of ``/proc/<pid>/status``).

        With one worker, ``python -m app serve`` serves in this very process.
        """
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="ascii")
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise ServiceError(f"{self.name} has no VmRSS")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
        """Send ``sig`` if still running, wait ``timeout`` seconds, then kill (idempotent)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.stop()
