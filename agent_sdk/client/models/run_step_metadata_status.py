from enum import StrEnum


class RunStepMetadataStatus(StrEnum):
    CANCELLED = "cancelled"
    ERROR = "error"
    OK = "ok"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
