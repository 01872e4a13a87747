# METADATA
# title: Run privacy decisions
# description: |
#   Provider attempts, run content writes (steps, answer, envelope rotation) and
#   the privacy read are for the run's own active agent only. Everything else,
#   another agent, a person, an app, an ended run or an unknown one, answers the
#   same 404 as an unknown run.
package authz.runprivacy

import data.authz.results
import data.authz.runs

# METADATA
# title: Run privacy actions
actions := {"provider.attempt", "run.content.write", "run.privacy.read"}

# METADATA
# title: Run privacy decision
# description: |
#   Allowed when the actor is an active agent, is the run's agent and the run is
#   queued, running or waiting for input; otherwise 404 not_found.
# scope: document
default decision := {"allow": false, "reason": "not_found", "status": 404}

decision := results.allowed if runs.own_live_run
