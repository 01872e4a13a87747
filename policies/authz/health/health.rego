# METADATA
# title: Health decisions
# description: Liveness and readiness probes are public.
package authz.health

import data.authz.results

# METADATA
# title: Health actions
actions := {"health.live", "health.ready"}

# METADATA
# title: Health decision
# description: Always allowed.
decision := results.allowed
