"""The scratch OPA's own resources: its output file is closed when it is done."""

from __future__ import annotations

from pathlib import Path

import pytest

from policydiff.scratch import ScratchError, ScratchOpa


def test_closing_a_scratch_server_closes_its_log(tmp_path: Path) -> None:
    server = ScratchOpa(tmp_path, binary=tmp_path / "opa", name="base")

    server.close()
    server.close()

    assert server._log.closed


def test_a_context_that_does_not_start_still_closes_its_log(tmp_path: Path) -> None:
    server = ScratchOpa(tmp_path, binary=tmp_path / "opa", name="base")

    with pytest.raises(ScratchError, match="missing"), server:
        pass

    assert server._log.closed
