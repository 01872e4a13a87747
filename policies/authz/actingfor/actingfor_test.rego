package authz.actingfor_test

import data.authz.actingfor

# Lotse works on run-1, started by Alex's message. ledger is a channel of the space
# finance; each test gives Lotse (the agent) and Alex (the requester) their levels.
_person(status) := {"kind": "user", "status": status, "is_owner": false, "groups": [], "permissions": []}

_agent := {"kind": "agent", "status": "active", "is_owner": false, "groups": [], "permissions": []}

_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {"lotse": _agent, "alex": _person("active")},
	"channels": {"ledger": {"kind": "regular", "archived": false, "space_id": "finance", "members": []}},
	"spaces": {"finance": {"archived": false}},
	"grants": [],
}

_grant(subject, level) := {
	"subject": {"kind": "principal", "id": subject},
	"target": {"kind": "channel", "id": "ledger"},
	"level": level,
}

_grants(_, "none") := []

_grants(subject, level) := [_grant(subject, level)] if level != "none"

_run(state) := {"run": {"id": "run-1", "agent_id": "lotse", "state": state}, "requester": "alex"}

_bound := _run("running")

_request(action, agent_level, requester_level, acting_for) := {
	"action": action,
	"actor": "lotse",
	"resource": {"kind": "channel", "id": "ledger"},
	"facts": object.union(_facts, {"grants": array.concat(
		_grants("lotse", agent_level),
		_grants("alex", requester_level),
	)}),
	"acting_for": acting_for,
}

_decision("allowed") := {"allow": true, "reason": "allowed", "status": 200}

_decision("not_found") := {"allow": false, "reason": "not_found", "status": 404}

_decision(reason) := {"allow": false, "reason": reason, "status": 403} if not reason in {"allowed", "not_found"}

_in_run(reason, failed) := object.union(
	_decision(reason),
	{"acting_for": {"mode": "run", "run_id": "run-1", "failed": failed}},
)

# Every (action, agent level, requester level) in mode run: the agent's own answer
# first (an invisible channel stays 404, a visible one without the agent's level
# keeps the agent's reason), then the requester's level from the policy data
# (read to list, write to post): acting_for_exceeded when only the intersection
# denies. failed names the sides that do not allow the call.
_matrix := [
	["message.list", "none", "none", "not_found", ["agent", "requester"]],
	["message.list", "none", "read", "not_found", ["agent"]],
	["message.list", "none", "write", "not_found", ["agent"]],
	["message.list", "none", "trigger", "not_found", ["agent"]],
	["message.list", "read", "none", "acting_for_exceeded", ["requester"]],
	["message.list", "read", "read", "allowed", []],
	["message.list", "read", "write", "allowed", []],
	["message.list", "read", "trigger", "allowed", []],
	["message.list", "write", "none", "acting_for_exceeded", ["requester"]],
	["message.list", "write", "read", "allowed", []],
	["message.list", "write", "write", "allowed", []],
	["message.list", "write", "trigger", "allowed", []],
	["message.list", "trigger", "none", "acting_for_exceeded", ["requester"]],
	["message.list", "trigger", "read", "allowed", []],
	["message.list", "trigger", "write", "allowed", []],
	["message.list", "trigger", "trigger", "allowed", []],
	["message.post", "none", "none", "not_found", ["agent", "requester"]],
	["message.post", "none", "read", "not_found", ["agent", "requester"]],
	["message.post", "none", "write", "not_found", ["agent"]],
	["message.post", "none", "trigger", "not_found", ["agent"]],
	["message.post", "read", "none", "no_grant", ["agent", "requester"]],
	["message.post", "read", "read", "no_grant", ["agent", "requester"]],
	["message.post", "read", "write", "no_grant", ["agent"]],
	["message.post", "read", "trigger", "no_grant", ["agent"]],
	["message.post", "write", "none", "acting_for_exceeded", ["requester"]],
	["message.post", "write", "read", "acting_for_exceeded", ["requester"]],
	["message.post", "write", "write", "allowed", []],
	["message.post", "write", "trigger", "allowed", []],
	["message.post", "trigger", "none", "acting_for_exceeded", ["requester"]],
	["message.post", "trigger", "read", "acting_for_exceeded", ["requester"]],
	["message.post", "trigger", "write", "allowed", []],
	["message.post", "trigger", "trigger", "allowed", []],
]

test_matrix_has_every_combination if {
	count({[action, agent, requester] | some [action, agent, requester, _, _] in _matrix}) == 32
}

test_mode_run_decides_every_combination_for_both_principals if {
	every row in _matrix {
		data.authz.decision == _in_run(row[3], row[4]) with input as _request(row[0], row[1], row[2], _bound)
	}
}

# Without a bound run (no input.acting_for: a relayed call of an unbound session, or
# the agent's own token) the agent's own answer decides, exactly as before.
test_without_a_bound_run_the_agent_decides_alone if {
	every row in _matrix {
		request := object.remove(_request(row[0], row[1], row[2], {}), ["acting_for"])
		data.authz.decision == _decision(_own_reason(row[3])) with input as request
	}
}

# The agent's own answer where only the intersection denies in mode run.
_own_reason("acting_for_exceeded") := "allowed"

_own_reason(reason) := reason if reason != "acting_for_exceeded"

test_an_ended_run_unbinds_itself if {
	every state in {"succeeded", "failed", "cancelled"} {
		request := _request("message.post", "write", "none", _run(state))
		data.authz.decision == object.union(_decision("allowed"), {"acting_for": {"mode": "own"}}) with input as request
	}
}

test_a_queued_or_waiting_run_still_binds if {
	every state in {"queued", "waiting_input"} {
		request := _request("message.post", "write", "none", _run(state))
		data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as request
	}
}

test_a_disabled_requester_ends_the_reach_at_once if {
	request := _request("message.post", "write", "write", _bound)
	disabled := object.union(request, {"facts": {"principals": {"alex": _person("disabled")}}})
	data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as disabled
}

test_every_inactive_requester_status_denies if {
	request := _request("message.list", "write", "write", _bound)
	every status in {"pending", "disabled", "deleted"} {
		inactive := object.union(request, {"facts": {"principals": {"alex": _person(status)}}})
		data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as inactive
	}
}

test_an_expired_requester_grant_does_not_count if {
	request := _request("message.post", "write", "none", _bound)
	expired := object.union(_grant("alex", "write"), {"expires_at": "2026-11-01T00:00:00Z"})
	facts := object.union(request.facts, {"grants": array.concat(request.facts.grants, [expired])})
	expected := _in_run("acting_for_exceeded", ["requester"])
	data.authz.decision == expected with input as object.union(request, {"facts": facts})
}

test_a_requester_grant_through_a_group_or_the_space_counts if {
	request := _request("message.post", "write", "none", _bound)
	by_group := {
		"subject": {"kind": "group", "id": "team"},
		"target": {"kind": "channel", "id": "ledger"},
		"level": "write",
	}
	by_space := {
		"subject": {"kind": "principal", "id": "alex"},
		"target": {"kind": "space", "id": "finance"},
		"level": "trigger",
	}
	member := object.union(request.facts, {
		"principals": {"alex": object.union(_person("active"), {"groups": ["team"]})},
		"grants": array.concat(request.facts.grants, [by_group]),
	})
	data.authz.decision == _in_run("allowed", []) with input as object.union(request, {"facts": member})
	space := object.union(request.facts, {"grants": array.concat(request.facts.grants, [by_space])})
	data.authz.decision == _in_run("allowed", []) with input as object.union(request, {"facts": space})
}

test_a_requester_member_of_the_channel_may_post if {
	request := _request("message.post", "write", "none", _bound)
	members := object.union(request, {"facts": {"channels": {"ledger": {"members": ["alex"]}}}})
	data.authz.decision == _in_run("allowed", []) with input as members
}

test_an_archived_channel_denies_the_agent_first if {
	request := _request("message.post", "manage", "manage", _bound)
	archived := object.union(request, {"facts": {"channels": {"ledger": {"archived": true}}}})
	data.authz.decision == _in_run("archived", ["agent", "requester"]) with input as archived
}

test_an_archived_channel_still_lists_for_both if {
	request := _request("message.list", "read", "read", _bound)
	archived := object.union(request, {"facts": {"spaces": {"finance": {"archived": true}}}})
	data.authz.decision == _in_run("allowed", []) with input as archived
}

test_an_instance_owner_requester_reaches_what_the_agent_reaches if {
	request := _request("message.post", "write", "none", _bound)
	robin := object.union(_person("active"), {"is_owner": true})
	owner := object.union(request, {"facts": {"principals": {"alex": robin}}})
	data.authz.decision == _in_run("allowed", []) with input as owner
}

test_a_run_without_requester_denies if {
	request := _request("message.list", "write", "write", object.remove(_bound, ["requester"]))
	data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as request
}

test_an_unknown_requester_denies if {
	request := _request("message.list", "write", "write", object.union(_bound, {"requester": "ghost"}))
	data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as request
}

test_a_bound_run_of_another_agent_denies if {
	foreign := {"run": {"id": "run-1", "agent_id": "texter", "state": "running"}, "requester": "alex"}
	request := _request("message.list", "write", "write", foreign)
	data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as request
}

test_an_action_without_a_requester_level_cannot_be_done_for_anyone if {
	request := _request("message.read", "write", "write", _bound)
	data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as request
}

test_the_requester_levels_are_policy_data if {
	actingfor.requester_levels == {"message.list": "read", "message.post": "write"}
	actingfor.relayed_actions == {"message.list", "message.post"}
}

test_a_reviewer_changes_a_requirement_in_data_only if {
	request := _request("message.list", "write", "read", _bound)
	stricter := {"message.list": "write", "message.post": "write"}
	data.authz.decision == _in_run("acting_for_exceeded", ["requester"]) with input as request
		with actingfor.requirements.requester_levels as stricter
}

# ------------------------------------------------------- acting_for: required

_required := object.union(_agent, {"acting_for": "required"})

_required_request(action, agent_level, acting_for) := object.union(
	_request(action, agent_level, "write", acting_for),
	{"facts": {"principals": {"lotse": _required}}},
)

_direct(action, agent_level) := object.remove(_required_request(action, agent_level, {}), ["acting_for"])

test_a_required_agent_may_not_list_or_post_on_its_own if {
	every action in {"message.list", "message.post"} {
		data.authz.decision == _decision("run_required") with input as _direct(action, "write")
	}
}

test_a_required_agent_without_write_is_still_told_run_required if {
	data.authz.decision == _decision("run_required") with input as _direct("message.post", "read")
}

test_a_required_agent_gets_the_same_404_on_an_invisible_channel if {
	every action in {"message.list", "message.post"} {
		data.authz.decision == _decision("not_found") with input as _direct(action, "none")
	}
}

test_a_required_agent_still_reads_messages_in_filter_mode if {
	data.authz.decision == _decision("allowed") with input as _direct("message.read", "read")
}

test_a_required_agent_acts_in_mode_run if {
	request := _required_request("message.post", "write", _bound)
	data.authz.decision == _in_run("allowed", []) with input as request
}

test_a_required_agent_whose_run_ended_is_refused if {
	request := _required_request("message.post", "write", _run("succeeded"))
	expected := object.union(_decision("run_required"), {"acting_for": {"mode": "own"}})
	data.authz.decision == expected with input as request
}

test_optional_is_not_required if {
	optional := {"facts": {"principals": {"lotse": {"acting_for": "optional"}}}}
	request := object.union(_direct("message.post", "write"), optional)
	data.authz.decision == _decision("allowed") with input as request
}

test_mode_of_a_live_and_an_ended_run if {
	actingfor.mode(_bound) == {"mode": "run", "run_id": "run-1"}
	actingfor.mode(_run("cancelled")) == {"mode": "own"}
	actingfor.mode({}) == {"mode": "own"}
}
