"""Admin facts API for the privacy policies (instance owners, ``admin.*`` in Rego).

Run by :class:`app.usecases.admin.AdminWrites` like every admin write: authorize the
action on the instance, write, commit. A policy names levels of the scale; an absent
level means "inherits the global default" for a provider and "sets nothing" for a
task. Neither endpoint can write a run's steps, answer or ceilings: those are written
only by the retention guard (``app/usecases/run_privacy.py``).
"""

from __future__ import annotations

from typing import Any

from app.domain.privacy import is_provider_id, is_task_key
from app.errors import ValidationFailed
from repositories.privacy_policies import PrivacyPolicyRepository

__all__ = ["set_provider_policy", "set_task_policy"]


def _view(key_name: str, row: dict[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = {key_name: row["key"]}
    for kind in ("audit_content_ceiling", "background_answer_ceiling"):
        if row[kind] is not None:
            view[kind] = row[kind]
    return view


def _invalid(path: str, message: str) -> ValidationFailed:
    return ValidationFailed(
        "The path does not name a valid key.", [{"path": path, "message": message}]
    )


def set_provider_policy(
    policies: PrivacyPolicyRepository, provider_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Insert or replace a provider's policy; the provider becomes known.

    Raises:
        ValidationFailed: ``provider_id`` is not a provider id (for example a URL).
    """
    if not is_provider_id(provider_id):
        raise _invalid("path/provider_id", "not a provider id")
    row = policies.set_provider(
        provider_id,
        audit=body.get("audit_content_ceiling"),
        answer=body.get("background_answer_ceiling"),
    )
    return _view("provider_id", row)


def set_task_policy(
    policies: PrivacyPolicyRepository, task_key: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Insert or replace a task's explicit ceilings.

    Raises:
        ValidationFailed: ``task_key`` is not a task key.
    """
    if not is_task_key(task_key):
        raise _invalid("path/task_key", "not a task key")
    row = policies.set_task(
        task_key,
        audit=body.get("audit_content_ceiling"),
        answer=body.get("background_answer_ceiling"),
    )
    return _view("task_key", row)
