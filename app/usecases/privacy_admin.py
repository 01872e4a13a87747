"""Admin facts API for the privacy policies (instance owners, ``admin.*`` in Rego).

Run by :class:`app.usecases.admin.AdminWrites` like every admin write: authorize the
action on the instance, write, commit. A policy names levels of the scale; an absent
level means "inherits the global default" for a provider and "sets nothing" for a
task. Neither endpoint can write a run's steps, answer or ceilings: those are written
only by the retention guard (``app/usecases/run_privacy.py``).
"""

from __future__ import annotations

from typing import Any, Protocol

from app.domain.privacy import is_provider_id, is_task_key
from app.errors import ValidationFailed
from repositories.privacy_policies import PrivacyPolicyRepository

__all__ = ["set_provider_policy", "set_task_policy"]


class _Write(Protocol):
    """A repository write of one key's ceilings (``set_provider``, ``set_task``)."""

    def __call__(self, key: str, /, *, audit: str | None, answer: str | None) -> dict[str, Any]:
        """Insert or replace the key's ceilings; the stored row."""


def _set_policy(
    write: _Write, key_name: str, key: str, body: dict[str, Any], *, valid: bool, not_valid: str
) -> dict[str, Any]:
    """Refuse an invalid path key (422 naming ``path/<key_name>``), else write and answer.

    The answer names the key under ``key_name`` and only the levels the policy sets.
    """
    if not valid:
        raise ValidationFailed(
            "The path does not name a valid key.",
            [{"path": f"path/{key_name}", "message": not_valid}],
        )
    row = write(
        key, audit=body.get("audit_content_ceiling"), answer=body.get("background_answer_ceiling")
    )
    view: dict[str, Any] = {key_name: row["key"]}
    for kind in ("audit_content_ceiling", "background_answer_ceiling"):
        if row[kind] is not None:
            view[kind] = row[kind]
    return view


def set_provider_policy(
    policies: PrivacyPolicyRepository, provider_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Insert or replace a provider's policy; the provider becomes known.

    Raises:
        ValidationFailed: ``provider_id`` is not a provider id (for example a URL).
    """
    return _set_policy(
        policies.set_provider,
        "provider_id",
        provider_id,
        body,
        valid=is_provider_id(provider_id),
        not_valid="not a provider id",
    )


def set_task_policy(
    policies: PrivacyPolicyRepository, task_key: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Insert or replace a task's explicit ceilings.

    Raises:
        ValidationFailed: ``task_key`` is not a task key.
    """
    return _set_policy(
        policies.set_task,
        "task_key",
        task_key,
        body,
        valid=is_task_key(task_key),
        not_valid="not a task key",
    )
