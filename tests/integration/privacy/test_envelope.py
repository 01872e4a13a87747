"""Envelope rotation: compare and swap on the envelope version (decisions.md S4).

Scrubs and state changes bump the version, so a rotation prepared before either is
refused with 409 and the newer state stays; rotation never restores removed content.
"""

from __future__ import annotations

import pytest

from tests.support.privacy_world import PrivacyWorld

pytestmark = pytest.mark.integration


def test_a_rotation_with_the_current_etag_replaces_the_envelope(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    etag = shared.etag(run)

    response = shared.rotate_response(run, etag, "Zmlyc3Qta2V5")

    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    version = response.json()["envelope_version"]
    assert response.headers["ETag"] == f'"{version}"'
    assert shared.etag(run) == f'"{version}"'
    assert shared.run_row(run)["sealed_envelope"] == "Zmlyc3Qta2V5"


def test_a_rotation_after_a_scrub_is_refused_and_leaves_the_newer_state(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")
    assert shared.answer(run, "An answer sealed in the old envelope.")
    etag = shared.etag(run)
    assert shared.rotate_response(run, etag, "b2xkLWtleQ").status_code == 200
    etag = shared.etag(run)

    shared.attempt(run, "strict-none")  # the scrub: answer removed, version bumped
    conflict = shared.rotate_response(run, etag, "cmVzdG9yaW5nLWtleQ")

    assert conflict.status_code == 409
    row = shared.run_row(run)
    assert row["sealed_envelope"] == "b2xkLWtleQ"  # the old key stays valid
    assert row["background_answer"] is None  # nothing restored


def test_a_rotation_after_a_state_change_is_refused(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    etag = shared.etag(run)

    shared.set_state(run, "waiting_input")
    conflict = shared.rotate_response(run, etag)

    assert conflict.status_code == 409
    assert shared.run_row(run)["sealed_envelope"] is None


def test_a_rotation_with_a_stale_etag_from_before_an_earlier_rotation_is_refused(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    etag = shared.etag(run)
    assert shared.rotate_response(run, etag, "Zmlyc3Q").status_code == 200

    second = shared.rotate_response(run, etag, "c2Vjb25k")

    assert second.status_code == 409
    assert shared.run_row(run)["sealed_envelope"] == "Zmlyc3Q"


def test_an_unchanged_state_does_not_bump_the_version(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    etag = shared.etag(run)

    shared.set_state(run, "running")

    assert shared.etag(run) == etag


@pytest.mark.parametrize("if_match", ["*", 'W/"0"', "0", '"0", "1"', '"-1"', '"x"'])
def test_a_malformed_if_match_is_rejected(shared: PrivacyWorld, if_match: str) -> None:
    run = shared.new_run()

    response = shared.rotate_response(run, if_match)

    assert response.status_code == 422
    assert shared.run_row(run)["sealed_envelope"] is None


def test_a_rotation_without_if_match_is_rejected(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    response = shared.client().post(
        f"/api/v1/runs/{run}/envelope:rotate", json={"sealed_envelope": "c2VhbGVk"}
    )

    assert response.status_code == 422
