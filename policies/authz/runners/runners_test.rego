package authz.runners_test

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_not_found := {"allow": false, "reason": "not_found", "status": 404}

_not_enrolled := {"allow": false, "reason": "not_enrolled", "status": 403}

_wrong_kind := {"allow": false, "reason": "subject_kind_not_allowed", "status": 403}

_agent(status) := {"kind": "agent", "status": status, "is_owner": false, "groups": [], "permissions": []}

_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"lotse": _agent("active"),
		"alex": {"kind": "user", "status": "active", "is_owner": true, "groups": [], "permissions": []},
	},
	"channels": {},
	"spaces": {},
	"grants": [],
	"runners": {
		"runner-a": {"enrolled": true, "enrollment_epoch": 3},
		"runner-b": {"enrolled": true, "enrollment_epoch": 1},
		"runner-c": {"enrolled": true, "enrollment_epoch": 3},
		"runner-new": {"enrolled": false, "enrollment_epoch": 0},
	},
}

_binding := {
	"kind": "binding",
	"runner_id": "runner-a",
	"enrollment_epoch": 3,
	"state": "bound",
	"agent_id": "lotse",
}

_request(action, actor, overrides) := {
	"action": action,
	"actor": actor,
	"resource": object.union(_binding, overrides),
	"facts": _facts,
}

_relay(overrides) := _request("runner.comms.relay", "runner-a", overrides)

test_enrol_allowed_for_a_runner if {
	data.authz.decision == _allowed with input as {
		"action": "runner.enroll",
		"actor": "runner-new",
		"resource": {"kind": "runner", "id": "runner-new"},
		"facts": _facts,
	}
}

test_enrol_denied_for_a_principal if {
	data.authz.decision == _wrong_kind with input as {
		"action": "runner.enroll",
		"actor": "alex",
		"resource": {"kind": "runner", "id": "alex"},
		"facts": _facts,
	}
}

test_relay_allowed_through_own_current_bound_binding if {
	data.authz.decision == _allowed with input as _relay({})
}

test_relay_denied_for_a_principal_even_an_owner if {
	data.authz.decision == _wrong_kind with input as _request("runner.comms.relay", "alex", {})
}

test_relay_denied_without_runner_facts if {
	data.authz.decision == _wrong_kind with input as object.remove(_relay({}), ["facts"])
}

test_relay_not_enrolled if {
	request := _request("runner.comms.relay", "runner-new", {"runner_id": "runner-new", "enrollment_epoch": 0})
	data.authz.decision == _not_enrolled with input as request
}

test_relay_unknown_session_not_found if {
	unknown := object.union(object.remove(_relay({}), ["resource"]), {"resource": {"kind": "binding"}})
	data.authz.decision == _not_found with input as unknown
}

test_relay_another_runners_binding_not_found if {
	data.authz.decision == _not_found with input as _request("runner.comms.relay", "runner-b", {})
}

# The same epoch does not make another runner's binding usable: the holder decides.
test_relay_binding_of_another_runner_in_the_same_epoch_not_found if {
	every action in {"runner.comms.relay", "runner.session.bind", "runner.session.stop"} {
		data.authz.decision == _not_found with input as _request(action, "runner-c", {})
	}
}

test_relay_stale_enrolment_not_found if {
	data.authz.decision == _not_found with input as _relay({"enrollment_epoch": 2})
}

test_relay_provisioned_but_unbound_not_found if {
	data.authz.decision == _not_found with input as _relay({"state": "provisioned"})
}

test_relay_stopped_not_found if {
	data.authz.decision == _not_found with input as _relay({"state": "stopped"})
}

test_relay_disabled_agent_not_found if {
	request := object.union(_relay({}), {"facts": {"principals": {"lotse": _agent("disabled")}}})
	data.authz.decision == _not_found with input as request
}

test_relay_account_that_is_not_an_agent_not_found if {
	data.authz.decision == _not_found with input as _relay({"agent_id": "alex"})
}

test_relay_unknown_account_not_found if {
	data.authz.decision == _not_found with input as _relay({"agent_id": "ghost"})
}

test_relay_wrong_resource_kind_not_found if {
	data.authz.decision == _not_found with input as _relay({"kind": "channel"})
}

test_bind_allowed_for_provisioned_and_bound if {
	every state in {"provisioned", "bound"} {
		data.authz.decision == _allowed with input as _request("runner.session.bind", "runner-a", {"state": state})
	}
}

test_bind_other_runner_not_found if {
	data.authz.decision == _not_found with input as _request("runner.session.bind", "runner-b", {"state": "provisioned"})
}

test_bind_not_enrolled if {
	request := _request("runner.session.bind", "runner-new", {"runner_id": "runner-new", "enrollment_epoch": 0})
	data.authz.decision == _not_enrolled with input as request
}

test_reload_and_stop_need_a_bound_binding if {
	every action in {"runner.session.reload", "runner.session.stop"} {
		data.authz.decision == _allowed with input as _request(action, "runner-a", {})
		data.authz.decision == _not_found with input as _request(action, "runner-a", {"state": "provisioned"})
	}
}

test_stop_allowed_for_a_disabled_agent if {
	request := object.union(
		_request("runner.session.stop", "runner-a", {}),
		{"facts": {"principals": {"lotse": _agent("disabled")}}},
	)
	data.authz.decision == _allowed with input as request
}

# ------------------------------------------------------- a run bound to a session

_live_run := {"id": "run-1", "agent_id": "lotse", "state": "running"}

_acting_for(run) := {"run": run, "requester": "alex"}

test_relay_with_a_live_bound_run_is_decided_in_mode_run if {
	request := object.union(_relay({}), {"acting_for": _acting_for(_live_run)})
	data.authz.decision == object.union(_allowed, {"acting_for": {"mode": "run", "run_id": "run-1"}}) with input as request
}

test_relay_with_an_ended_bound_run_is_decided_in_mode_own if {
	every state in {"succeeded", "failed", "cancelled"} {
		ended := object.union(_live_run, {"state": state})
		request := object.union(_relay({}), {"acting_for": _acting_for(ended)})
		data.authz.decision == object.union(_allowed, {"acting_for": {"mode": "own"}}) with input as request
	}
}

test_relay_without_a_bound_run_answers_as_before if {
	data.authz.decision == _allowed with input as _relay({})
}

# Only the relay's allow names a mode: the lifecycle calls of a session with a run
# bound answer as before (the service sends acting_for only with a relay).
test_only_the_relay_names_a_mode if {
	every action in {"runner.session.reload", "runner.session.stop", "runner.session.run.unbind"} {
		request := object.union(_request(action, "runner-a", {}), {"acting_for": _acting_for(_live_run)})
		data.authz.decision == _allowed with input as request
	}
}

# An acting_for that is not an object names no run: the allow names no mode either.
test_relay_with_a_malformed_acting_for_names_no_mode if {
	every malformed in ["run-1", ["run-1"], 1] {
		data.authz.decision == _allowed with input as object.union(_relay({}), {"acting_for": malformed})
	}
}

test_relay_denials_carry_no_mode if {
	request := object.union(_relay({"state": "provisioned"}), {"acting_for": _acting_for(_live_run)})
	data.authz.decision == _not_found with input as request
}

_bind(actor, binding_overrides, run) := object.union(
	_request("runner.session.run.bind", actor, binding_overrides),
	{"resource": {"run": run}},
)

test_bind_a_live_run_of_the_sessions_own_agent if {
	every state in {"queued", "running", "waiting_input"} {
		run := object.union(_live_run, {"state": state})
		data.authz.decision == _allowed with input as _bind("runner-a", {}, run)
	}
}

test_bind_an_ended_run_is_not_found if {
	every state in {"succeeded", "failed", "cancelled"} {
		run := object.union(_live_run, {"state": state})
		data.authz.decision == _not_found with input as _bind("runner-a", {}, run)
	}
}

test_bind_another_agents_run_is_not_found if {
	run := object.union(_live_run, {"agent_id": "texter"})
	data.authz.decision == _not_found with input as _bind("runner-a", {}, run)
}

test_bind_an_unknown_run_is_not_found if {
	data.authz.decision == _not_found with input as _request("runner.session.run.bind", "runner-a", {})
}

test_bind_through_another_runners_session_is_not_found if {
	data.authz.decision == _not_found with input as _bind("runner-b", {}, _live_run)
}

test_bind_through_an_unknown_stale_or_unbound_session_is_not_found if {
	bound := _bind("runner-a", {}, _live_run)
	unknown := object.union(object.remove(bound, ["resource"]), {"resource": {"kind": "binding"}})
	data.authz.decision == _not_found with input as unknown
	data.authz.decision == _not_found with input as _bind("runner-a", {"enrollment_epoch": 2}, _live_run)
	data.authz.decision == _not_found with input as _bind("runner-a", {"state": "provisioned"}, _live_run)
}

test_bind_for_a_disabled_agent_is_not_found if {
	request := object.union(_bind("runner-a", {}, _live_run), {"facts": {"principals": {"lotse": _agent("disabled")}}})
	data.authz.decision == _not_found with input as request
}

test_bind_by_a_runner_that_never_enrolled if {
	request := _bind("runner-new", {"runner_id": "runner-new", "enrollment_epoch": 0}, _live_run)
	data.authz.decision == _not_enrolled with input as request
}

test_bind_by_a_principal if {
	data.authz.decision == _wrong_kind with input as _bind("alex", {}, _live_run)
}

test_unbind_needs_the_runners_own_bound_session if {
	action := "runner.session.run.unbind"
	data.authz.decision == _allowed with input as _request(action, "runner-a", {})
	data.authz.decision == _not_found with input as _request(action, "runner-b", {})
	data.authz.decision == _not_found with input as _request(action, "runner-a", {"state": "provisioned"})
}

test_unbind_works_for_a_disabled_agent if {
	request := object.union(
		_request("runner.session.run.unbind", "runner-a", {}),
		{"facts": {"principals": {"lotse": _agent("disabled")}}},
	)
	data.authz.decision == _allowed with input as request
}
