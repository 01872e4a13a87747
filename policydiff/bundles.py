"""A built OPA bundle as the base of the policy diff (``policy diff --base-bundle FILE``).

A reviewer diffs what is deployed against a pull request: the bundle the sidecars run
(``make bundle``'s output, or the file the bundle service serves) is unpacked into a
scratch folder laid out like ``policies/``, which :class:`policydiff.scratch.ScratchOpa`
serves like any other base:

* every ``.rego`` file except ``*_test.rego``, under its path in the bundle (less a
  leading ``policies/``, which ``make bundle`` writes);
* the bundle's data document (``data.json`` at the bundle's root, the merge of every
  ``data.json`` it was built from) as one ``data.json`` per top-level key, so the
  scratch server places it at the same ``data`` paths.

The bundle's signature is not checked here: the diff only reads it. Its revision (the
``.manifest``) names the base in the report.
"""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path, PurePosixPath
from typing import Any

from policydiff.scratch import ScratchError

__all__ = ["extract_bundle"]

# Bounds of what a bundle may unpack to: ours are tens of files and tens of KB.
_MAX_MEMBERS = 5_000
_MAX_BYTES = 64 * 1024 * 1024


def _members(archive: tarfile.TarFile) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    for count, member in enumerate(archive, start=1):
        if count > _MAX_MEMBERS:
            raise ScratchError("the bundle has too many files")
        if not member.isfile():
            continue
        name = PurePosixPath(member.name.lstrip("/"))
        if name.is_absolute() or ".." in name.parts or not name.parts:
            raise ScratchError(f"the bundle holds an unsafe path: {member.name!r}")
        total += member.size
        if total > _MAX_BYTES:
            raise ScratchError("the bundle unpacks to more than 64 MiB")
        extracted = archive.extractfile(member)
        if extracted is not None:
            files[name.as_posix()] = extracted.read()
    return files


def _data(files: dict[str, bytes]) -> dict[str, Any]:
    raw = files.get("data.json")
    if raw is None:
        return {}
    try:
        document = json.loads(raw)
    except ValueError as exc:
        raise ScratchError("the bundle's data.json is not JSON") from exc
    if not isinstance(document, dict) or not all(isinstance(v, dict) for v in document.values()):
        raise ScratchError("the bundle's data.json is not an object of objects")
    return document


def extract_bundle(bundle: Path, destination: Path) -> tuple[Path, str | None]:
    """Unpack ``bundle`` into ``destination/policies``; returns it and the revision.

    Raises:
        ScratchError: not a readable gzipped tar, no Rego file, an unsafe or oversized
            member, or data that cannot be laid out as folders.
    """
    try:
        with tarfile.open(bundle, "r:gz") as archive:
            files = _members(archive)
    except (OSError, tarfile.TarError) as exc:
        raise ScratchError(f"{bundle}: not a readable bundle ({type(exc).__name__})") from exc
    modules = {
        name: source
        for name, source in files.items()
        if name.endswith(".rego") and not name.endswith("_test.rego")
    }
    if not modules:
        raise ScratchError(f"{bundle}: the bundle holds no Rego file")
    prefixed = all(name.startswith("policies/") for name in modules)
    target = destination / "policies"
    if target.exists():
        shutil.rmtree(target)
    for name, source in modules.items():
        path = target / (name.removeprefix("policies/") if prefixed else name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(source)
    for key, document in _data(files).items():
        folder = target / key
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "data.json").write_text(json.dumps(document), encoding="utf-8")
    revision = None
    if ".manifest" in files:
        try:
            manifest = json.loads(files[".manifest"])
        except ValueError as exc:
            raise ScratchError("the bundle's .manifest is not JSON") from exc
        if isinstance(manifest, dict) and isinstance(manifest.get("revision"), str):
            revision = manifest["revision"] or None
    return target, revision
