from enum import StrEnum


class CeilingLevel(StrEnum):
    FULL = "full"
    METADATA = "metadata"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
