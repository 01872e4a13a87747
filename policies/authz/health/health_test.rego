package authz.health_test

import data.authz.health

_allowed := {"allow": true, "reason": "allowed", "status": 200}

test_health_actions if health.actions == {"health.live", "health.ready"}

test_live_allowed_without_actor_or_facts if data.authz.decision == _allowed with input as {"action": "health.live"}

test_ready_allowed_without_actor_or_facts if data.authz.decision == _allowed with input as {"action": "health.ready"}

test_ready_allowed_for_unknown_actor if {
	data.authz.decision == _allowed with input as {
		"action": "health.ready",
		"actor": "casey",
		"resource": {"kind": "instance"},
		"facts": {"principals": {}, "channels": {}, "spaces": {}, "grants": []},
	}
}
