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

# the run of agent helper, triggered by alex, in thread t1 of channel general whose
# parent is message 5 of general's main thread
_run := {
	"id": "run-1",
	"agent_id": "helper",
	"triggered_by": "alex",
	"channel_id": "general",
	"thread_id": "t1",
	"parent": {"thread_id": "general-main", "seq": 5},
}

_thread(id, channel_id, seqs) := {"id": id, "channel_id": channel_id, "seqs": seqs}

_author(id, origin) := {"id": id, "origin": origin}

_evaluate_input(threads, authors, overrides) := object.union(
	{"actor": "helper", "run": _run, "threads": threads, "authors": authors, "facts": _base_facts},
	overrides,
)

# one message by the given author in the run's thread
_single(author_id, origin) := _evaluate_input([_thread("t1", "general", [1])], [_author(author_id, origin)], {})

_classes(author_id, origin, role, trust) := [{"author_id": author_id, "origin": origin, "role": role, "trust": trust}]

_with_grants(grants) := {"facts": {"grants": grants}}

# readable seqs of each thread of an evaluation result
_parts(result) := {part.thread_id: part.seqs | some part in result.readable}

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

test_class_system if {
	expected := _classes("ci-bot", "system", "other", "system")
	runcontext.evaluate.classes == expected with input as _single("ci-bot", "system")
}

test_class_system_authored_by_person if {
	runcontext.evaluate.classes == _classes("alex", "system", "other", "system") with input as _single("alex", "system")
}

test_class_import if {
	expected := _classes("casey", "import", "other", "unverified")
	runcontext.evaluate.classes == expected with input as _single("casey", "import")
}

test_class_import_authored_by_triggering_person if {
	expected := _classes("alex", "import", "other", "unverified")
	runcontext.evaluate.classes == expected with input as _single("alex", "import")
}

test_class_app if {
	expected := _classes("ci-bot", "app", "other", "unverified")
	runcontext.evaluate.classes == expected with input as _single("ci-bot", "app")
}

test_class_agent_run_agent if {
	expected := _classes("helper", "agent", "assistant", "self")
	runcontext.evaluate.classes == expected with input as _single("helper", "agent")
}

# The origin decides before the author: the run's own agent is "self" only for
# what it posted as an agent.
test_class_run_agent_with_a_human_origin_is_unverified if {
	expected := _classes("helper", "human", "user", "unverified")
	runcontext.evaluate.classes == expected with input as _single("helper", "human")
}

test_class_agent_other_agent if {
	expected := _classes("scout", "agent", "other", "unverified")
	runcontext.evaluate.classes == expected with input as _single("scout", "agent")
}

test_class_triggering_person_without_trigger_now_is_unverified if {
	expected := _classes("alex", "human", "user", "unverified")
	runcontext.evaluate.classes == expected with input as _single("alex", "human")
}

test_class_disabled_triggering_person_is_unverified if {
	request := object.union_n([
		_single("alex", "human"),
		_with_grants([_trigger("alex")]),
		{"facts": {"principals": {"alex": {"status": "disabled"}}}},
	])
	runcontext.evaluate.classes == _classes("alex", "human", "user", "unverified") with input as request
}

test_class_human_triggering_person_who_holds_trigger if {
	request := object.union(_single("alex", "human"), _with_grants([_trigger("alex")]))
	runcontext.evaluate.classes == _classes("alex", "human", "user", "trigger") with input as request
}

test_class_human_trigger_holder if {
	expected := _classes("robin", "human", "user", "authorized")
	runcontext.evaluate.classes == expected with input as _single("robin", "human")
}

test_class_human_otherwise if {
	expected := _classes("casey", "human", "user", "unverified")
	runcontext.evaluate.classes == expected with input as _single("casey", "human")
}

test_class_human_without_triggering_person if {
	request := object.union(
		object.remove(_single("alex", "human"), ["run"]),
		{"run": object.remove(_run, ["triggered_by"])},
	)
	runcontext.evaluate.classes == _classes("alex", "human", "user", "unverified") with input as request
}

test_class_unknown_origin if {
	expected := _classes("alex", "webhook", "other", "unverified")
	runcontext.evaluate.classes == expected with input as _single("alex", "webhook")
}

# The origin decides before the author even for people who hold trigger now: the
# triggering person and another holder get no trust from an origin no row lists.
test_class_unknown_origin_of_trigger_holders if {
	request := _evaluate_input(
		[_thread("t1", "general", [1])],
		[_author("alex", "webhook"), _author("sam", "webhook")],
		_with_grants([_trigger("alex"), _trigger("sam")]),
	)
	runcontext.evaluate.classes == [
		{"author_id": "alex", "origin": "webhook", "role": "other", "trust": "unverified"},
		{"author_id": "sam", "origin": "webhook", "role": "other", "trust": "unverified"},
	] with input as request
}

test_classes_follow_the_order_of_the_authors if {
	authors := [_author("robin", "human"), _author("helper", "agent"), _author("robin", "import")]
	request := _evaluate_input([], authors, {})
	runcontext.evaluate.classes == [
		{"author_id": "robin", "origin": "human", "role": "user", "trust": "authorized"},
		{"author_id": "helper", "origin": "agent", "role": "assistant", "trust": "self"},
		{"author_id": "robin", "origin": "import", "role": "other", "trust": "unverified"},
	] with input as request
}

# readable filtering: the run's own agent (decisions.md S0-11)

test_readable_run_thread_whole_for_run_agent_without_grant if {
	request := _evaluate_input([_thread("t1", "general", [1, 2, 9])], [], {})
	_parts(runcontext.evaluate) == {"t1": [1, 2, 9]} with input as request
}

test_readable_main_thread_up_to_the_parent_for_run_agent_without_grant if {
	request := _evaluate_input([_thread("general-main", "general", [3, 4, 5, 6, 7])], [], {})
	_parts(runcontext.evaluate) == {"general-main": [3, 4, 5]} with input as request
}

test_readable_other_thread_of_the_run_channel_not_reached_without_grant if {
	request := _evaluate_input([_thread("t2", "general", [1, 2])], [], {})
	_parts(runcontext.evaluate) == {"t2": []} with input as request
}

test_readable_main_thread_not_reached_for_a_run_without_parent if {
	request := object.union(
		object.remove(_evaluate_input([_thread("general-main", "general", [1])], [], {}), ["run"]),
		{"run": object.remove(_run, ["parent"])},
	)
	_parts(runcontext.evaluate) == {"general-main": []} with input as request
}

test_readable_whole_channel_with_a_read_grant if {
	threads := [_thread("t2", "general", [1, 2]), _thread("general-main", "general", [6, 7])]
	overrides := _with_grants([_grant("principal", "helper", "channel", "general", "read")])
	request := _evaluate_input(threads, [], overrides)
	_parts(runcontext.evaluate) == {"t2": [1, 2], "general-main": [6, 7]} with input as request
}

test_readable_other_channel_excluded_even_with_grant if {
	threads := [_thread("t9", "random", [1]), _thread("t1", "general", [1])]
	overrides := _with_grants([_grant("principal", "helper", "channel", "random", "read")])
	request := _evaluate_input(threads, [], overrides)
	_parts(runcontext.evaluate) == {"t9": [], "t1": [1]} with input as request
}

test_readable_moved_parent_thread_in_another_channel_excluded if {
	request := _evaluate_input([_thread("general-main", "random", [1, 2])], [], {})
	_parts(runcontext.evaluate) == {"general-main": []} with input as request
}

test_readable_other_agent_in_run_channel_without_grant_excluded if {
	request := _evaluate_input([_thread("t1", "general", [1])], [], {"actor": "scout"})
	_parts(runcontext.evaluate) == {"t1": []} with input as request
}

# The run's reach into the main thread is its own agent's too: another agent reads
# none of it, up to the parent or past it.
test_readable_main_thread_of_the_run_not_reached_by_another_agent if {
	every seqs in [[3, 4, 5], [3, 4, 5, 6, 7]] {
		request := _evaluate_input([_thread("general-main", "general", seqs)], [], {"actor": "scout"})
		_parts(runcontext.evaluate) == {"general-main": []} with input as request
	}
}

test_readable_other_agent_with_grant if {
	grant := _grant("principal", "scout", "space", "team", "read")
	overrides := object.union({"actor": "scout"}, _with_grants([grant]))
	request := _evaluate_input([_thread("t1", "general", [1])], [], overrides)
	_parts(runcontext.evaluate) == {"t1": [1]} with input as request
}

test_readable_disabled_run_agent_excluded if {
	overrides := {"facts": {"principals": {"helper": {"status": "disabled"}}}}
	_parts(runcontext.evaluate) == {"t1": []} with input as _evaluate_input([_thread("t1", "general", [1])], [], overrides)
}

test_evaluate_whole_result if {
	threads := [_thread("general-main", "general", [2, 3]), _thread("t1", "general", [1, 2, 4])]
	authors := [
		_author("helper", "agent"),
		_author("alex", "human"),
		_author("robin", "human"),
		_author("sam", "import"),
		_author("sam", "human"),
	]
	overrides := _with_grants([_trigger("sam"), _trigger("alex")])
	runcontext.evaluate == {
		"readable": [
			{"thread_id": "general-main", "seqs": [2, 3]},
			{"thread_id": "t1", "seqs": [1, 2, 4]},
		],
		"trigger_holders": ["alex", "robin", "sam"],
		"classes": [
			{"author_id": "helper", "origin": "agent", "role": "assistant", "trust": "self"},
			{"author_id": "alex", "origin": "human", "role": "user", "trust": "trigger"},
			{"author_id": "robin", "origin": "human", "role": "user", "trust": "authorized"},
			{"author_id": "sam", "origin": "import", "role": "other", "trust": "unverified"},
			{"author_id": "sam", "origin": "human", "role": "user", "trust": "authorized"},
		],
	} with input as _evaluate_input(threads, authors, overrides)
}

test_evaluate_nothing_sent if {
	runcontext.evaluate == {"readable": [], "trigger_holders": [], "classes": []} with input as _evaluate_input([], [], {})
}
