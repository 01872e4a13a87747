package authz_test

import data.authz
import data.authz.admin
import data.authz.health
import data.authz.inspect
import data.authz.messages
import data.authz.results
import data.authz.runners
import data.authz.runprivacy
import data.authz.runs
import data.authz.sessioncontext
import data.authz.workspaces

_unknown_action := {"allow": false, "reason": "unknown_action", "status": 403}

_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"robin": {"kind": "user", "status": "active", "is_owner": true, "groups": [], "permissions": []},
		"helper": {"kind": "agent", "status": "active", "is_owner": false, "groups": [], "permissions": []},
	},
	"channels": {"general": {"kind": "regular", "archived": false, "space_id": "team", "members": ["helper"]}},
	"spaces": {"team": {"archived": false}},
	"grants": [],
}

# requests of every shape, well formed or not, that a known action must still decide
_requests := [
	{},
	{"actor": "robin", "facts": _facts},
	{"actor": "robin", "resource": {"kind": "channel", "id": "general"}, "facts": _facts},
	{"actor": "helper", "resource": {"kind": "channel", "id": "general"}, "facts": _facts},
	{"actor": "helper", "resource": _run, "facts": _facts},
	{"actor": "robin", "resource": {"kind": "instance"}, "facts": _facts},
	{"actor": "casey", "resource": {"kind": "channel", "id": "lobby"}, "facts": {}},
]

_run := {"kind": "run", "id": "run-1", "agent_id": "helper", "channel_id": "general", "state": "running"}

test_actions_are_every_known_action if {
	authz.actions == {
		"message.list", "message.read", "message.post",
		"run.context.read",
		"authz.trigger_holders.query", "authz.explain",
		"health.live", "health.ready",
		"admin.grants.create", "admin.grants.delete", "admin.principals.update",
		"admin.spaces.update", "admin.channels.update", "admin.threads.move",
		"admin.runs.create", "admin.runs.update", "admin.followups.create",
		"admin.followups.update", "admin.sessions.set", "admin.messages.delete",
		"session_context.resolve",
		"runner.enroll", "runner.session.bind", "runner.session.reload",
		"runner.session.stop", "runner.comms.relay",
		"runner.session.run.bind", "runner.session.run.unbind",
		"agent.workspace.provision",
		"admin.provider_policies.set", "admin.task_policies.set",
		"provider.attempt", "run.content.write", "run.privacy.read",
	}
}

test_action_sets_are_disjoint if {
	action_sets := [
		messages.actions, runs.actions, inspect.actions, admin.actions, health.actions,
		sessioncontext.actions,
		runners.actions, workspaces.actions,
		runprivacy.actions,
	]
	sum([count(action_set) | some action_set in action_sets]) == count(authz.actions)
}

test_every_known_action_gets_one_well_formed_decision if {
	every action in authz.actions {
		every request in _requests {
			decision := authz.decision with input as object.union(request, {"action": action})
			object.keys(decision) == {"allow", "reason", "status"}
			decision.reason in results.reasons
			decision == _expected_shape(decision.reason)
		}
	}
}

_acting_for := {"run": {"id": "run-1", "agent_id": "helper", "state": "running"}, "requester": "robin"}

# A request with input.acting_for (a relayed call of a session with a bound run) is
# decided as well; only the decision may carry the mode besides the three fields.
test_every_known_action_decides_a_request_acting_for_a_run if {
	every action in authz.actions {
		every request in _requests {
			acting := object.union(request, {"action": action, "acting_for": _acting_for})
			decision := authz.decision with input as acting
			object.keys(decision) - {"acting_for"} == {"allow", "reason", "status"}
			decision.reason in results.reasons
			object.remove(decision, ["acting_for"]) == _expected_shape(decision.reason)
		}
	}
}

_expected_shape("allowed") := {"allow": true, "reason": "allowed", "status": 200}

_expected_shape("not_found") := {"allow": false, "reason": "not_found", "status": 404}

_expected_shape(reason) := {"allow": false, "reason": reason, "status": 403} if not reason in {"allowed", "not_found"}

test_unknown_action_is_denied if {
	authz.decision == _unknown_action with input as {"action": "message.delete", "actor": "robin", "facts": _facts}
}

test_missing_action_is_denied if authz.decision == _unknown_action with input as {"actor": "robin", "facts": _facts}

test_non_string_action_is_denied if authz.decision == _unknown_action with input as {"action": ["health.live"]}

test_unknown_admin_action_is_denied_for_owner if {
	authz.decision == _unknown_action with input as {
		"action": "admin.anything-unknown",
		"actor": "robin",
		"resource": {"kind": "instance"},
		"facts": _facts,
	}
}

test_action_names_are_case_sensitive if authz.decision == _unknown_action with input as {"action": "Health.Live"}
