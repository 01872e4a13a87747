# METADATA
# title: Decision objects
# description: |
#   The closed list of reason codes and the decision object built for each:
#   always {"allow": bool, "reason": string, "status": int}.
package authz.results

# METADATA
# title: Reason codes
# description: The closed list of reason codes a decision may carry.
reasons := {
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

# METADATA
# title: Allowed
allowed := {"allow": true, "reason": "allowed", "status": 200}

# METADATA
# title: Not found
# description: The resource is invisible to the actor.
not_found := _deny("not_found", 404)

# METADATA
# title: No grant
# description: The actor sees the resource but lacks the level the action needs.
no_grant := _deny("no_grant", 403)

# METADATA
# title: Archived
# description: The channel or its space is archived.
archived := _deny("archived", 403)

# METADATA
# title: Not owner
# description: The action is for instance owners (or inspecting apps).
not_owner := _deny("not_owner", 403)

# METADATA
# title: Not self
# description: An agent asks about another agent's run.
not_self := _deny("not_self", 403)

# METADATA
# title: Subject kind not allowed
# description: The actor's principal kind may not perform the action.
subject_kind_not_allowed := _deny("subject_kind_not_allowed", 403)

# METADATA
# title: Unknown action
# description: The action is not in data.authz.actions (fail closed).
unknown_action := _deny("unknown_action", 403)

# METADATA
# title: Inactive
# description: The actor's principal is pending, disabled or deleted.
inactive := _deny("inactive", 403)

# METADATA
# title: Unknown provider
# description: A provider attempt names a provider without a privacy policy (fail closed).
unknown_provider := _deny("unknown_provider", 403)

# METADATA
# title: Not enrolled
# description: A runner that has not enrolled asks for anything but enrolment.
not_enrolled := _deny("not_enrolled", 403)

# METADATA
# title: Not the agent's owner
# description: A person who neither owns the agent nor is an instance owner.
not_agent_owner := _deny("not_agent_owner", 403)

# METADATA
# title: Agent inactive
# description: The agent of the request is not active.
agent_inactive := _deny("agent_inactive", 403)

# METADATA
# title: Acting for exceeded
# description: |
#   The agent may do this itself, but the person whose message started the bound
#   run may not do it on the same channel now (the intersection denies).
acting_for_exceeded := _deny("acting_for_exceeded", 403)

# METADATA
# title: Run required
# description: |
#   The agent acts only for someone (acting_for required) and no live run is bound:
#   it may not post or list on its own.
run_required := _deny("run_required", 403)

_deny(reason, status) := {"allow": false, "reason": reason, "status": status}
