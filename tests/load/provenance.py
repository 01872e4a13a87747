"""How a decision names its policy revision, and what that costs: a part of ``make bench``.

Every decision must name the revision of the signed bundle that made it. OPA offers two
ways, and the policy gateway uses the cheaper one:

* ``provenance``: ask for OPA's provenance (``POST /v1/data/...?provenance=true``); the
  answer carries ``provenance.bundles.<name>.revision``, read in the evaluation's own
  storage transaction. No policy changes. What ``app/policy/gateway.py`` does.
* ``metadata``: the decision carries the revision itself: a rule reads
  ``data.system.bundles["agent-authz"].manifest.revision`` into the decision object.
  Every entry point's answer (and so the policy contract, the decision tables and the
  policy diff, where each answer would differ by revision) would change with it.

Both are measured against ``plain`` (the decision without a revision) on one OPA
sidecar running the deploy configuration (``deploy/opa/config.yaml``: decision logs on,
status plugin) with a signed bundle pulled from ``scripts/bundle_service.py``. For the
``metadata`` variant the bundle holds one extra bench-only module,
``package bench_revision``, whose ``decision`` is ``data.authz.decision`` plus
``policy_revision``. Each variant goes through the app's own OPA client (keep-alive
pool, orjson) and reads the revision as the app would (``parse_revision`` for
provenance). Interleaved rounds at concurrency 1 (``tests/load/interleave.py``), so the
host's load hits every variant alike; the paired difference is the median of the
per-round differences to ``plain``.

``make bench`` calls :func:`measure_provenance` with the decision input its world
recorded and puts :func:`provenance_section` into ``docs/benchmarks.md``;
``python -m tests.load.provenance`` runs this part alone (with a synthetic input of the
same shape) and replaces that section of the file.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from app.opa_client import OpaClient
from app.policy.results import parse_decision, parse_revision
from tests.load.interleave import interleaved_rounds
from tests.support.bundles import (
    BundleService,
    build_bundle,
    policies_copy,
    sidecars,
    signing_key,
    wait_until,
)

__all__ = [
    "HEADING",
    "Provenance",
    "add_arguments",
    "measure_provenance",
    "provenance_section",
]

HEADING = "## Naming the policy revision: provenance or decision metadata"
REVISION = "b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6"
DECISION = "authz/decision"
WITH_METADATA = "bench_revision/decision"
# The bench-only module of the metadata variant (added to a copy of policies/).
METADATA_MODULE = """# METADATA
# title: Bench only
# description: The decision with the revision of the bundle that made it.
package bench_revision

decision := object.union(
\tdata.authz.decision,
\t{"policy_revision": data.system.bundles["agent-authz"].manifest.revision},
)
"""
VARIANTS = ("plain", "plain-2", "provenance", "metadata")
_DESCRIPTIONS = {
    "plain": "`authz/decision`, no revision (the floor)",
    "plain-2": "the same as plain again (the noise floor of a paired difference)",
    "provenance": "the same with `?provenance=true`, revision from `provenance.bundles`",
    "metadata": "a decision that carries `policy_revision` (read in Rego from "
    "`data.system.bundles`)",
}


@dataclass
class Provenance:
    """The measured latencies (ms) per variant, and the answers' sizes (bytes)."""

    latencies: dict[str, list[float]]
    answer_bytes: dict[str, int]
    rounds: int
    warmup: int
    seconds: float
    stopped_early: bool


def synthetic_input() -> dict[str, Any]:
    """A decision input of the fact bundle's shape: Alex lists a channel of a space."""
    principals = {
        f"p-{name}": {
            "kind": "user",
            "status": "active",
            "is_owner": name == "robin",
            "groups": [],
            "permissions": [],
        }
        for name in ("alex", "sam", "robin")
    }
    return {
        "action": "message.list",
        "actor": "p-alex",
        "resource": {"kind": "channel", "id": "c-general"},
        "facts": {
            "now": "2026-12-02T06:00:00Z",
            "principals": principals,
            "channels": {
                "c-general": {
                    "kind": "regular",
                    "archived": False,
                    "space_id": "s-support",
                    "members": [],
                }
            },
            "spaces": {"s-support": {"archived": False}},
            "grants": [
                {
                    "subject": {"kind": "principal", "id": "p-alex"},
                    "target": {"kind": "space", "id": "s-support"},
                    "level": "trigger",
                },
                {
                    "subject": {"kind": "principal", "id": "p-sam"},
                    "target": {"kind": "channel", "id": "c-general"},
                    "level": "write",
                },
            ],
        },
    }


def _calls(client: OpaClient, decision_input: Any) -> dict[str, Callable[[], None]]:
    """One call per variant, each checking it got a decision and (but plain) the revision."""

    def plain() -> None:
        parse_decision(client.query(DECISION, decision_input))

    def provenance() -> None:
        answer = client.evaluate(DECISION, decision_input)
        parse_decision(answer.result, revision=parse_revision(answer.provenance))

    def metadata() -> None:
        result = client.query(WITH_METADATA, decision_input)
        revision = result.pop("policy_revision")
        parse_decision(result, revision=revision)

    return {"plain": plain, "plain-2": plain, "provenance": provenance, "metadata": metadata}


def _check(client: OpaClient, decision_input: Any) -> dict[str, int]:
    """The three variants agree on the decision and name :data:`REVISION`; their sizes."""
    plain = client.query(DECISION, decision_input)
    with_provenance = client.evaluate(DECISION, decision_input)
    with_metadata = dict(client.query(WITH_METADATA, decision_input))
    assert parse_revision(with_provenance.provenance) == REVISION
    assert with_metadata.pop("policy_revision") == REVISION
    assert plain == with_provenance.result == with_metadata, (plain, with_metadata)
    encoded = orjson.dumps
    return {
        "plain": len(encoded({"result": plain})),
        "plain-2": len(encoded({"result": plain})),
        "provenance": len(encoded({"provenance": with_provenance.provenance, "result": plain})),
        "metadata": len(encoded({"result": {**plain, "policy_revision": REVISION}})),
    }


def measure_provenance(
    decision_input: Any, *, rounds: int, warmup: int, seed: int = 20261202
) -> Provenance:
    """Start a bundle service and a sidecar, then measure the three variants interleaved."""
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-revision-")))
        key = signing_key(root, "bench")
        policies = policies_copy(root / "tree" / "policies")
        (policies / "bench_revision").mkdir()
        (policies / "bench_revision" / "bench_revision.rego").write_text(METADATA_MODULE)
        bundle = build_bundle(root / "bundle.tar.gz", revision=REVISION, key=key, policies=policies)
        service = stack.enter_context(BundleService())
        service.publish(bundle)
        (sidecar,) = stack.enter_context(sidecars(service, [key], 1))
        wait_until(lambda: sidecar.active_revision() == REVISION, 30, "the bench bundle is active")
        client = OpaClient(sidecar.url, timeout=5.0, pool_size=1)
        stack.callback(client.close)
        sizes = _check(client, decision_input)
        calls = _calls(client, decision_input)
        latencies, stopped = interleaved_rounds(
            [calls[variant] for variant in VARIANTS],
            rounds,
            random.Random(seed),
            warmup=warmup,
            max_seconds=120.0,
        )
    return Provenance(
        latencies=dict(zip(VARIANTS, latencies, strict=True)),
        answer_bytes=sizes,
        rounds=len(latencies[0]),
        warmup=warmup,
        seconds=time.monotonic() - started,
        stopped_early=stopped,
    )


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def provenance_section(result: Provenance) -> str:
    """The markdown section for ``docs/benchmarks.md`` (from :data:`HEADING` on)."""
    plain = result.latencies["plain"]
    lines = [
        HEADING,
        "",
        "Generated by `tests/load/provenance.py` (part of `make bench`; method in its "
        f"docstring). {result.rounds} measured rounds after {result.warmup} warm-up rounds, "
        f"{result.seconds:.0f} s"
        + (" (stopped at the time cap)" if result.stopped_early else "")
        + ". Each round sends the same decision input once per variant, in a fresh random "
        "order, at concurrency 1, to one OPA sidecar with the deploy configuration serving "
        "a signed bundle; the client is the app's (`OpaClient`, keep-alive pool, orjson), "
        "and each variant reads the revision as the app would.",
        "",
        "| variant | what is asked | answer bytes | p50 ms | p95 ms | p99 ms | paired "
        "difference to plain ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    medians: dict[str, float] = {}
    for variant in VARIANTS:
        values = result.latencies[variant]
        medians[variant] = statistics.median(
            mine - floor for mine, floor in zip(values, plain, strict=True)
        )
        difference = "" if variant == "plain" else f"{medians[variant]:+.3f}"
        lines.append(
            f"| `{variant}` | {_DESCRIPTIONS[variant]} | {result.answer_bytes[variant]} "
            f"| {statistics.median(values):.3f} | {_percentile(values, 0.95):.3f} "
            f"| {_percentile(values, 0.99):.3f} | {difference} |"
        )
    gap = medians["provenance"] - medians["metadata"]
    noise = abs(medians["plain-2"])
    if abs(gap) <= noise + 0.005:
        verdict = (
            "the same cost within this measurement's resolution (they differ by "
            f"{gap:+.3f} ms; plain against itself by {medians['plain-2']:+.3f} ms)"
        )
    else:
        cheaper = "provenance" if gap < 0 else "metadata"
        verdict = f"`{cheaper}` is cheaper by {abs(gap):.3f} ms per call"
    lines += [
        "",
        f"* Naming the revision costs {medians['provenance']:+.3f} ms per call with "
        f"provenance and {medians['metadata']:+.3f} ms with metadata: {verdict}. With "
        "decision logs on, OPA reads the bundle revisions for every decision anyway (each "
        "log entry names them), so provenance adds only their encoding (a larger answer); "
        "the metadata rule adds an evaluation step and an object union.",
        "* The gateway uses provenance (`app/policy/gateway.py`, ADR 0018): at this cost it "
        "changes no policy, so the decision objects, the decision tables and the policy "
        "diff stay as they are and no answer differs by revision alone.",
    ]
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of this part, for ``tests/load/bench.py``'s parser too."""
    parser.add_argument(
        "--provenance-rounds",
        type=int,
        default=3000,
        help="interleaved rounds of the revision part (provenance or metadata); 0 skips it "
        "(default 3000)",
    )
    parser.add_argument(
        "--provenance-warmup",
        type=int,
        default=200,
        help="warm-up rounds of the revision part (default 200)",
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.load.provenance``: this part alone; replaces its section."""
    from tests.load.report import OUTPUT, replace_part_section

    parser = argparse.ArgumentParser(
        prog="python -m tests.load.provenance", description=(__doc__ or "").splitlines()[0]
    )
    add_arguments(parser)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    print(f"revision: {args.provenance_rounds} rounds ...", file=sys.stderr)
    result = measure_provenance(
        synthetic_input(), rounds=args.provenance_rounds, warmup=args.provenance_warmup
    )
    section = provenance_section(result)
    print(section)
    if not args.no_write:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        OUTPUT.write_text(replace_part_section(current, HEADING, section), encoding="utf-8")
        print(f"wrote the revision section of {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
