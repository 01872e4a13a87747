"""Facts about the machine the numbers come from (cores, memory, CPU, versions, load)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from tests.support.services import REPO_ROOT


def _meminfo_total() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                kib = int(line.split()[1])
                return f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return "unknown"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _opa_version() -> str:
    try:
        out = subprocess.run(
            [str(REPO_ROOT / ".bin" / "opa"), "version"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    for line in out.splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages (other work on the machine skews numbers)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def machine() -> dict[str, str]:
    """Facts about the machine the numbers come from."""
    return {
        "cores (nproc)": str(os.cpu_count() or "unknown"),
        "memory": _meminfo_total(),
        "CPU": _cpu_model(),
        "kernel": platform.release(),
        "Python": platform.python_version(),
        "OPA": _opa_version(),
    }
