# METADATA
# title: Message decisions
# description: |
#   Listing, reading and posting messages in a channel. A call relayed through a
#   session with a bound run (input.acting_for, package authz.actingfor) is
#   decided for the agent and for the run's requester on the same channel.
package authz.messages

import data.authz.actingfor
import data.authz.levels
import data.authz.reading
import data.authz.results

# METADATA
# title: Message actions
actions := {"message.list", "message.read", "message.post"}

# METADATA
# title: Message decision
# description: |
#   The actor's own decision: message.read follows the shared reading rule
#   (authz.reading.can_read); listing and posting need the level of the action.
#   Posting with read only is 403 archived (channel or space archived) or 403
#   no_grant; otherwise 404.
#
#   Then, for a channel the actor can see: an agent with acting_for required is
#   refused the relayed actions (403 run_required) unless a live run is bound;
#   with a live bound run (mode run) an allowed call also needs the requester's
#   level (403 acting_for_exceeded otherwise). An invisible channel stays 404 in
#   every mode, so neither rule tells that a channel exists.
#
#   With input.acting_for the decision carries acting_for: {"mode": "own"} or
#   {"mode": "run", "run_id", "failed"}, where failed lists the sides
#   ("agent", "requester") that do not allow the call.
# scope: document
default decision := {"allow": false, "reason": "not_found", "status": 404}

decision := _answer if not _bound

decision := object.union(_answer, {"acting_for": _report}) if _bound

_bound if is_object(input.acting_for)

default _mode := {"mode": "own"}

_mode := actingfor.mode(input.acting_for) if _bound

_answer := _own if {
	_own.status == 404
} else := results.run_required if {
	_mode.mode == "own"
	actingfor.run_required(input.facts, input.actor, input.action)
} else := results.acting_for_exceeded if {
	_mode.mode == "run"
	_own.allow == true
	not _requester_allows
} else := _own

_requester_allows if {
	actingfor.requester_allows(input.facts, input.acting_for, input.actor, input.action, input.resource.id)
}

_report := object.union(_mode, {"failed": _failed}) if {
	_mode.mode == "run"
} else := _mode

_failed := [side | some side in ["agent", "requester"]; _fails(side)]

_fails("agent") if _own.allow != true

_fails("requester") if not _requester_allows

# The actor's own rights, the same for a person, an agent calling with its own
# token and an agent whose call is relayed.
default _own := {"allow": false, "reason": "not_found", "status": 404}

_own := results.allowed if {
	input.action == "message.read"
	input.resource.kind == "channel"
	reading.can_read(input.facts, input.actor, {"channel_id": input.resource.id})
} else := results.allowed if {
	_level >= _required_level[input.action]
} else := results.archived if {
	input.action == "message.post"
	_level == levels.read
	levels.is_archived(input.facts, input.resource.id)
} else := results.no_grant if {
	input.action == "message.post"
	_level == levels.read
}

_required_level := {
	"message.list": levels.read,
	"message.post": levels.write,
}

_level := levels.level(input.facts, input.actor, input.resource.id) if input.resource.kind == "channel"
