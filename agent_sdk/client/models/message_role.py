from enum import StrEnum


class MessageRole(StrEnum):
    ASSISTANT = "assistant"
    OTHER = "other"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
