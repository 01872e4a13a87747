# METADATA
# title: Run decisions
# description: Agents read run context only for their own live runs.
package authz.runs

import data.authz.levels
import data.authz.results

# METADATA
# title: Run actions
actions := {"run.context.read"}

# METADATA
# title: Run decision
# description: |
#   A run is visible to an active actor that is its agent or can read its channel,
#   while the run is queued, running or waiting for input; invisible: 404. Visible
#   to a non-agent: 403 subject_kind_not_allowed; to another agent: 403 not_self.
# scope: document
default decision := {"allow": false, "reason": "not_found", "status": 404}

decision := results.allowed if {
	own_live_run
} else := results.subject_kind_not_allowed if {
	_visible
	not _actor_is_agent
} else := results.not_self if _visible

# METADATA
# title: Own live run
# description: |
#   The actor is an active agent and the resource is its own run, queued, running
#   or waiting for input. The one rule for an agent's rights on its own run: the
#   run decision allows on it and authz.runprivacy allows only on it.
own_live_run if {
	_visible
	_actor_is_agent
	input.actor == input.resource.agent_id
}

# METADATA
# title: Live run states
# description: The states in which a run is visible to its agent (and to readers).
live_states := {"queued", "running", "waiting_input"}

_visible if {
	input.resource.kind == "run"
	input.resource.state in live_states
	levels.is_active(input.facts, input.actor)
	_sees_run
}

_sees_run if input.actor == input.resource.agent_id

_sees_run if levels.level(input.facts, input.actor, input.resource.channel_id) >= levels.read

_actor_is_agent if input.facts.principals[input.actor].kind == "agent"
