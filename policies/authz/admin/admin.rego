# METADATA
# title: Administration decisions
# description: Every admin.* action is for active instance owners.
package authz.admin

import data.authz.levels
import data.authz.results

# METADATA
# title: Administration actions
# description: The known admin.* actions; any other admin.* name is an unknown action.
actions := {
	"admin.grants.create",
	"admin.grants.delete",
	"admin.principals.update",
	"admin.spaces.update",
	"admin.channels.update",
	"admin.threads.move",
	"admin.runs.create",
	"admin.runs.update",
	"admin.followups.create",
	"admin.followups.update",
	"admin.sessions.set",
	"admin.messages.delete",
	"admin.provider_policies.set",
	"admin.task_policies.set",
}

# METADATA
# title: Administration decision
# description: Active instance owners only, else 403 not_owner.
# scope: document
default decision := {"allow": false, "reason": "not_owner", "status": 403}

decision := results.allowed if levels.is_active_owner(input.facts, input.actor)
