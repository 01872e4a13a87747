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
	"unknown_provider",
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
# title: Unknown provider
# description: A provider attempt names a provider without a privacy policy (fail closed).
unknown_provider := _deny("unknown_provider", 403)

_deny(reason, status) := {"allow": false, "reason": reason, "status": status}
