package authz.runprivacy_test

import data.authz.runprivacy

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_not_found := {"allow": false, "reason": "not_found", "status": 404}

_principal(kind) := {"kind": kind, "status": "active", "is_owner": false, "groups": [], "permissions": []}

_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"helper": _principal("agent"),
		"scout": _principal("agent"),
		"alex": _principal("user"),
		"robin": {"kind": "user", "status": "active", "is_owner": true, "groups": [], "permissions": []},
		"ci-bot": _principal("app"),
	},
	"channels": {"general": {"kind": "regular", "archived": false, "space_id": "team", "members": ["scout"]}},
	"spaces": {"team": {"archived": false}},
	"grants": [{
		"subject": {"kind": "principal", "id": "alex"},
		"target": {"kind": "channel", "id": "general"},
		"level": "manage",
	}],
}

_run := {"kind": "run", "id": "run-1", "agent_id": "helper", "channel_id": "general", "state": "running"}

_input(action, actor, overrides) := object.union(
	{"action": action, "actor": actor, "resource": _run, "facts": _facts},
	overrides,
)

test_actions if runprivacy.actions == {"provider.attempt", "run.content.write", "run.privacy.read"}

test_own_agent_allowed_in_every_live_state if {
	every action in runprivacy.actions {
		every state in {"queued", "running", "waiting_input"} {
			data.authz.decision == _allowed with input as _input(action, "helper", {"resource": {"state": state}})
		}
	}
}

test_ended_run_not_found if {
	every action in runprivacy.actions {
		every state in {"succeeded", "failed", "cancelled", "paused"} {
			data.authz.decision == _not_found with input as _input(action, "helper", {"resource": {"state": state}})
		}
	}
}

test_other_agent_with_channel_access_not_found if {
	every action in runprivacy.actions {
		data.authz.decision == _not_found with input as _input(action, "scout", {})
	}
}

test_person_with_manage_not_found if {
	every action in runprivacy.actions {
		data.authz.decision == _not_found with input as _input(action, "alex", {})
	}
}

test_instance_owner_not_found if {
	every action in runprivacy.actions {
		data.authz.decision == _not_found with input as _input(action, "robin", {})
	}
}

test_app_not_found if {
	every action in runprivacy.actions {
		data.authz.decision == _not_found with input as _input(action, "ci-bot", {})
	}
}

test_disabled_own_agent_not_found if {
	request := _input("provider.attempt", "helper", {"facts": {"principals": {"helper": {"status": "disabled"}}}})
	data.authz.decision == _not_found with input as request
}

test_unknown_actor_not_found if {
	data.authz.decision == _not_found with input as _input("provider.attempt", "casey", {})
}

test_non_run_resource_not_found if {
	request := _input("run.content.write", "helper", {"resource": {"kind": "channel"}})
	data.authz.decision == _not_found with input as request
}

test_unknown_run_not_found if {
	every action in runprivacy.actions {
		data.authz.decision == _not_found with input as {
			"action": action,
			"actor": "helper",
			"resource": {"kind": "run", "id": "run-2"},
			"facts": _facts,
		}
	}
}

test_a_person_posing_as_agent_id_is_not_found if {
	request := _input("run.content.write", "alex", {"resource": {"agent_id": "alex"}})
	data.authz.decision == _not_found with input as request
}
