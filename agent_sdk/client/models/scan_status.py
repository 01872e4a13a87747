from enum import StrEnum


class ScanStatus(StrEnum):
    CLEAN = "clean"
    FAILED = "failed"
    INFECTED = "infected"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
