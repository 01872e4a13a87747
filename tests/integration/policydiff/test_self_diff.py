"""The working tree against itself: no decision changes, every record is answered."""

from __future__ import annotations

import pytest

from policydiff.corpus import Record
from policydiff.diff import diff_on
from policydiff.scratch import ScratchOpa
from tests.integration.policydiff.conftest import OPA, POLICIES

pytestmark = pytest.mark.integration


def test_the_self_diff_of_the_generated_corpus_is_empty(
    base_opa: ScratchOpa, generated: list[Record]
) -> None:
    with ScratchOpa(POLICIES, binary=OPA, name="head") as head:
        report = diff_on(generated, base_opa, head, base_label="tree", head_label="tree")

    assert report.records == len(generated) >= 20_000
    assert report.groups == []
    assert report.changed == 0
    assert report.unanswered == 0
