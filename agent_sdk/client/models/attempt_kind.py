from enum import StrEnum


class AttemptKind(StrEnum):
    CHAT = "chat"
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
