from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.problem_code import ProblemCode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_error import FieldError


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """RFC 9457 problem details with a closed `code`. Never carries message content, handles, display names, e-mail
    addresses or tokens.

        Attributes:
            type_ (str): URI reference identifying the problem type.
            title (str): Short fixed summary of the problem type.
            status (int): HTTP status of this response.
            code (ProblemCode): Closed list of machine-readable error codes.
            correlation_id (str): Equal to the `X-Correlation-Id` header of this response.
            reason (str | Unset): Policy reason code, on 403 (for example not_self, subject_kind_not_allowed, no_grant,
                archived, not_owner, run_required); one of `x-policy-reasons`.
            detail (str | Unset): Fixed explanation chosen by the server; no request content.
            instance (str | Unset): Identifier of this occurrence of the problem.
            errors (list[FieldError] | Unset): On 422, the individual violations: at most `http.max_validation_errors` of
                them (whose maximum is this array's `maxItems`), sorted by path.
            errors_omitted (int | Unset): On 422, present only when validation found more violations than `errors` lists:
                how many more.
    """

    type_: str
    title: str
    status: int
    code: ProblemCode
    correlation_id: str
    reason: str | Unset = UNSET
    detail: str | Unset = UNSET
    instance: str | Unset = UNSET
    errors: list[FieldError] | Unset = UNSET
    errors_omitted: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        title = self.title

        status = self.status

        code = self.code.value

        correlation_id = self.correlation_id

        reason = self.reason

        detail = self.detail

        instance = self.instance

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)

        errors_omitted = self.errors_omitted

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "title": title,
                "status": status,
                "code": code,
                "correlation_id": correlation_id,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if detail is not UNSET:
            field_dict["detail"] = detail
        if instance is not UNSET:
            field_dict["instance"] = instance
        if errors is not UNSET:
            field_dict["errors"] = errors
        if errors_omitted is not UNSET:
            field_dict["errors_omitted"] = errors_omitted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.field_error import FieldError  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        title = d.pop("title")

        status = d.pop("status")

        code = ProblemCode(d.pop("code"))

        correlation_id = d.pop("correlation_id")

        reason = d.pop("reason", UNSET)

        detail = d.pop("detail", UNSET)

        instance = d.pop("instance", UNSET)

        _errors = d.pop("errors", UNSET)
        errors: list[FieldError] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = FieldError.from_dict(errors_item_data)

                errors.append(errors_item)

        errors_omitted = d.pop("errors_omitted", UNSET)

        problem = cls(
            type_=type_,
            title=title,
            status=status,
            code=code,
            correlation_id=correlation_id,
            reason=reason,
            detail=detail,
            instance=instance,
            errors=errors,
            errors_omitted=errors_omitted,
        )

        return problem
