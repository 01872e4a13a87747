"""The privacy-ceiling families: the ceilings a run's content may be written and sent under."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from app.domain.privacy import CEILING_KINDS, CEILING_LEVELS
from app.policy.gateway import PRIVACY_ATTEMPT, PRIVACY_WRITE
from app.policy.inputs import (
    CeilingFacts,
    PrivacyAttemptInput,
    PrivacyRunFacts,
    PrivacyWriteInput,
    TaskFacts,
)
from policydiff.corpus import Record
from policydiff.families.base import Family, Generator, generated_record


def _stored() -> Iterator[tuple[str, CeilingFacts]]:
    for level, explicit in itertools.product(CEILING_LEVELS, (True, False)):
        yield f"{level}{' explicit' if explicit else ''}", {"level": level, "explicit": explicit}


def _run_ceilings() -> Iterator[tuple[str, str, PrivacyRunFacts]]:
    """(audit label, answer label, run facts): unreconciled, every stored pair, unreadable."""
    yield "unset", "unset", {}
    for (audit_name, audit), (answer_name, answer) in itertools.product(_stored(), _stored()):
        yield (
            audit_name,
            answer_name,
            {"ceilings": {"audit_content": audit, "background_answer": answer}},
        )
    yield (
        "unreadable (secret)",
        "unset",
        {"ceilings": {"audit_content": {"level": "secret", "explicit": True}}},
    )


def _policies(kind_names: Sequence[str]) -> Iterator[tuple[str, dict[str, str] | None]]:
    yield "no policy", None
    yield "inherits", {}
    for kind, level in itertools.product(kind_names, CEILING_LEVELS):
        yield f"{kind.replace('_', ' ')} {level}", {kind: level}


_PRIVACY_TABLES = ("audit content ceiling", "background answer ceiling")


def _privacy(g: Generator) -> Iterator[Record]:
    """privacy/attempt and privacy/write over stored ceilings, provider and task policies."""
    providers = [*_policies(CEILING_KINDS), ("unreadable (secret)", {"audit_content": "secret"})]
    tasks = [("no task", None), ("no policy", {}), *list(_policies(CEILING_KINDS))[2:]]
    for (run_audit, run_answer, run), (task_name, task_policy) in itertools.product(
        _run_ceilings(), tasks
    ):
        task: TaskFacts | None = None
        if task_name != "no task":
            task = {"key": "hr-review"}
            if task_policy:
                task["policy"] = task_policy
        labels = {"run_audit": run_audit, "run_answer": run_answer}
        yield _labelled(PRIVACY_WRITE, {"run": run}, task, **labels, task=task_name)
        for provider_name, provider_policy in providers:
            attempt: PrivacyAttemptInput = {"run": run, "provider": {"id": "openai-eu"}}
            if provider_policy is not None:
                attempt["provider"]["policy"] = provider_policy
            yield _labelled(
                PRIVACY_ATTEMPT, attempt, task, **labels, provider=provider_name, task=task_name
            )


def _labelled(
    entrypoint: str,
    request: PrivacyWriteInput | PrivacyAttemptInput,
    given: TaskFacts | None,
    **facts: str,
) -> Record:
    """A record of both ceiling tables of ``entrypoint``, asked for the ``given`` task if any."""
    if given is not None:
        request["task"] = given
    kind = "write" if entrypoint == PRIVACY_WRITE else "attempt"
    return generated_record(
        entrypoint, request, [f"privacy {kind}: {name}" for name in _PRIVACY_TABLES], **facts
    )


def _privacy_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Stored ceilings, a provider policy and a task policy for both kinds at once."""
    for explicit, level in ((True, "full"), (False, "metadata")):
        stored: PrivacyRunFacts = {
            "ceilings": {kind: {"level": level, "explicit": explicit} for kind in CEILING_KINDS}
        }
        task: TaskFacts = {"key": "hr-review", "policy": dict.fromkeys(CEILING_KINDS, "full")}
        write: PrivacyWriteInput = {"run": stored, "task": task}
        yield PRIVACY_WRITE, write
        attempt: PrivacyAttemptInput = {
            "run": stored,
            "provider": {"id": "openai-eu", "policy": dict.fromkeys(CEILING_KINDS, "metadata")},
            "task": task,
        }
        yield PRIVACY_ATTEMPT, attempt


# In the order of the generated corpus.
FAMILIES = (Family("privacy ceilings", _privacy, _privacy_pivots),)
