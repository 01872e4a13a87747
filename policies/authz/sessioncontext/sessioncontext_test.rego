package authz.sessioncontext_test

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_inactive := {"allow": false, "reason": "inactive", "status": 403}

_kind_not_allowed := {"allow": false, "reason": "subject_kind_not_allowed", "status": 403}

_principal(kind, status) := {
	"kind": kind,
	"status": status,
	"is_owner": false,
	"groups": [],
	"permissions": ["matters:read"],
}

_request(actor) := {
	"action": "session_context.resolve",
	"actor": actor,
	"resource": {"kind": "instance"},
	"facts": {
		"now": "2026-11-29T12:00:00Z",
		"principals": {
			"alex": _principal("user", "active"),
			"sam": _principal("user", "disabled"),
			"robin": _principal("user", "pending"),
			"casey": _principal("user", "deleted"),
			"lotse": _principal("agent", "active"),
			"importer": _principal("app", "active"),
		},
		"channels": {},
		"spaces": {},
		"grants": [],
	},
}

test_active_person_allowed if data.authz.decision == _allowed with input as _request("alex")

test_disabled_person_inactive if data.authz.decision == _inactive with input as _request("sam")

test_pending_person_inactive if data.authz.decision == _inactive with input as _request("robin")

test_deleted_person_inactive if data.authz.decision == _inactive with input as _request("casey")

test_agent_not_allowed if data.authz.decision == _kind_not_allowed with input as _request("lotse")

test_app_not_allowed if data.authz.decision == _kind_not_allowed with input as _request("importer")

test_unknown_actor_not_allowed if data.authz.decision == _kind_not_allowed with input as _request("nobody")
