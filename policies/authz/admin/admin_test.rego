package authz.admin_test

import data.authz.admin

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_not_owner := {"allow": false, "reason": "not_owner", "status": 403}

_unknown_action := {"allow": false, "reason": "unknown_action", "status": 403}

_principal(is_owner, status) := {
	"kind": "user",
	"status": status,
	"is_owner": is_owner,
	"groups": [],
	"permissions": [],
}

_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"robin": _principal(true, "active"),
		"sam": _principal(true, "pending"),
		"alex": _principal(false, "active"),
	},
	"channels": {},
	"spaces": {},
	"grants": [],
}

_input(action, actor) := {"action": action, "actor": actor, "resource": {"kind": "instance"}, "facts": _facts}

test_admin_actions if {
	admin.actions == {
		"admin.grants.create",
		"admin.grants.delete",
		"admin.principals.update",
		"admin.spaces.update",
		"admin.channels.update",
		"admin.threads.move",
		"admin.runs.create",
		"admin.runs.update",
		"admin.followups.create",
		"admin.followups.update",
		"admin.sessions.set",
		"admin.messages.delete",
		"admin.provider_policies.set",
		"admin.task_policies.set",
	}
}

test_every_admin_action_starts_with_admin if {
	every action in admin.actions {
		startswith(action, "admin.")
	}
}

test_admin_allowed_for_active_owner if {
	every action in admin.actions {
		data.authz.decision == _allowed with input as _input(action, "robin")
	}
}

test_admin_not_owner_for_user if {
	every action in admin.actions {
		data.authz.decision == _not_owner with input as _input(action, "alex")
	}
}

test_admin_not_owner_for_pending_owner if {
	every action in admin.actions {
		data.authz.decision == _not_owner with input as _input(action, "sam")
	}
}

test_admin_not_owner_for_unknown_actor if {
	request := _input("admin.grants.create", "casey")
	data.authz.decision == _not_owner with input as request
}

test_unlisted_admin_action_is_unknown if {
	data.authz.decision == _unknown_action with input as _input("admin.anything-unknown", "robin")
}

test_admin_prefix_alone_is_unknown if data.authz.decision == _unknown_action with input as _input("admin.", "robin")
