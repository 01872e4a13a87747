# METADATA
# title: Inspection decisions
# description: Explaining decisions and querying a channel's trigger holders.
package authz.inspect

import data.authz.levels
import data.authz.results

# METADATA
# title: Inspection actions
actions := {"authz.trigger_holders.query", "authz.explain"}

# METADATA
# title: Inspection decision
# description: |
#   authz.explain: active instance owners only. authz.trigger_holders.query:
#   active owners (users) or active apps holding authz:inspect, else 403
#   not_owner; such a caller asking about an unknown channel gets 404.
# scope: document
default decision := {"allow": false, "reason": "not_owner", "status": 403}

decision := results.allowed if {
	input.action == "authz.explain"
	levels.is_active_owner(input.facts, input.actor)
}

decision := results.allowed if {
	input.action == "authz.trigger_holders.query"
	_may_query_holders
	input.resource.kind == "channel"
	input.resource.id in object.keys(input.facts.channels)
} else := results.not_found if {
	input.action == "authz.trigger_holders.query"
	_may_query_holders
}

_may_query_holders if {
	levels.is_active_owner(input.facts, input.actor)
	input.facts.principals[input.actor].kind == "user"
}

_may_query_holders if {
	levels.is_active(input.facts, input.actor)
	actor := input.facts.principals[input.actor]
	actor.kind == "app"
	"authz:inspect" in actor.permissions
}
