package authz.runs_test

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_not_found := {"allow": false, "reason": "not_found", "status": 404}

_not_self := {"allow": false, "reason": "not_self", "status": 403}

_subject_kind_not_allowed := {"allow": false, "reason": "subject_kind_not_allowed", "status": 403}

_principal(kind) := {"kind": kind, "status": "active", "is_owner": false, "groups": [], "permissions": []}

_base_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"helper": _principal("agent"),
		"scout": _principal("agent"),
		"alex": _principal("user"),
		"ci-bot": _principal("app"),
	},
	"channels": {"general": {"kind": "regular", "archived": false, "space_id": "team", "members": []}},
	"spaces": {"team": {"archived": false}},
	"grants": [],
}

_read_grant(principal_id) := {
	"subject": {"kind": "principal", "id": principal_id},
	"target": {"kind": "channel", "id": "general"},
	"level": "read",
}

# the run of agent helper in channel general
_input(actor, overrides) := object.union(
	{
		"action": "run.context.read",
		"actor": actor,
		"resource": {"kind": "run", "id": "run-1", "agent_id": "helper", "channel_id": "general", "state": "running"},
		"facts": _base_facts,
	},
	overrides,
)

_state(state) := {"resource": {"state": state}}

_grants(principal_ids) := {"facts": {"grants": [_read_grant(id) | some id in principal_ids]}}

test_own_agent_allowed_without_grant if data.authz.decision == _allowed with input as _input("helper", {})

test_own_agent_allowed_when_queued if data.authz.decision == _allowed with input as _input("helper", _state("queued"))

test_own_agent_allowed_when_waiting_input if {
	data.authz.decision == _allowed with input as _input("helper", _state("waiting_input"))
}

test_finished_run_not_found if data.authz.decision == _not_found with input as _input("helper", _state("succeeded"))

test_finished_run_not_found_for_reader if {
	data.authz.decision == _not_found with input as _input("alex", object.union(_state("failed"), _grants(["alex"])))
}

test_inactive_own_agent_not_found if {
	request := _input("helper", {"facts": {"principals": {"helper": {"status": "disabled"}}}})
	data.authz.decision == _not_found with input as request
}

test_unknown_actor_not_found if data.authz.decision == _not_found with input as _input("casey", {})

test_non_run_resource_not_found if {
	data.authz.decision == _not_found with input as _input("helper", {"resource": {"kind": "channel"}})
}

test_user_with_read_subject_kind_not_allowed if {
	data.authz.decision == _subject_kind_not_allowed with input as _input("alex", _grants(["alex"]))
}

test_app_with_read_subject_kind_not_allowed if {
	data.authz.decision == _subject_kind_not_allowed with input as _input("ci-bot", _grants(["ci-bot"]))
}

test_user_without_read_not_found if data.authz.decision == _not_found with input as _input("alex", {})

test_other_agent_with_read_not_self if {
	request := _input("scout", _grants(["scout"]))
	data.authz.decision == _not_self with input as request
}

test_other_agent_without_read_not_found if data.authz.decision == _not_found with input as _input("scout", {})
