package runcontext_test

import data.runcontext

_principal(kind, status, is_owner, groups) := {
	"kind": kind,
	"status": status,
	"is_owner": is_owner,
	"groups": groups,
	"permissions": [],
}

# alex triggers the run; sam, robin and casey are people; robin owns the instance;
# helper is the run's agent, scout another agent, ci-bot an app
_base_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"alex": _principal("user", "active", false, []),
		"sam": _principal("user", "active", false, ["staff"]),
		"robin": _principal("user", "active", true, []),
		"casey": _principal("user", "active", false, []),
		"helper": _principal("agent", "active", false, []),
		"scout": _principal("agent", "active", false, []),
		"ci-bot": _principal("app", "active", false, []),
	},
	"channels": {
		"general": {"kind": "regular", "archived": false, "space_id": "team", "members": []},
		"random": {"kind": "regular", "archived": false, "space_id": "team", "members": []},
		"attic": {"kind": "regular", "archived": true, "space_id": "team", "members": []},
		"legacy": {"kind": "regular", "archived": false, "space_id": "old", "members": []},
	},
	"spaces": {"team": {"archived": false}, "old": {"archived": true}},
	"grants": [],
}

_facts(overrides) := object.union(_base_facts, overrides)

_grant(subject_kind, subject_id, target_kind, target_id, lvl) := {
	"subject": {"kind": subject_kind, "id": subject_id},
	"target": {"kind": target_kind, "id": target_id},
	"level": lvl,
}

_trigger(principal_id) := _grant("principal", principal_id, "channel", "general", "trigger")

_holders_input(channel_id, candidates, fact_overrides) := {
	"channel_id": channel_id,
	"candidates": candidates,
	"facts": _facts(fact_overrides),
}

_holders(candidates, grants) := _holders_input("general", candidates, {"grants": grants})

_message(id, channel_id, author_id, origin) := {
	"id": id,
	"channel_id": channel_id,
	"author_id": author_id,
	"origin": origin,
}

# the run of agent helper, triggered by alex, in channel general
_run := {"id": "run-1", "agent_id": "helper", "triggered_by": "alex", "channel_id": "general"}

_evaluate_input(messages, overrides) := object.union(
	{"actor": "helper", "run": _run, "messages": messages, "facts": _base_facts},
	overrides,
)

# one message m1 in the run's channel
_single(author_id, origin) := _evaluate_input([_message("m1", "general", author_id, origin)], {})

_system := {"m1": {"role": "other", "trust": "system"}}

_other_unverified := {"m1": {"role": "other", "trust": "unverified"}}

_user_trigger := {"m1": {"role": "user", "trust": "trigger"}}

_user_authorized := {"m1": {"role": "user", "trust": "authorized"}}

_user_unverified := {"m1": {"role": "user", "trust": "unverified"}}

_assistant_self := {"m1": {"role": "assistant", "trust": "self"}}

_with_grants(grants) := {"facts": {"grants": grants}}

# TestTriggerHolders

test_holders_trigger_grant_on_channel if {
	request := _holders(["sam"], [_trigger("sam")])
	runcontext.trigger_holders == ["sam"] with input as request
}

test_holders_trigger_grant_on_space if {
	request := _holders(["sam"], [_grant("principal", "sam", "space", "team", "trigger")])
	runcontext.trigger_holders == ["sam"] with input as request
}

test_holders_manage_grant_counts if {
	request := _holders(["sam"], [_grant("principal", "sam", "channel", "general", "manage")])
	runcontext.trigger_holders == ["sam"] with input as request
}

test_holders_write_only_out if {
	request := _holders(["sam"], [_grant("principal", "sam", "channel", "general", "write")])
	runcontext.trigger_holders == [] with input as request
}

test_holders_group_grant_trigger if {
	request := _holders(["sam", "alex"], [_grant("group", "staff", "channel", "general", "trigger")])
	runcontext.trigger_holders == ["sam"] with input as request
}

test_holders_expired_grant_out if {
	grant := object.union(_trigger("sam"), {"expires_at": "2026-11-29T11:59:59Z"})
	runcontext.trigger_holders == [] with input as _holders(["sam"], [grant])
}

test_holders_future_expiry_in if {
	grant := object.union(_trigger("sam"), {"expires_at": "2026-12-01T00:00:00Z"})
	runcontext.trigger_holders == ["sam"] with input as _holders(["sam"], [grant])
}

test_holders_active_owner_without_grant if {
	request := _holders(["robin", "casey"], [])
	runcontext.trigger_holders == ["robin"] with input as request
}

test_holders_disabled_out if {
	request := _holders_input("general", ["robin"], {"principals": {"robin": {"status": "disabled"}}})
	runcontext.trigger_holders == [] with input as request
}

test_holders_pending_out if {
	overrides := {"principals": {"sam": {"status": "pending"}}, "grants": [_trigger("sam")]}
	runcontext.trigger_holders == [] with input as _holders_input("general", ["sam"], overrides)
}

test_holders_agent_with_trigger_grant_out if {
	runcontext.trigger_holders == [] with input as _holders(["helper"], [_trigger("helper")])
}

test_holders_app_with_trigger_grant_out if {
	runcontext.trigger_holders == [] with input as _holders(["ci-bot"], [_trigger("ci-bot")])
}

test_holders_archived_channel_out if {
	grants := [_grant("principal", "sam", "channel", "attic", "trigger")]
	runcontext.trigger_holders == [] with input as _holders_input("attic", ["sam", "robin"], {"grants": grants})
}

test_holders_archived_space_out if {
	grants := [_grant("principal", "sam", "space", "old", "trigger")]
	runcontext.trigger_holders == [] with input as _holders_input("legacy", ["sam", "robin"], {"grants": grants})
}

test_holders_duplicates_once if {
	request := _holders(["sam", "sam"], [_trigger("sam")])
	runcontext.trigger_holders == ["sam"] with input as request
}

test_holders_unknown_id_out if runcontext.trigger_holders == [] with input as _holders(["nobody"], [_trigger("nobody")])

test_holders_unknown_channel_out if {
	request := _holders_input("lobby", ["robin"], {})
	runcontext.trigger_holders == [] with input as request
}

test_holders_sorted_ascending if {
	grants := [_trigger("sam"), _trigger("alex")]
	request := _holders(["sam", "robin", "alex", "casey"], grants)
	runcontext.trigger_holders == ["alex", "robin", "sam"] with input as request
}

test_holders_no_candidates if runcontext.trigger_holders == [] with input as _holders([], [_trigger("sam")])

# classification, one test per row of the table (first row wins)

test_class_system if runcontext.evaluate.classes == _system with input as _single("ci-bot", "system")

test_class_system_authored_by_person if runcontext.evaluate.classes == _system with input as _single("alex", "system")

test_class_import if runcontext.evaluate.classes == _other_unverified with input as _single("casey", "import")

test_class_import_authored_by_triggering_person if {
	runcontext.evaluate.classes == _other_unverified with input as _single("alex", "import")
}

test_class_app if runcontext.evaluate.classes == _other_unverified with input as _single("ci-bot", "app")

test_class_agent_run_agent if runcontext.evaluate.classes == _assistant_self with input as _single("helper", "agent")

test_class_agent_other_agent if runcontext.evaluate.classes == _other_unverified with input as _single("scout", "agent")

test_class_triggering_person_without_trigger_now_is_unverified if {
	runcontext.evaluate.classes == _user_unverified with input as _single("alex", "human")
}

test_class_disabled_triggering_person_is_unverified if {
	request := object.union_n([
		_single("alex", "human"),
		_with_grants([_trigger("alex")]),
		{"facts": {"principals": {"alex": {"status": "disabled"}}}},
	])
	runcontext.evaluate.classes == _user_unverified with input as request
}

test_class_human_triggering_person_who_holds_trigger if {
	request := object.union(_single("alex", "human"), _with_grants([_trigger("alex")]))
	runcontext.evaluate.classes == _user_trigger with input as request
}

test_class_human_trigger_holder if {
	runcontext.evaluate.classes == _user_authorized with input as _single("robin", "human")
}

test_class_human_otherwise if runcontext.evaluate.classes == _user_unverified with input as _single("casey", "human")

test_class_human_without_triggering_person if {
	request := object.union(
		object.remove(_single("alex", "human"), ["run"]),
		{"run": object.remove(_run, ["triggered_by"])},
	)
	runcontext.evaluate.classes == _user_unverified with input as request
}

test_class_unknown_origin if runcontext.evaluate.classes == _other_unverified with input as _single("alex", "webhook")

# readable filtering

test_readable_run_channel_for_run_agent_without_grant if {
	request := _evaluate_input([_message("m1", "general", "alex", "human")], {})
	runcontext.evaluate.readable == ["m1"] with input as request
}

test_readable_other_channel_without_grant_excluded if {
	messages := [_message("m1", "general", "alex", "human"), _message("m2", "random", "sam", "human")]
	runcontext.evaluate.readable == ["m1"] with input as _evaluate_input(messages, {})
}

test_readable_other_channel_excluded_even_with_grant if {
	messages := [_message("m2", "random", "sam", "human"), _message("m1", "general", "alex", "human")]
	overrides := _with_grants([_grant("principal", "helper", "channel", "random", "read")])
	runcontext.evaluate.readable == ["m1"] with input as _evaluate_input(messages, overrides)
}

test_readable_other_agent_in_run_channel_without_grant_excluded if {
	messages := [_message("m1", "general", "alex", "human")]
	runcontext.evaluate.readable == [] with input as _evaluate_input(messages, {"actor": "scout"})
}

test_readable_other_agent_with_grant if {
	messages := [_message("m1", "general", "alex", "human")]
	grant := _grant("principal", "scout", "space", "team", "read")
	overrides := object.union({"actor": "scout"}, _with_grants([grant]))
	runcontext.evaluate.readable == ["m1"] with input as _evaluate_input(messages, overrides)
}

test_readable_disabled_run_agent_excluded if {
	messages := [_message("m1", "general", "alex", "human")]
	overrides := {"facts": {"principals": {"helper": {"status": "disabled"}}}}
	runcontext.evaluate.readable == [] with input as _evaluate_input(messages, overrides)
}

test_evaluate_whole_result if {
	messages := [
		_message("m4", "general", "helper", "agent"),
		_message("m1", "general", "alex", "human"),
		_message("m3", "random", "robin", "human"),
		_message("m2", "general", "sam", "import"),
		_message("m5", "general", "sam", "human"),
	]
	overrides := _with_grants([_trigger("sam"), _trigger("alex")])
	runcontext.evaluate == {
		"readable": ["m1", "m2", "m4", "m5"],
		"trigger_holders": ["alex", "robin", "sam"],
		"classes": {
			"m1": {"role": "user", "trust": "trigger"},
			"m2": {"role": "other", "trust": "unverified"},
			"m3": {"role": "user", "trust": "authorized"},
			"m4": {"role": "assistant", "trust": "self"},
			"m5": {"role": "user", "trust": "authorized"},
		},
	} with input as _evaluate_input(messages, overrides)
}

test_evaluate_no_messages if {
	runcontext.evaluate == {"readable": [], "trigger_holders": [], "classes": {}} with input as _evaluate_input([], {})
}
