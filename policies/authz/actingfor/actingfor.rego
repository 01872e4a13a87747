# METADATA
# title: Acting for the requester of a run
# description: |
#   An agent working on a run reaches no more than the person who asked. A runner
#   binds a run to a session (runner.session.run.bind); while that run is live,
#   every call relayed through the session is decided for both principals: the
#   agent (its own rights, authz.messages) and the run's requester, the author of
#   the run's triggering message, whose current rights on the same channel must
#   reach the level the action needs. The level per action is policy data
#   (data.authz.actingfor.requirements.requester_levels in
#   policies/authz/actingfor/requirements/data.json); an action without an entry
#   cannot be done for anyone. An agent whose principal facts say
#   acting_for: required may do the relayed actions only in mode run.
#
#   input.acting_for (present when the session has a bound run):
#   {"run": {"id", "agent_id", "state"}, "requester": "<principal id>"};
#   requester is absent when the run has no triggering message.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package authz.actingfor

import data.authz.levels
import data.authz.runs

# METADATA
# title: Requester levels
# description: The level name the requester needs per relayed action (policy data).
requester_levels := data.authz.actingfor.requirements.requester_levels

# METADATA
# title: Relayed actions
# description: The actions that are decided for both principals in mode run.
relayed_actions := object.keys(requester_levels)

# METADATA
# title: Mode
# description: |
#   Which mode decides a relayed call: {"mode": "run", "run_id"} while the bound
#   run is queued, running or waiting for input; {"mode": "own"} otherwise, so an
#   ended run unbinds itself at the next call.
mode(acting_for) := {"mode": "run", "run_id": acting_for.run.id} if {
	acting_for.run.state in runs.live_states
} else := {"mode": "own"}

# METADATA
# title: Requester allows
# description: |
#   The requester side of a call in mode run: the bound run is the acting agent's,
#   and the requester's effective level on the channel, computed from the current
#   facts (status, grants and their expiry, groups, membership, archive flags),
#   reaches the level requester_levels names for the action.
requester_allows(facts, acting_for, agent_id, action, channel_id) if {
	acting_for.run.agent_id == agent_id
	required := levels.grant_levels[requester_levels[action]]
	levels.level(facts, acting_for.requester, channel_id) >= required
}

# METADATA
# title: Run required
# description: |
#   The agent acts only for someone (facts.principals[agent].acting_for is
#   "required") and the action is a relayed one.
run_required(facts, agent_id, action) if {
	facts.principals[agent_id].acting_for == "required"
	action in relayed_actions
}
