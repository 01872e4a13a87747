package authz.workspaces_test

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_not_found := {"allow": false, "reason": "not_found", "status": 404}

_principal(kind, status, is_owner) := {
	"kind": kind,
	"status": status,
	"is_owner": is_owner,
	"groups": [],
	"permissions": [],
}

_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"robin": _principal("user", "active", true),
		"alex": _principal("user", "active", false),
		"sam": _principal("user", "active", false),
		"lotse": _principal("agent", "active", false),
		"texter": _principal("agent", "active", false),
		"importer": _principal("app", "active", false),
	},
	"channels": {},
	"spaces": {},
	"grants": [],
}

_provision(actor, agent, overrides) := {
	"action": "agent.workspace.provision",
	"actor": actor,
	"resource": {"kind": "agent", "id": agent, "owner_id": "alex"},
	"facts": object.union(_facts, overrides),
}

_deny(reason) := {"allow": false, "reason": reason, "status": 403}

test_owner_of_the_agent_may_provision if {
	data.authz.decision == _allowed with input as _provision("alex", "lotse", {})
}

test_instance_owner_may_provision if {
	data.authz.decision == _allowed with input as _provision("robin", "lotse", {})
}

test_other_person_not_agent_owner if {
	data.authz.decision == _deny("not_agent_owner") with input as _provision("sam", "lotse", {})
}

test_agent_may_not_provision_even_for_itself if {
	request := object.union(_provision("lotse", "lotse", {}), {"resource": {"owner_id": "lotse"}})
	data.authz.decision == _deny("subject_kind_not_allowed") with input as request
}

test_app_may_not_provision if {
	data.authz.decision == _deny("subject_kind_not_allowed") with input as _provision("importer", "lotse", {})
}

test_inactive_owner_not_found if {
	request := _provision("alex", "lotse", {"principals": {"alex": {"status": "disabled"}}})
	data.authz.decision == _not_found with input as request
}

test_inactive_instance_owner_not_agent_owner if {
	request := _provision("robin", "lotse", {"principals": {"robin": {"status": "disabled"}}})
	data.authz.decision == _not_found with input as request
}

test_disabled_agent_inactive if {
	request := _provision("alex", "lotse", {"principals": {"lotse": {"status": "disabled"}}})
	data.authz.decision == _deny("agent_inactive") with input as request
}

test_unknown_agent_not_found if {
	data.authz.decision == _not_found with input as _provision("robin", "ghost", {})
}

test_person_as_agent_not_found if {
	data.authz.decision == _not_found with input as _provision("robin", "sam", {})
}

test_wrong_resource_kind_not_found if {
	request := object.union(_provision("robin", "lotse", {}), {"resource": {"kind": "channel"}})
	data.authz.decision == _not_found with input as request
}

test_agent_without_owner_only_for_instance_owners if {
	request := object.remove(_provision("alex", "lotse", {}), ["resource"])
	no_owner := object.union(request, {"resource": {"kind": "agent", "id": "lotse"}})
	data.authz.decision == _deny("not_agent_owner") with input as no_owner
	data.authz.decision == _allowed with input as object.union(no_owner, {"actor": "robin"})
}
