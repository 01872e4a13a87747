"""Fixtures of the signed-bundle tests: keys, bundles of three revisions, app replicas.

The bundles are built once per module with ``opa build`` (as ``make bundle`` does):

* ``first``: ``policies/`` as they are, revision :data:`FIRST`;
* ``second``: a reviewed change, revision :data:`SECOND`: listing messages needs
  write instead of read (so ``reader`` can no longer list ``support/general``);
* ``tampered``: ``first`` with a Rego file changed after signing: posting needs only
  read (so ``reader`` could post);
* ``foreign``: the same change, signed properly, but with another key under the trusted
  key's id.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningService, start_app
from tests.integration.foundation.conftest import extended_world
from tests.support.bundles import (
    BundleService,
    BundleSidecar,
    SigningKey,
    build_bundle,
    policies_copy,
    sidecars,
    signing_key,
    tamper,
)
from tests.support.services import OpaServer, free_port
from tests.support.world import load

FIRST = "1f0e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6"
SECOND = "2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d-dirty"
MESSAGES_REGO = "authz/messages/messages.rego"
LIST_NEEDS_READ = '"message.list": levels.read,'
POST_NEEDS_WRITE = '"message.post": levels.write,'


@dataclass(frozen=True)
class Bundles:
    """The keys and the bundle files of one module."""

    key: SigningKey
    other_key: SigningKey
    first: Path
    second: Path
    tampered: Path
    foreign: Path


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> Bundles:
    """Keys generated now, bundles built now (see the module docstring)."""
    root = tmp_path_factory.mktemp("bundles")
    key = signing_key(root, "trusted")
    other_key = signing_key(root, "other")  # same key id, not trusted
    second_policies = policies_copy(
        root / "second" / "policies",
        (MESSAGES_REGO, LIST_NEEDS_READ, '"message.list": levels.write,'),
    )
    looser = (MESSAGES_REGO, POST_NEEDS_WRITE, '"message.post": levels.read,')
    loose_policies = policies_copy(root / "loose" / "policies", looser)
    first = build_bundle(root / "first.tar.gz", revision=FIRST, key=key)
    return Bundles(
        key=key,
        other_key=other_key,
        first=first,
        second=build_bundle(
            root / "second.tar.gz", revision=SECOND, key=key, policies=second_policies
        ),
        tampered=tamper(first, root / "tampered.tar.gz", *looser),
        foreign=build_bundle(
            root / "foreign.tar.gz", revision="f" * 40, key=other_key, policies=loose_policies
        ),
    )


@pytest.fixture
def ids(database_url: str) -> dict[str, str]:
    """The foundation tests' extended demo world in this test's database."""
    return load(database_url, extended_world())


@contextlib.contextmanager
def replicas(
    database_url: str, sidecars: Sequence[OpaServer], **overrides: Any
) -> Iterator[list[RunningService]]:
    """One app per sidecar, deciding only with signed bundles, metrics counted.

    The apps' log lines all go to the last one's ``log`` (one root handler).
    """
    with contextlib.ExitStack() as stack:
        apps = [
            stack.enter_context(
                start_app(
                    database_url,
                    sidecar.url,
                    **{
                        "policy.require_bundle_revision": True,
                        "metrics.port": free_port(),
                        **overrides,
                    },
                )
            )
            for sidecar in sidecars
        ]
        try:
            yield apps
        finally:
            logging.getLogger().handlers.clear()


@dataclass
class Deployment:
    """A bundle service, its sidecars (trusting the module's key) and one app each."""

    service: BundleService
    sidecars: list[BundleSidecar]
    apps: list[RunningService]


@contextlib.contextmanager
def deployment(
    bundles: Bundles, database_url: str, count: int, published: Path | None
) -> Iterator[Deployment]:
    """``count`` replicas with their sidecars; ``published`` served from the start."""
    with BundleService() as service:
        if published is not None:
            service.publish(published)
        with (
            sidecars(service, [bundles.key], count) as started,
            replicas(database_url, started) as apps,
        ):
            yield Deployment(service, started, apps)


def revision_info(service: RunningService) -> dict[str, float]:
    """``agent_authz_policy_revision_info`` of one app, by revision."""
    metrics = service.app.services.metrics
    assert metrics is not None
    return {
        sample.labels["revision"]: sample.value
        for family in metrics.registry.collect()
        if family.name == "agent_authz_policy_revision_info"
        for sample in family.samples
    }
