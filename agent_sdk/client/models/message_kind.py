from enum import StrEnum


class MessageKind(StrEnum):
    FILE = "file"
    SYSTEM = "system"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
