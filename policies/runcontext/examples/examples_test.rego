# The example tables of docs/policy-guide.md ("Trust and trigger holders",
# "Examples"), one test per row, so the guide cannot drift from the rules. The world
# is the demo world: space Support with channel General operated by the agent Lotse;
# Alex has trigger on the space, Sam trigger on the channel, Writer write only, Robin
# is the instance owner without grants; Texter is another agent, Importer an app.
package runcontext.examples_test

_person(is_owner) := {"kind": "user", "status": "active", "is_owner": is_owner, "groups": [], "permissions": []}

_agent := {"kind": "agent", "status": "active", "is_owner": false, "groups": [], "permissions": []}

_grant(subject, target_kind, target, lvl) := {
	"subject": {"kind": "principal", "id": subject},
	"target": {"kind": target_kind, "id": target},
	"level": lvl,
}

_grants := [
	_grant("alex", "space", "support", "trigger"),
	_grant("sam", "channel", "general", "trigger"),
	_grant("writer", "channel", "general", "write"),
]

_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"alex": _person(false),
		"sam": _person(false),
		"writer": _person(false),
		"robin": _person(true),
		"lotse": _agent,
		"texter": _agent,
	},
	"channels": {"general": {"kind": "regular", "archived": false, "space_id": "support", "members": []}},
	"spaces": {"support": {"archived": false}},
	"grants": _grants,
}

# The run of Lotse that Alex's message in thread t1 of General triggered.
_input(author, origin, fact_changes) := {
	"actor": "lotse",
	"run": {
		"id": "r1",
		"agent_id": "lotse",
		"triggered_by": "alex",
		"channel_id": "general",
		"thread_id": "t1",
	},
	"threads": [{"id": "t1", "channel_id": "general", "seqs": [1]}],
	"authors": [{"id": author, "origin": origin}],
	"facts": object.union(_facts, fact_changes),
}

_class(role, trust) := {"role": role, "trust": trust}

_marker(result) := {"role": result.classes[0].role, "trust": result.classes[0].trust}

test_row_alex_triggering_message_is_trigger if {
	_marker(data.runcontext.evaluate) == _class("user", "trigger") with input as _input("alex", "human", {})
}

test_row_alex_disabled_is_unverified if {
	changes := {"principals": {"alex": {"status": "disabled"}}}
	_marker(data.runcontext.evaluate) == _class("user", "unverified") with input as _input("alex", "human", changes)
}

test_row_sam_is_authorized if {
	_marker(data.runcontext.evaluate) == _class("user", "authorized") with input as _input("sam", "human", {})
}

test_row_robin_owner_is_authorized if {
	_marker(data.runcontext.evaluate) == _class("user", "authorized") with input as _input("robin", "human", {})
}

test_row_write_only_person_is_unverified if {
	_marker(data.runcontext.evaluate) == _class("user", "unverified") with input as _input("writer", "human", {})
}

test_row_import_authored_by_sam_is_unverified if {
	_marker(data.runcontext.evaluate) == _class("other", "unverified") with input as _input("sam", "import", {})
}

test_row_system_line_authored_by_alex_is_system if {
	_marker(data.runcontext.evaluate) == _class("other", "system") with input as _input("alex", "system", {})
}

test_row_earlier_answer_of_lotse_is_self if {
	_marker(data.runcontext.evaluate) == _class("assistant", "self") with input as _input("lotse", "agent", {})
}

test_row_another_agent_is_unverified if {
	_marker(data.runcontext.evaluate) == _class("other", "unverified") with input as _input("texter", "agent", {})
}

# "Robin revokes Sam's grant": Sam's message becomes unverified.
test_revoked_grant_makes_sam_unverified if {
	changes := {"grants": [_grant("alex", "space", "support", "trigger")]}
	_marker(data.runcontext.evaluate) == _class("user", "unverified") with input as _input("sam", "human", changes)
}

# "Robin archives General": nobody holds trigger there, Alex (decision D9) included.
test_archived_channel_makes_everyone_unverified if {
	changes := {"channels": {"general": {"archived": true}}}
	every author in ["alex", "sam", "robin"] {
		_marker(data.runcontext.evaluate) == _class("user", "unverified") with input as _input(author, "human", changes)
	}
}
