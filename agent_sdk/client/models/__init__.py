"""Contains all the data models used in inputs/outputs"""

from .binding_state import BindingState
from .call_error import CallError
from .comms_list_call import CommsListCall
from .comms_list_messages import CommsListMessages
from .comms_post_call import CommsPostCall
from .comms_post_message import CommsPostMessage
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
from .provision_workspace_request import ProvisionWorkspaceRequest
from .relay_error_result import RelayErrorResult
from .relay_list_result import RelayListResult
from .relay_post_result import RelayPostResult
from .relay_request import RelayRequest
from .run_context import RunContext
from .run_context_attachment import RunContextAttachment
from .run_context_message import RunContextMessage
from .runner_enrollment import RunnerEnrollment
from .runner_session import RunnerSession
from .runner_session_report import RunnerSessionReport
from .scan_status import ScanStatus
from .trust import Trust
from .workspace import Workspace

__all__ = (
    "BindingState",
    "CallError",
    "CommsListCall",
    "CommsListMessages",
    "CommsPostCall",
    "CommsPostMessage",
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
    "ProvisionWorkspaceRequest",
    "RelayErrorResult",
    "RelayListResult",
    "RelayPostResult",
    "RelayRequest",
    "RunContext",
    "RunContextAttachment",
    "RunContextMessage",
    "RunnerEnrollment",
    "RunnerSession",
    "RunnerSessionReport",
    "ScanStatus",
    "Trust",
    "Workspace",
)
