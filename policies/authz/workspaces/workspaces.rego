# METADATA
# title: Workspace decisions
# description: |
#   Who may provision a workspace for an agent on a runner: the agent's owner or
#   an active instance owner, both active people, for an active agent.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package authz.workspaces

import data.authz.levels
import data.authz.results

# METADATA
# title: Workspace actions
actions := {"agent.workspace.provision"}

# METADATA
# title: Workspace decision
# description: |
#   404 when the resource is not a known agent or the actor is not active; 403
#   subject_kind_not_allowed when the actor is not a person; 403 not_agent_owner
#   when the person is neither the agent's owner nor an instance owner; 403
#   agent_inactive when the agent is not active; otherwise allowed.
# scope: document
default decision := {"allow": false, "reason": "not_found", "status": 404}

decision := results.not_found if {
	not _is_agent
} else := results.not_found if {
	not levels.is_active(input.facts, input.actor)
} else := results.subject_kind_not_allowed if {
	input.facts.principals[input.actor].kind != "user"
} else := results.not_agent_owner if {
	not _may_provision
} else := results.agent_inactive if {
	not levels.is_active(input.facts, input.resource.id)
} else := results.allowed

_is_agent if {
	input.resource.kind == "agent"
	input.facts.principals[input.resource.id].kind == "agent"
}

_may_provision if input.resource.owner_id == input.actor

_may_provision if levels.is_active_owner(input.facts, input.actor)
