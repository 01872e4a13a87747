# METADATA
# title: Authorization decisions
# description: |
#   Entry point of POST /v1/data/authz/decision: dispatches the action to the
#   package that owns it and returns {"allow": bool, "reason": string, "status": int}.
#   Action sets are disjoint, so exactly one rule applies to a known action; any
#   other action is denied with 403 unknown_action (fail closed).
package authz

import data.authz.admin
import data.authz.health
import data.authz.inspect
import data.authz.messages
import data.authz.runners
import data.authz.runprivacy
import data.authz.runs
import data.authz.sessioncontext
import data.authz.workspaces

# METADATA
# title: Known actions
# description: Every action the policies know (each x-action in openapi/openapi.yaml is one).
actions := union({
	messages.actions,
	runs.actions,
	inspect.actions,
	admin.actions,
	health.actions,
	sessioncontext.actions,
	runners.actions,
	workspaces.actions,
	runprivacy.actions,
})

# METADATA
# title: Decision
# description: The decision for input.action; unknown actions get 403 unknown_action.
# entrypoint: true
# scope: document
default decision := {"allow": false, "reason": "unknown_action", "status": 403}

decision := messages.decision if input.action in messages.actions

decision := runs.decision if input.action in runs.actions

decision := inspect.decision if input.action in inspect.actions

decision := admin.decision if input.action in admin.actions

decision := health.decision if input.action in health.actions

decision := sessioncontext.decision if input.action in sessioncontext.actions

decision := runners.decision if input.action in runners.actions

decision := workspaces.decision if input.action in workspaces.actions

decision := runprivacy.decision if input.action in runprivacy.actions
