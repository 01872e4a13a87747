package authz.reading_test

import data.authz.reading
import data.runcontext

_principal(kind, status) := {"kind": kind, "status": status, "is_owner": false, "groups": ["staff"], "permissions": []}

_facts(overrides) := object.union(
	{
		"now": "2026-11-29T12:00:00Z",
		"principals": {"alex": _principal("user", "active"), "scout": _principal("agent", "active")},
		"channels": {
			"general": {"kind": "regular", "archived": false, "space_id": "team", "members": []},
			"dm": {"kind": "dm", "archived": false, "space_id": "team", "members": []},
		},
		"spaces": {"team": {"archived": false}},
		"grants": [],
	},
	overrides,
)

_grant(subject_kind, subject_id, target_kind, target_id, lvl, extra) := object.union(
	{
		"subject": {"kind": subject_kind, "id": subject_id},
		"target": {"kind": target_kind, "id": target_id},
		"level": lvl,
	},
	extra,
)

_run := {
	"id": "run-1",
	"agent_id": "helper",
	"channel_id": "general",
	"thread_id": "t1",
	"parent": {"thread_id": "general-main", "seq": 5},
}

test_can_read_with_a_read_grant if {
	facts := _facts({"grants": [_grant("principal", "alex", "channel", "general", "read", {})]})
	reading.can_read(facts, "alex", {"channel_id": "general"})
}

test_cannot_read_without_a_grant if not reading.can_read(_facts({}), "alex", {"channel_id": "general"})

test_run_reaches_its_whole_thread if reading.run_reaches_thread(_run, "t1")

test_run_does_not_reach_another_thread_whole if not reading.run_reaches_thread(_run, "general-main")

test_run_reaches_the_main_thread_up_to_the_parent if reading.run_reach_limit(_run, "general-main") == 5

test_run_reaches_nothing_of_another_thread if not reading.run_reach_limit(_run, "t2")

test_run_without_parent_reaches_no_main_thread if {
	not reading.run_reach_limit(object.remove(_run, ["parent"]), "general-main")
}

# The message.read decision and the run-context filter of an actor that is not the
# run's agent ask the same rule, so they agree on every case below.

_cases := {
	"no grant": {},
	"read on channel": {"grants": [_grant("principal", "alex", "channel", "general", "read", {})]},
	"write on space": {"grants": [_grant("principal", "alex", "space", "team", "write", {})]},
	"group read": {"grants": [_grant("group", "staff", "channel", "general", "read", {})]},
	"expired read": {"grants": [_grant(
		"principal", "alex", "channel", "general", "read",
		{"expires_at": "2026-11-29T11:00:00Z"},
	)]},
	"member": {"channels": {"general": {"members": ["alex"]}}},
	"archived channel with read": {
		"channels": {"general": {"archived": true}},
		"grants": [_grant("principal", "alex", "channel", "general", "read", {})],
	},
	"disabled person with read": {
		"principals": {"alex": {"status": "disabled"}},
		"grants": [_grant("principal", "alex", "channel", "general", "read", {})],
	},
}

_message_read_input(facts) := {
	"action": "message.read",
	"actor": "alex",
	"resource": {"kind": "channel", "id": "general"},
	"facts": facts,
}

_filter_input(facts) := {
	"actor": "alex",
	"run": _run,
	"threads": [{"id": "t1", "channel_id": "general", "seqs": [1]}],
	"authors": [],
	"facts": facts,
}

test_message_read_and_the_run_context_filter_agree if {
	every overrides in _cases {
		facts := _facts(overrides)
		allowed := data.authz.decision.allow with input as _message_read_input(facts)
		filtered := runcontext.evaluate.readable[0].seqs with input as _filter_input(facts)
		_filter_allowed(filtered) == allowed
	}
}

_filter_allowed([1]) := true

_filter_allowed([]) := false

test_the_agreement_cases_cover_both_outcomes if {
	data.authz.decision.allow with input as _message_read_input(_facts(_cases["read on channel"]))
	not data.authz.decision.allow with input as _message_read_input(_facts(_cases["no grant"]))
}
