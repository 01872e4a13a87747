# METADATA
# title: Runner decisions
# description: |
#   What an authenticated runner may do: enrol, report, reload and stop the
#   sessions of its own workspace bindings, and relay agent comms calls through
#   them. A binding counts only for the runner that holds it and only in the
#   runner's current enrolment, so a session id re-minted after a re-enrolment,
#   or another runner's session id, resolves to the same 404 as an unknown one.
#   The relayed call itself is decided afterwards as message.list or message.post
#   for the bound agent account, exactly as for a person.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package authz.runners

import data.authz.levels
import data.authz.results

# METADATA
# title: Runner actions
actions := {
	"runner.enroll",
	"runner.session.bind",
	"runner.session.reload",
	"runner.session.stop",
	"runner.comms.relay",
}

# METADATA
# title: Runner decision
# description: |
#   The actor must be a runner (403 subject_kind_not_allowed otherwise).
#   runner.enroll is then allowed. Every other action needs an enrolled runner
#   (403 not_enrolled) and a usable binding: held by the actor, of its current
#   enrollment_epoch, in a state the action accepts (bind: provisioned or bound;
#   reload, stop, relay: bound) and, for runner.comms.relay, bound to an active
#   agent. Anything else is 404 not_found, the same answer as no binding.
# scope: document
default decision := {"allow": false, "reason": "not_found", "status": 404}

decision := results.subject_kind_not_allowed if {
	not _is_runner
} else := results.allowed if {
	input.action == "runner.enroll"
} else := results.not_enrolled if {
	not _is_enrolled
} else := results.allowed if {
	_binding_usable
}

_runner := input.facts.runners[input.actor]

_is_runner if is_object(_runner)

_is_enrolled if _runner.enrolled == true

_states := {
	"runner.session.bind": {"provisioned", "bound"},
	"runner.session.reload": {"bound"},
	"runner.session.stop": {"bound"},
	"runner.comms.relay": {"bound"},
}

_binding_usable if {
	binding := input.resource
	binding.kind == "binding"
	binding.runner_id == input.actor
	binding.enrollment_epoch == _runner.enrollment_epoch
	binding.state in _states[input.action]
	_agent_ok(input.action, binding.agent_id)
}

# Only the relay acts as the agent; the lifecycle calls must still work for a
# disabled agent so that a runner can stop its session.
_agent_ok(action, _) if action != "runner.comms.relay"

_agent_ok("runner.comms.relay", agent_id) if {
	input.facts.principals[agent_id].kind == "agent"
	levels.is_active(input.facts, agent_id)
}
