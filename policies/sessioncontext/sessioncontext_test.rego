package sessioncontext_test

import data.sessioncontext

_allowed := {"allow": true, "reason": "allowed", "status": 200}

_accepted := {"decision": "accepted"}

_denied(reason) := {"decision": "denied", "reason": reason}

_person(status, permissions) := {
	"kind": "user",
	"status": status,
	"is_owner": false,
	"groups": [],
	"permissions": permissions,
}

# alex holds matters:read only (a read-only caller); sam holds matters:read and
# matters:write; robin holds nothing; casey is disabled; lotse is an agent.
_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"alex": _person("active", ["matters:read"]),
		"sam": _person("active", ["matters:read", "matters:write"]),
		"robin": _person("active", []),
		"casey": _person("disabled", ["matters:read"]),
		"lotse": {"kind": "agent", "status": "active", "is_owner": false, "groups": [], "permissions": ["settings:write"]},
	},
	"channels": {},
	"spaces": {},
	"grants": [],
}

_input(actor, surfaces, intents) := {
	"action": "session_context.resolve",
	"actor": actor,
	"resource": {"kind": "instance"},
	"facts": _facts,
	"surfaces": surfaces,
	"intents": intents,
}

_navigate(target) := {"name": "navigate_to", "plane": "client", "target": target}

_server(name) := {"name": name, "plane": "server"}

_client(name) := {"name": name, "plane": "client"}

_surfaces := ["home", "matters.list", "settings.team", "unknown.surface"]

# The registry with one section replaced. (A `with` on a path below the registry
# would not be seen by rules that read the registry as a whole.)
_registry_with(section, value) := object.union(object.remove(sessioncontext.registry, {section}), {section: value})

# --- the caller -------------------------------------------------------------

test_person_gets_the_whole_resolution if {
	result := sessioncontext.resolve with input as _input("alex", [], [])
	result == {"decision": _allowed, "permissions": ["matters:read"], "reachable": [], "intents": []}
}

test_agent_gets_only_the_denial if {
	result := sessioncontext.resolve with input as _input("lotse", _surfaces, [_server("query_matters")])
	result == {"decision": {"allow": false, "reason": "subject_kind_not_allowed", "status": 403}}
}

test_disabled_person_gets_only_the_denial if {
	result := sessioncontext.resolve with input as _input("casey", _surfaces, [_server("query_matters")])
	result == {"decision": {"allow": false, "reason": "inactive", "status": 403}}
}

test_other_action_is_unknown_action if {
	request := object.union(_input("alex", _surfaces, []), {"action": "session_context.peek"})
	result := sessioncontext.resolve with input as request
	result == {"decision": {"allow": false, "reason": "unknown_action", "status": 403}}
}

test_permissions_are_the_callers_real_grants_ascending if {
	result := sessioncontext.resolve with input as _input("sam", [], [])
	result.permissions == ["matters:read", "matters:write"]
}

test_caller_without_permissions_gets_none if {
	result := sessioncontext.resolve with input as _input("robin", [], [])
	result.permissions == []
}

# --- surfaces ---------------------------------------------------------------

test_reachable_keeps_the_client_order_with_registry_permissions if {
	result := sessioncontext.resolve with input as _input("alex", ["matters.list", "home", "matters.detail"], [])
	result.reachable == [
		{"surface_key": "matters.list", "required_permission": "matters:read"},
		{"surface_key": "home"},
		{"surface_key": "matters.detail", "required_permission": "matters:read"},
	]
}

test_surface_needing_a_permission_the_caller_lacks_is_filtered if {
	result := sessioncontext.resolve with input as _input("alex", _surfaces, [])
	result.reachable == [{"surface_key": "home"}, {"surface_key": "matters.list", "required_permission": "matters:read"}]
}

test_unknown_surface_key_is_never_reachable if {
	result := sessioncontext.resolve with input as _input("sam", ["unknown.surface"], [])
	result.reachable == []
}

test_public_surface_is_reachable_without_permissions if {
	result := sessioncontext.resolve with input as _input("robin", _surfaces, [])
	result.reachable == [{"surface_key": "home"}]
}

test_malformed_registry_entry_is_never_reachable if {
	result := sessioncontext.resolve with input as _input("sam", ["broken"], [])
		with sessioncontext.registry as _registry_with("surfaces", {"broken": "public"})
	result.reachable == []
	result.intents == []
}

# --- the seed's decision table (decisions.md S3-16) -------------------------

test_navigate_to_reachable_surface_accepted if {
	result := sessioncontext.resolve with input as _input("alex", _surfaces, [_navigate("matters.list")])
	result.intents == [_accepted]
}

test_navigate_to_public_surface_accepted if {
	result := sessioncontext.resolve with input as _input("robin", _surfaces, [_navigate("home")])
	result.intents == [_accepted]
}

test_navigate_to_filtered_surface_not_reachable if {
	result := sessioncontext.resolve with input as _input("alex", _surfaces, [_navigate("settings.team")])
	result.intents == [_denied("not_reachable")]
}

test_navigate_to_unknown_surface_not_reachable if {
	result := sessioncontext.resolve with input as _input("sam", _surfaces, [_navigate("unknown.surface")])
	result.intents == [_denied("not_reachable")]
}

test_navigate_to_surface_the_client_did_not_list_not_reachable if {
	result := sessioncontext.resolve with input as _input("sam", ["home"], [_navigate("matters.list")])
	result.intents == [_denied("not_reachable")]
}

test_navigate_without_target_not_reachable if {
	result := sessioncontext.resolve with input as _input("sam", _surfaces, [_client("navigate_to")])
	result.intents == [_denied("not_reachable")]
}

test_query_matters_accepted_with_matters_read if {
	result := sessioncontext.resolve with input as _input("alex", [], [_server("query_matters")])
	result.intents == [_accepted]
}

test_query_matters_denied_without_matters_read if {
	result := sessioncontext.resolve with input as _input("robin", [], [_server("query_matters")])
	result.intents == [_denied("missing_permission")]
}

test_propose_matter_write_denied_for_read_only_caller if {
	result := sessioncontext.resolve with input as _input("alex", [], [_server("propose_matter_write")])
	result.intents == [_denied("missing_permission")]
}

test_propose_matter_write_accepted_with_matters_write if {
	result := sessioncontext.resolve with input as _input("sam", [], [_server("propose_matter_write")])
	result.intents == [_accepted]
}

test_forged_admin_tool_unknown if {
	result := sessioncontext.resolve with input as _input("sam", [], [_server("forged_admin_tool")])
	result.intents == [_denied("unknown_tool")]
}

test_forged_client_tool_unknown if {
	result := sessioncontext.resolve with input as _input("sam", [], [_client("settings.team.delete_member")])
	result.intents == [_denied("unknown_tool")]
}

test_intent_without_name_unknown if {
	result := sessioncontext.resolve with input as _input("sam", [], [{"plane": "server"}])
	result.intents == [_denied("unknown_tool")]
}

test_server_tool_on_client_plane_mismatch if {
	result := sessioncontext.resolve with input as _input("sam", [], [_client("query_matters")])
	result.intents == [_denied("plane_mismatch")]
}

test_navigate_to_on_server_plane_mismatch if {
	intent := {"name": "navigate_to", "plane": "server", "target": "home"}
	result := sessioncontext.resolve with input as _input("sam", _surfaces, [intent])
	result.intents == [_denied("plane_mismatch")]
}

test_tool_without_plane_in_registry_mismatch if {
	result := sessioncontext.resolve with input as _input("sam", [], [_server("query_matters")])
		with sessioncontext.registry as _registry_with("tools", {"query_matters": {}})
	result.intents == [_denied("plane_mismatch")]
}

test_malformed_tool_entry_missing_permission if {
	tools := {"navigate_to": {"plane": "client", "required_permission": 7}}
	result := sessioncontext.resolve with input as _input("sam", [], [_client("navigate_to")])
		with sessioncontext.registry as _registry_with("tools", tools)
	result.intents == [_denied("missing_permission")]
}

test_client_tool_needs_its_registry_permission if {
	denied := sessioncontext.resolve with input as _input("robin", [], [_client("open_matter_panel")])
	denied.intents == [_denied("missing_permission")]
	accepted := sessioncontext.resolve with input as _input("alex", [], [_client("open_matter_panel")])
	accepted.intents == [_accepted]
}

test_decisions_follow_the_order_of_the_intents if {
	intents := [
		_server("forged_admin_tool"),
		_navigate("matters.list"),
		_server("propose_matter_write"),
		_navigate("settings.team"),
		_server("query_matters"),
		_navigate("matters.list"),
	]
	result := sessioncontext.resolve with input as _input("alex", _surfaces, intents)
	result.intents == [
		_denied("unknown_tool"),
		_accepted,
		_denied("missing_permission"),
		_denied("not_reachable"),
		_accepted,
		_accepted,
	]
}

test_every_denial_reason_is_on_the_closed_list if {
	intents := [
		_server("forged_admin_tool"),
		_navigate("settings.team"),
		_client("query_matters"),
		_server("query_matters"),
	]
	result := sessioncontext.resolve with input as _input("robin", _surfaces, intents)
	{decision.reason | some decision in result.intents} == sessioncontext.reasons
}

# --- adding a surface or a tool: one data entry, one test ---------------------

test_new_surface_entry_is_reachable_with_its_permission if {
	entry := {"deadlines.board": {"required_permission": "matters:read"}}
	registry := _registry_with("surfaces", object.union(sessioncontext.registry.surfaces, entry))
	result := sessioncontext.resolve with input as _input("alex", ["deadlines.board"], [_navigate("deadlines.board")])
		with sessioncontext.registry as registry
	result.reachable == [{"surface_key": "deadlines.board", "required_permission": "matters:read"}]
	result.intents == [_accepted]
}

test_new_server_tool_needs_its_permission if {
	entry := {"list_deadlines": {"plane": "server", "required_permission": "matters:write"}}
	registry := _registry_with("tools", object.union(sessioncontext.registry.tools, entry))
	denied := sessioncontext.resolve with input as _input("alex", [], [_server("list_deadlines")])
		with sessioncontext.registry as registry
	denied.intents == [_denied("missing_permission")]
	accepted := sessioncontext.resolve with input as _input("sam", [], [_server("list_deadlines")])
		with sessioncontext.registry as registry
	accepted.intents == [_accepted]
}

# --- the registry is well formed -------------------------------------------

test_registry_surface_keys_are_url_free if {
	every key, _ in sessioncontext.registry.surfaces {
		regex.match(`^[a-z0-9_.-]{1,128}$`, key)
	}
}

test_registry_permissions_are_known if {
	entries := array.concat(
		[entry | some entry in sessioncontext.registry.surfaces],
		[entry | some entry in sessioncontext.registry.tools],
	)
	every entry in entries {
		every _, permission in object.filter(entry, {"required_permission"}) {
			permission in object.keys(sessioncontext.registry.permissions)
		}
	}
}

test_registry_tools_name_a_plane if {
	every _, tool in sessioncontext.registry.tools {
		tool.plane in {"client", "server"}
	}
}

test_registry_has_the_seed_tools if {
	tools := sessioncontext.registry.tools
	tools.navigate_to.plane == "client"
	tools.query_matters == {"description": "Search matters.", "plane": "server", "required_permission": "matters:read"}
	tools.propose_matter_write.plane == "server"
	tools.propose_matter_write.required_permission == "matters:write"
	not "forged_admin_tool" in object.keys(tools)
}
