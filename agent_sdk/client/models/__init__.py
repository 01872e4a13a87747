"""Contains all the data models used in inputs/outputs"""

from .acting_for import ActingFor
from .acting_for_mode import ActingForMode
from .append_run_step_request import AppendRunStepRequest
from .attempt_kind import AttemptKind
from .bind_run_request import BindRunRequest
from .binding_state import BindingState
from .call_error import CallError
from .ceiling import Ceiling
from .ceiling_level import CeilingLevel
from .comms_list_call import CommsListCall
from .comms_list_messages import CommsListMessages
from .comms_post_call import CommsPostCall
from .comms_post_message import CommsPostMessage
from .envelope_rotated import EnvelopeRotated
from .field_error import FieldError
from .message import Message
from .message_kind import MessageKind
from .message_origin import MessageOrigin
from .message_page import MessagePage
from .message_role import MessageRole
from .post_message_request import PostMessageRequest
from .posted_message import PostedMessage
from .principal_kind import PrincipalKind
from .principal_ref import PrincipalRef
from .problem import Problem
from .problem_code import ProblemCode
from .provider_attempt_go import ProviderAttemptGo
from .provider_attempt_go_outcome import ProviderAttemptGoOutcome
from .provider_attempt_request import ProviderAttemptRequest
from .provision_workspace_request import ProvisionWorkspaceRequest
from .put_run_answer_request import PutRunAnswerRequest
from .relay_error_result import RelayErrorResult
from .relay_list_result import RelayListResult
from .relay_post_result import RelayPostResult
from .relay_request import RelayRequest
from .rotate_envelope_request import RotateEnvelopeRequest
from .run_answer_result import RunAnswerResult
from .run_ceilings import RunCeilings
from .run_context import RunContext
from .run_context_attachment import RunContextAttachment
from .run_context_message import RunContextMessage
from .run_privacy import RunPrivacy
from .run_step_kind import RunStepKind
from .run_step_metadata import RunStepMetadata
from .run_step_metadata_status import RunStepMetadataStatus
from .run_step_part import RunStepPart
from .run_step_stored import RunStepStored
from .runner_enrollment import RunnerEnrollment
from .runner_session import RunnerSession
from .runner_session_report import RunnerSessionReport
from .scan_status import ScanStatus
from .trust import Trust
from .workspace import Workspace

__all__ = (
    "ActingFor",
    "ActingForMode",
    "AppendRunStepRequest",
    "AttemptKind",
    "BindingState",
    "BindRunRequest",
    "CallError",
    "Ceiling",
    "CeilingLevel",
    "CommsListCall",
    "CommsListMessages",
    "CommsPostCall",
    "CommsPostMessage",
    "EnvelopeRotated",
    "FieldError",
    "Message",
    "MessageKind",
    "MessageOrigin",
    "MessagePage",
    "MessageRole",
    "PostedMessage",
    "PostMessageRequest",
    "PrincipalKind",
    "PrincipalRef",
    "Problem",
    "ProblemCode",
    "ProviderAttemptGo",
    "ProviderAttemptGoOutcome",
    "ProviderAttemptRequest",
    "ProvisionWorkspaceRequest",
    "PutRunAnswerRequest",
    "RelayErrorResult",
    "RelayListResult",
    "RelayPostResult",
    "RelayRequest",
    "RotateEnvelopeRequest",
    "RunAnswerResult",
    "RunCeilings",
    "RunContext",
    "RunContextAttachment",
    "RunContextMessage",
    "RunnerEnrollment",
    "RunnerSession",
    "RunnerSessionReport",
    "RunPrivacy",
    "RunStepKind",
    "RunStepMetadata",
    "RunStepMetadataStatus",
    "RunStepPart",
    "RunStepStored",
    "ScanStatus",
    "Trust",
    "Workspace",
)
