package privacy_test

import data.privacy

_unknown_provider := {"allow": false, "reason": "unknown_provider", "status": 403}

_c(level, explicit) := {"level": level, "explicit": explicit}

_ceilings(audit, answer) := {"audit_content": audit, "background_answer": answer}

_default := _ceilings(_c("metadata", false), _c("metadata", false))

_parts := {
	"none": {"kind"},
	"metadata": {"kind", "metadata"},
	"full": {"content", "kind", "metadata"},
}

_go(ceilings, changed, answer) := {
	"outcome": "go",
	"ceilings": ceilings,
	"changed": changed,
	"retention": {"step_parts": _parts[ceilings.audit_content.level], "answer": answer},
}

_attempt(run_ceilings, provider_policy, task_policy) := object.union_n([
	{"provider": {"id": "openai-eu", "policy": provider_policy}},
	_run(run_ceilings),
	_task(task_policy),
])

_run(null) := {"run": {}}

_run(ceilings) := {"run": {"ceilings": ceilings}} if ceilings != null

_task(null) := {}

_task(policy) := {"task": {"key": "hr-review", "policy": policy}} if policy != null

# --------------------------------------------------------------- attempts

test_unknown_provider_refused if {
	privacy.attempt == {"outcome": "refused", "decision": _unknown_provider} with input as {
		"run": {"ceilings": _default},
		"provider": {"id": "shadow-llm"},
	}
}

test_unknown_provider_refused_even_with_an_unreadable_task if {
	privacy.attempt == {"outcome": "refused", "decision": _unknown_provider} with input as {
		"run": {},
		"provider": {"id": "shadow-llm"},
		"task": {"key": "hr-review", "policy": {"audit_content": "secret"}},
	}
}

test_missing_provider_refused if {
	privacy.attempt == {"outcome": "refused", "decision": _unknown_provider} with input as {"run": {}}
}

test_provider_policy_that_is_not_an_object_refused if {
	privacy.attempt.outcome == "refused" with input as {"run": {}, "provider": {"id": "x", "policy": "full"}}
}

test_inheriting_provider_on_a_new_run_gets_the_global_default if {
	privacy.attempt == _go(_default, true, true) with input as _attempt(null, {}, null)
}

test_explicit_provider_ceilings_on_a_new_run if {
	expected := _go(_ceilings(_c("full", true), _c("none", true)), true, false)
	privacy.attempt == expected with input as _attempt(null, {"audit_content": "full", "background_answer": "none"}, null)
}

test_unchanged_ceilings_are_not_changed if {
	privacy.attempt == _go(_default, false, true) with input as _attempt(_default, {}, null)
}

test_stricter_provider_tightens if {
	run := _ceilings(_c("full", true), _c("full", true))
	expected := _go(_ceilings(_c("none", true), _c("full", true)), true, true)
	privacy.attempt == expected with input as _attempt(run, {"audit_content": "none", "background_answer": "full"}, null)
}

test_looser_fallback_keeps_the_run_ceilings if {
	run := _ceilings(_c("none", true), _c("none", true))
	expected := _go(run, false, false)
	privacy.attempt == expected with input as _attempt(run, {"audit_content": "full", "background_answer": "full"}, null)
}

test_looser_inherited_provider_keeps_explicit_run_ceilings if {
	run := _ceilings(_c("metadata", true), _c("metadata", true))
	privacy.attempt == _go(run, false, false) with input as _attempt(run, {}, null)
}

test_explicit_at_the_default_level_is_stricter_than_the_default if {
	expected := _go(_ceilings(_c("metadata", false), _c("metadata", true)), true, false)
	privacy.attempt == expected with input as _attempt(_default, {"background_answer": "metadata"}, null)
}

test_explicit_provider_metadata_prohibits_the_answer if {
	result := privacy.attempt with input as _attempt(null, {"background_answer": "metadata"}, null)
	result.retention.answer == false
}

test_global_metadata_default_alone_keeps_the_answer if {
	result := privacy.attempt with input as _attempt(null, {}, null)
	result.ceilings.background_answer == _c("metadata", false)
	result.retention.answer == true
}

test_explicit_task_metadata_prohibits_the_answer if {
	expected := _go(_ceilings(_c("metadata", false), _c("metadata", true)), true, false)
	privacy.attempt == expected with input as _attempt(null, {}, {"background_answer": "metadata"})
}

test_task_ceiling_tightens_a_looser_provider if {
	expected := _go(_ceilings(_c("none", true), _c("full", true)), true, true)
	request := _attempt(null, {"audit_content": "full", "background_answer": "full"}, {"audit_content": "none"})
	privacy.attempt == expected with input as request
}

test_task_without_policy_changes_nothing if {
	request := object.union(_attempt(_default, {}, null), {"task": {"key": "unlisted"}})
	privacy.attempt == _go(_default, false, true) with input as request
}

test_strictest_of_run_provider_and_task_per_kind if {
	run := _ceilings(_c("metadata", true), _c("full", true))
	provider := {"audit_content": "full", "background_answer": "metadata"}
	expected := _go(_ceilings(_c("metadata", true), _c("metadata", true)), true, false)
	privacy.attempt == expected with input as _attempt(run, provider, {"audit_content": "full"})
}

test_partially_reconciled_run_fills_the_missing_kind if {
	run := {"audit_content": _c("none", true)}
	expected := _go(_ceilings(_c("none", true), _c("metadata", false)), true, true)
	privacy.attempt == expected with input as _attempt(run, {}, null)
}

# Explicit breaks ties of the level only: a looser explicit ceiling never wins over a
# stricter inherited one.
test_a_stricter_inherited_ceiling_wins_over_a_looser_explicit_one if {
	run := _ceilings(_c("none", false), _c("none", false))
	expected := _go(run, false, false)
	privacy.attempt == expected with input as _attempt(run, {"audit_content": "full", "background_answer": "full"}, null)
}

# "unless_explicit" keeps the answer at its own level only; an inherited ceiling of a
# level that never keeps it (none) does not keep it either.
test_an_inherited_none_ceiling_keeps_no_answer if {
	run := _ceilings(_c("none", false), _c("none", false))
	result := privacy.write with input as {"run": {"ceilings": run}}
	result.retention.answer == false
}

test_full_keeps_the_answer_explicit_or_not if {
	result := privacy.attempt with input as _attempt(null, {"audit_content": "full", "background_answer": "full"}, null)
	result.retention == {"step_parts": {"content", "kind", "metadata"}, "answer": true}
}

test_none_keeps_only_the_step_kind_and_no_answer if {
	result := privacy.attempt with input as _attempt(null, {"audit_content": "none", "background_answer": "none"}, null)
	result.retention == {"step_parts": {"kind"}, "answer": false}
}

test_unreadable_provider_level if {
	privacy.attempt == {"outcome": "unreadable"} with input as _attempt(_default, {"audit_content": "secret"}, null)
}

test_unreadable_provider_kind if {
	privacy.attempt == {"outcome": "unreadable"} with input as _attempt(_default, {"prompt_cache": "none"}, null)
}

test_unreadable_task_level if {
	privacy.attempt == {"outcome": "unreadable"} with input as _attempt(_default, {}, {"background_answer": 3})
}

test_unreadable_stored_run_level if {
	run := _ceilings(_c("confidential", true), _c("full", true))
	privacy.attempt == {"outcome": "unreadable"} with input as _attempt(run, {}, null)
}

test_unreadable_stored_run_explicit_flag if {
	run := _ceilings(_c("full", "yes"), _c("full", true))
	privacy.attempt == {"outcome": "unreadable"} with input as _attempt(run, {}, null)
}

test_unreadable_stored_run_kind if {
	run := object.union(_default, {"tool_output": _c("full", true)})
	privacy.attempt == {"outcome": "unreadable"} with input as _attempt(run, {}, null)
}

# --------------------------------------------------------------- writes

test_write_on_an_unreconciled_run_applies_the_global_default if {
	privacy.write == _go(_default, true, true) with input as {"run": {}}
}

test_write_on_an_unreconciled_run_applies_the_task_ceiling if {
	expected := _go(_ceilings(_c("none", true), _c("metadata", false)), true, true)
	privacy.write == expected with input as {"run": {}, "task": {"key": "hr-review", "policy": {"audit_content": "none"}}}
}

test_write_keeps_reconciled_ceilings if {
	run := _ceilings(_c("full", true), _c("full", false))
	privacy.write == _go(run, false, true) with input as {"run": {"ceilings": run}}
}

test_write_never_loosens_to_the_global_default if {
	run := _ceilings(_c("none", true), _c("none", true))
	privacy.write == _go(run, false, false) with input as {"run": {"ceilings": run}}
}

test_write_applies_a_tightened_task_policy if {
	run := _ceilings(_c("full", true), _c("full", true))
	expected := _go(_ceilings(_c("full", true), _c("metadata", true)), true, false)
	privacy.write == expected with input as {
		"run": {"ceilings": run},
		"task": {"key": "hr-review", "policy": {"background_answer": "metadata"}},
	}
}

test_write_ignores_a_provider if {
	request := {"run": {}, "provider": {"id": "openai-eu", "policy": {"audit_content": "none"}}}
	privacy.write == _go(_default, true, true) with input as request
}

test_write_unreadable_stored_level if {
	run := _ceilings(_c("secret", false), _c("full", false))
	privacy.write == {"outcome": "unreadable"} with input as {"run": {"ceilings": run}}
}

test_write_unreadable_task if {
	task := {"key": "t", "policy": {"audit_content": "everything"}}
	privacy.write == {"outcome": "unreadable"} with input as {"run": {}, "task": task}
}

test_kinds if privacy.kinds == {"audit_content", "background_answer"}
