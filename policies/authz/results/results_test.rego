package authz.results_test

import data.authz.results

test_reasons_are_the_closed_list if {
	results.reasons == {
		"allowed",
		"not_found",
		"no_grant",
		"archived",
		"not_owner",
		"not_self",
		"subject_kind_not_allowed",
		"unknown_action",
		"inactive",
		"not_enrolled",
		"not_agent_owner",
		"agent_inactive",
		"unknown_provider",
		"acting_for_exceeded",
		"run_required",
	}
}

test_decision_objects if {
	results.allowed == {"allow": true, "reason": "allowed", "status": 200}
	results.not_found == {"allow": false, "reason": "not_found", "status": 404}
	results.no_grant == {"allow": false, "reason": "no_grant", "status": 403}
	results.archived == {"allow": false, "reason": "archived", "status": 403}
	results.not_owner == {"allow": false, "reason": "not_owner", "status": 403}
	results.not_self == {"allow": false, "reason": "not_self", "status": 403}
	results.subject_kind_not_allowed == {"allow": false, "reason": "subject_kind_not_allowed", "status": 403}
	results.unknown_action == {"allow": false, "reason": "unknown_action", "status": 403}
	results.inactive == {"allow": false, "reason": "inactive", "status": 403}
	results.not_enrolled == {"allow": false, "reason": "not_enrolled", "status": 403}
	results.not_agent_owner == {"allow": false, "reason": "not_agent_owner", "status": 403}
	results.agent_inactive == {"allow": false, "reason": "agent_inactive", "status": 403}
	results.unknown_provider == {"allow": false, "reason": "unknown_provider", "status": 403}
	results.acting_for_exceeded == {"allow": false, "reason": "acting_for_exceeded", "status": 403}
	results.run_required == {"allow": false, "reason": "run_required", "status": 403}
}
