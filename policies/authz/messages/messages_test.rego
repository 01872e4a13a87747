package authz.messages_test

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_not_found := {"allow": false, "reason": "not_found", "status": 404}

_no_grant := {"allow": false, "reason": "no_grant", "status": 403}

_archived := {"allow": false, "reason": "archived", "status": 403}

_base_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"alex": {"kind": "user", "status": "active", "is_owner": false, "groups": [], "permissions": []},
		"sam": {"kind": "user", "status": "active", "is_owner": false, "groups": [], "permissions": []},
	},
	"channels": {"general": {"kind": "regular", "archived": false, "space_id": "team", "members": []}},
	"spaces": {"team": {"archived": false}},
	"grants": [],
}

# alex holds the given level on general; sam holds nothing
_input(action, lvl, fact_overrides) := {
	"action": action,
	"actor": "alex",
	"resource": {"kind": "channel", "id": "general"},
	"facts": object.union_n([_base_facts, {"grants": _alex_grants(lvl)}, fact_overrides]),
}

_alex_grants("none") := []

_alex_grants(lvl) := [grant] if {
	lvl != "none"
	grant := {
		"subject": {"kind": "principal", "id": "alex"},
		"target": {"kind": "channel", "id": "general"},
		"level": lvl,
	}
}

_archived_channel := {"channels": {"general": {"archived": true}}}

_archived_space := {"spaces": {"team": {"archived": true}}}

test_list_allowed_with_read if data.authz.decision == _allowed with input as _input("message.list", "read", {})

test_list_allowed_with_manage if data.authz.decision == _allowed with input as _input("message.list", "manage", {})

test_list_not_found_without_level if data.authz.decision == _not_found with input as _input("message.list", "none", {})

test_list_allowed_in_archived_channel if {
	data.authz.decision == _allowed with input as _input("message.list", "manage", _archived_channel)
}

test_list_not_found_for_unknown_channel if {
	data.authz.decision == _not_found with input as object.union(
		_input("message.list", "read", {}),
		{"resource": {"id": "lobby"}},
	)
}

test_list_not_found_for_non_channel_resource if {
	data.authz.decision == _not_found with input as object.union(
		_input("message.list", "read", {}),
		{"resource": {"kind": "run"}},
	)
}

test_read_allowed_with_read if data.authz.decision == _allowed with input as _input("message.read", "read", {})

# The shared reading rule is asked only about channels: a resource of another kind
# whose id names a readable channel is not a message of it.
test_read_not_found_for_non_channel_resource if {
	data.authz.decision == _not_found with input as object.union(
		_input("message.read", "read", {}),
		{"resource": {"kind": "run"}},
	)
}

test_read_not_found_without_level if data.authz.decision == _not_found with input as _input("message.read", "none", {})

test_read_not_found_for_inactive_actor if {
	request := _input("message.read", "read", {"principals": {"alex": {"status": "disabled"}}})
	data.authz.decision == _not_found with input as request
}

test_post_allowed_with_write if data.authz.decision == _allowed with input as _input("message.post", "write", {})

test_post_allowed_with_trigger if data.authz.decision == _allowed with input as _input("message.post", "trigger", {})

test_post_allowed_for_member if {
	request := _input("message.post", "none", {"channels": {"general": {"members": ["alex"]}}})
	data.authz.decision == _allowed with input as request
}

test_post_no_grant_with_read if data.authz.decision == _no_grant with input as _input("message.post", "read", {})

test_post_archived_channel if {
	request := _input("message.post", "manage", _archived_channel)
	data.authz.decision == _archived with input as request
}

test_post_archived_space if {
	request := _input("message.post", "write", _archived_space)
	data.authz.decision == _archived with input as request
}

test_post_archived_channel_with_read_grant if {
	data.authz.decision == _archived with input as _input("message.post", "read", _archived_channel)
}

test_post_not_found_without_level if data.authz.decision == _not_found with input as _input("message.post", "none", {})

test_post_not_found_without_level_in_archived_channel if {
	data.authz.decision == _not_found with input as _input("message.post", "none", _archived_channel)
}
