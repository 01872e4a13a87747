from enum import StrEnum


class ProviderAttemptGoOutcome(StrEnum):
    GO = "go"

    def __str__(self) -> str:
        return str(self.value)
