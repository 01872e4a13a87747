from enum import StrEnum


class RunStepPart(StrEnum):
    CONTENT = "content"
    KIND = "kind"
    METADATA = "metadata"

    def __str__(self) -> str:
        return str(self.value)
