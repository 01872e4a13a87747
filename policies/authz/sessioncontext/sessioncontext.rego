# METADATA
# title: Session context decision
# description: |
#   Who may resolve a per-turn session context (resolveSessionContext): active
#   people only, with a session token. What the resolution answers (permissions,
#   reachable surfaces, intent decisions) is the batch data.sessioncontext.resolve.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package authz.sessioncontext

import data.authz.levels
import data.authz.results

# METADATA
# title: Session context actions
actions := {"session_context.resolve"}

# METADATA
# title: Session context decision
# description: |
#   session_context.resolve: allowed to an active person (principal kind user);
#   a person who is pending, disabled or deleted gets 403 inactive; agents, apps and
#   unknown actors get 403 subject_kind_not_allowed.
# scope: document
default decision := {"allow": false, "reason": "subject_kind_not_allowed", "status": 403}

decision := results.allowed if {
	_is_person
	levels.is_active(input.facts, input.actor)
} else := results.inactive if _is_person

_is_person if input.facts.principals[input.actor].kind == "user"
