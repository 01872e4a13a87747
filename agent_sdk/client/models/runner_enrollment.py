from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="RunnerEnrollment")


@_attrs_define
class RunnerEnrollment:
    """
    Attributes:
        runner_id (UUID): The calling runner.
        enrollment_epoch (int): The runner's new enrolment; bindings of earlier ones are gone.
        enrolled_at (datetime.datetime): When this enrolment started.
        dropped_bindings (int): How many bindings of the runner this enrolment deleted.
    """

    runner_id: UUID
    enrollment_epoch: int
    enrolled_at: datetime.datetime
    dropped_bindings: int

    def to_dict(self) -> dict[str, Any]:
        runner_id = str(self.runner_id)

        enrollment_epoch = self.enrollment_epoch

        enrolled_at = self.enrolled_at.isoformat()

        dropped_bindings = self.dropped_bindings

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "runner_id": runner_id,
                "enrollment_epoch": enrollment_epoch,
                "enrolled_at": enrolled_at,
                "dropped_bindings": dropped_bindings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        runner_id = UUID(d.pop("runner_id"))

        enrollment_epoch = d.pop("enrollment_epoch")

        enrolled_at = datetime.datetime.fromisoformat(d.pop("enrolled_at"))

        dropped_bindings = d.pop("dropped_bindings")

        runner_enrollment = cls(
            runner_id=runner_id,
            enrollment_epoch=enrollment_epoch,
            enrolled_at=enrolled_at,
            dropped_bindings=dropped_bindings,
        )

        return runner_enrollment
