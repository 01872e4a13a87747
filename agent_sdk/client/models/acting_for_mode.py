from enum import StrEnum


class ActingForMode(StrEnum):
    OWN = "own"
    RUN = "run"

    def __str__(self) -> str:
        return str(self.value)
