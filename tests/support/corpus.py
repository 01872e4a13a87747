"""Recording the integration suite's policy inputs (issue 11).

``make test`` sets ``POLICY_CORPUS_FILE`` (the environment name of the configuration
key ``policy.corpus_file``) for pytest. The fixtures build their settings from an
empty environment so that the developer's shell cannot change a test; they add this
one key explicitly through :func:`recording_overrides`, so every service the
integration tests start appends its policy inputs to the same corpus file. Services
started as subprocesses (``python -m app serve``) read the variable themselves.
"""

from __future__ import annotations

import os

__all__ = ["CORPUS_ENV", "recording_overrides"]

CORPUS_ENV = "POLICY_CORPUS_FILE"


def recording_overrides() -> dict[str, str]:
    """``{"policy.corpus_file": <file>}`` when the run records a corpus, else empty."""
    corpus = os.environ.get(CORPUS_ENV, "")
    return {"policy.corpus_file": corpus} if corpus else {}
