# METADATA
# title: Runner decisions
# description: |
#   What an authenticated runner may do: enrol, report, reload and stop the
#   sessions of its own workspace bindings, and relay agent comms calls through
#   them. A binding counts only for the runner that holds it and only in the
#   runner's current enrolment, so a session id re-minted after a re-enrolment,
#   or another runner's session id, resolves to the same 404 as an unknown one.
#   The relayed call itself is decided afterwards as message.list or message.post
#   for the bound agent account, exactly as for a person, and also for the
#   requester of the run bound to the session (package authz.actingfor).
#   Binding a run to a session is the runner's own action: only a live run of the
#   session's own agent, only through the runner's own bound session.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package authz.runners

import data.authz.actingfor
import data.authz.levels
import data.authz.results
import data.authz.runs

# METADATA
# title: Runner actions
actions := {
	"runner.enroll",
	"runner.session.bind",
	"runner.session.reload",
	"runner.session.stop",
	"runner.comms.relay",
	"runner.session.run.bind",
	"runner.session.run.unbind",
}

# METADATA
# title: Runner decision
# description: |
#   The actor must be a runner (403 subject_kind_not_allowed otherwise).
#   runner.enroll is then allowed. Every other action needs an enrolled runner
#   (403 not_enrolled) and a usable binding: held by the actor, of its current
#   enrollment_epoch, in a state the action accepts (bind: provisioned or bound;
#   reload, stop, relay, run bind and unbind: bound) and, for runner.comms.relay
#   and runner.session.run.bind, bound to an active agent. Binding a run also
#   needs resource.run: a run queued, running or waiting for input of the
#   binding's own agent. Anything else is 404 not_found, the same answer as no
#   binding. An allowed relay with input.acting_for (a run is bound) carries the
#   mode that decides the relayed call: acting_for {"mode": "run", "run_id"} or
#   {"mode": "own"} (authz.actingfor.mode).
# scope: document
default decision := {"allow": false, "reason": "not_found", "status": 404}

decision := results.subject_kind_not_allowed if {
	not _is_runner
} else := results.allowed if {
	input.action == "runner.enroll"
} else := results.not_enrolled if {
	not _is_enrolled
} else := _allowed if {
	_binding_usable
}

_allowed := object.union(results.allowed, {"acting_for": actingfor.mode(input.acting_for)}) if {
	input.action == "runner.comms.relay"
	is_object(input.acting_for)
} else := results.allowed

_runner := input.facts.runners[input.actor]

_is_runner if is_object(_runner)

_is_enrolled if _runner.enrolled == true

_states := {
	"runner.session.bind": {"provisioned", "bound"},
	"runner.session.reload": {"bound"},
	"runner.session.stop": {"bound"},
	"runner.comms.relay": {"bound"},
	"runner.session.run.bind": {"bound"},
	"runner.session.run.unbind": {"bound"},
}

_binding_usable if {
	binding := input.resource
	binding.kind == "binding"
	binding.runner_id == input.actor
	binding.enrollment_epoch == _runner.enrollment_epoch
	binding.state in _states[input.action]
	_agent_ok(input.action, binding.agent_id)
	_run_ok(input.action, binding)
}

# The relay acts as the agent and a bound run lets it act for its requester: both
# need an active agent. The lifecycle calls (unbinding a run included) must still
# work for a disabled agent so that a runner can stop its session.
_acting := {"runner.comms.relay", "runner.session.run.bind"}

_agent_ok(action, _) if not action in _acting

_agent_ok(action, agent_id) if {
	action in _acting
	input.facts.principals[agent_id].kind == "agent"
	levels.is_active(input.facts, agent_id)
}

_run_ok(action, _) if action != "runner.session.run.bind"

_run_ok("runner.session.run.bind", binding) if {
	binding.run.state in runs.live_states
	binding.run.agent_id == binding.agent_id
}
