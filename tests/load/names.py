"""The names of the report's cases (its rows) and which interleaved cases pair up."""

from __future__ import annotations

from tests.load.world import SIZES

BARE_DECISION = "bare OPA authz/decision"
BARE_EVALUATE = "bare OPA runcontext/evaluate"
FLASK_NAME = "getRunContext, FlaskApp"
INTERLEAVED_CONTEXT = "getRunContext, interleaved"
INTERLEAVED_BARE = "bare OPA authz/decision, interleaved"
INTERLEAVED_TRIVIAL = "trivial policy on its own OPA, interleaved"
INTERLEAVED_LARGEST = f"getRunContext {max(SIZES)}, interleaved"
TRIVIAL = "trivial policy on its own OPA"
RIGHT_AFTER_LOAD = "getRunContext, right after the load"
# The same statements and OPA calls on raw drivers (tests/load/floor.py), interleaved
# with the bare decision.
FLOOR = "I/O floor: its statements and OPA calls on raw drivers, interleaved"
FLOOR_BARE = "bare OPA authz/decision, interleaved with the floor"
# Each interleaved case beside the bare decision of its own rounds.
INTERLEAVED_PAIRS = {
    INTERLEAVED_CONTEXT: INTERLEAVED_BARE,
    INTERLEAVED_LARGEST: INTERLEAVED_BARE,
    FLOOR: FLOOR_BARE,
}
