from enum import StrEnum


class BindingState(StrEnum):
    BOUND = "bound"
    PROVISIONED = "provisioned"

    def __str__(self) -> str:
        return str(self.value)
