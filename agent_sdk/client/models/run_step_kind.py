from enum import StrEnum


class RunStepKind(StrEnum):
    CHAT_REQUEST = "chat_request"
    CHAT_RESPONSE = "chat_response"
    NOTE = "note"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"

    def __str__(self) -> str:
        return str(self.value)
