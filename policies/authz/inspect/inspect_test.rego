package authz.inspect_test

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_not_found := {"allow": false, "reason": "not_found", "status": 404}

_not_owner := {"allow": false, "reason": "not_owner", "status": 403}

_principal(kind, is_owner, permissions) := {
	"kind": kind,
	"status": "active",
	"is_owner": is_owner,
	"groups": [],
	"permissions": permissions,
}

_base_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"robin": _principal("user", true, []),
		"alex": _principal("user", false, ["authz:inspect"]),
		"auditor": _principal("app", false, ["authz:inspect"]),
		"ci-bot": _principal("app", false, []),
		"helper": _principal("agent", true, ["authz:inspect"]),
	},
	"channels": {"general": {"kind": "regular", "archived": false, "space_id": "team", "members": []}},
	"spaces": {"team": {"archived": false}},
	"grants": [],
}

_query(actor, channel_id, fact_overrides) := {
	"action": "authz.trigger_holders.query",
	"actor": actor,
	"resource": {"kind": "channel", "id": channel_id},
	"facts": object.union(_base_facts, fact_overrides),
}

_explain(actor, fact_overrides) := {
	"action": "authz.explain",
	"actor": actor,
	"resource": {"kind": "instance"},
	"facts": object.union(_base_facts, fact_overrides),
}

test_query_allowed_for_owner if data.authz.decision == _allowed with input as _query("robin", "general", {})

test_query_allowed_for_app_with_inspect if {
	request := _query("auditor", "general", {})
	data.authz.decision == _allowed with input as request
}

test_query_unknown_channel_not_found_for_owner if {
	data.authz.decision == _not_found with input as _query("robin", "lobby", {})
}

test_query_unknown_channel_not_found_for_app_with_inspect if {
	data.authz.decision == _not_found with input as _query("auditor", "lobby", {})
}

test_query_non_channel_resource_not_found if {
	request := object.union(_query("robin", "general", {}), {"resource": {"kind": "instance"}})
	data.authz.decision == _not_found with input as request
}

test_query_not_owner_for_user if data.authz.decision == _not_owner with input as _query("alex", "general", {})

test_query_not_owner_before_not_found if data.authz.decision == _not_owner with input as _query("alex", "lobby", {})

test_query_not_owner_for_app_without_inspect if {
	data.authz.decision == _not_owner with input as _query("ci-bot", "general", {})
}

test_query_not_owner_for_agent_owner_with_inspect if {
	data.authz.decision == _not_owner with input as _query("helper", "general", {})
}

test_query_not_owner_for_disabled_owner if {
	request := _query("robin", "general", {"principals": {"robin": {"status": "disabled"}}})
	data.authz.decision == _not_owner with input as request
}

test_query_not_owner_for_pending_app if {
	request := _query("auditor", "general", {"principals": {"auditor": {"status": "pending"}}})
	data.authz.decision == _not_owner with input as request
}

test_query_not_owner_for_unknown_actor if data.authz.decision == _not_owner with input as _query("casey", "general", {})

test_explain_allowed_for_owner if data.authz.decision == _allowed with input as _explain("robin", {})

test_explain_not_owner_for_user if data.authz.decision == _not_owner with input as _explain("alex", {})

test_explain_not_owner_for_app_with_inspect if data.authz.decision == _not_owner with input as _explain("auditor", {})

# The query's rule is the query's only: explaining with a channel resource gives an
# app holding authz:inspect neither the query's allow nor its 404.
test_explain_on_a_channel_not_owner_for_app_with_inspect if {
	every channel_id in ["general", "lobby"] {
		request := object.union(_explain("auditor", {}), {"resource": {"kind": "channel", "id": channel_id}})
		data.authz.decision == _not_owner with input as request
	}
}

test_explain_not_owner_for_deleted_owner if {
	data.authz.decision == _not_owner with input as _explain("robin", {"principals": {"robin": {"status": "deleted"}}})
}
