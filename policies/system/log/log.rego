# METADATA
# title: Decision-log masking
# description: |
#   Removes the client-supplied bags from decision logs. Facts are ids and states
#   only and stay visible so that a reviewer can replay a decision.
# related_resources:
#   - description: OPA decision log masking
#     ref: https://www.openpolicyagent.org/docs/management-decision-logs#masking-sensitive-data
package system.log

# METADATA
# title: Masked input paths
# description: JSON pointers removed from every decision log event.
# scope: document
mask contains "/input/context"

mask contains "/input/intents"

mask contains "/input/payload"

# The session-context resolution: the surface keys the client listed and the ones
# that are reachable come from the client's surface provider (/input/intents, the
# intents with their tool names, is masked above).
mask contains "/input/surfaces"

mask contains "/result/reachable"
