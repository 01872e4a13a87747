# METADATA
# title: Session context resolution
# description: |
#   The per-turn resolution of resolveSessionContext in one query: may the caller
#   resolve at all (data.authz.decision, action session_context.resolve), the
#   caller's real permissions (from the fact bundle, never from the client), the
#   client's listed surfaces the caller can reach, and a decision per intent. The
#   required permission of every surface and tool comes from the server-owned
#   registry data.sessioncontext.registry (policies/sessioncontext/registry/data.json),
#   never from the client.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
#   - description: how to add a surface or a tool
#     ref: docs/policy-guide.md
package sessioncontext

import data.authz

# METADATA
# title: Intent reasons
# description: The closed list of reasons an intent is denied for.
reasons := {"not_reachable", "unknown_tool", "plane_mismatch", "missing_permission"}

# METADATA
# title: Session context resolution
# description: |
#   Entry point of POST /v1/data/sessioncontext/resolve. Always holds "decision"
#   (the decision object of data.authz.decision); only when it allows, also
#   "permissions" (ascending), "reachable" (in the order of input.surfaces) and
#   "intents" (one {"decision": "accepted"} or {"decision": "denied", "reason"}
#   per input.intents, in order).
# entrypoint: true
resolve := {
	"decision": authz.decision,
	"permissions": sort(_granted),
	"reachable": [_reachable_view(_registry.surfaces, key) | some key in input.surfaces; key in _reachable_keys],
	"intents": [_decide(_registry.tools, _granted, _reachable_keys, intent) | some intent in input.intents],
} if {
	authz.decision.allow == true
} else := {"decision": authz.decision}

_registry := data.sessioncontext.registry

# The caller's real grants: the session's principal in the fact bundle. The client's
# permissions provider is never part of the input.
_granted contains permission if some permission in input.facts.principals[input.actor].permissions

# A surface is reachable when the client lists it, the registry knows its key, and the
# caller holds the registry's permission for it (or the entry names none: public).
_reachable_keys contains key if {
	some key in input.surfaces
	_within_reach(_registry.surfaces[key], _granted)
}

_reachable_view(surfaces, key) := {"surface_key": key, "required_permission": permission} if {
	permission := surfaces[key].required_permission
} else := {"surface_key": key}

# An entry (surface or tool) the caller may use: it names no permission, or one the
# caller holds. A malformed entry (not an object) is never within reach.
_within_reach(entry, _) if {
	is_object(entry)
	not _names_permission(entry)
}

_within_reach(entry, granted) if entry.required_permission in granted

_names_permission(entry) if "required_permission" in object.keys(entry)

# First matching row wins. Every name the registry does not know is denied, so a
# forged tool grants nothing (fail closed). Each condition is a helper: a reference
# to a missing field inside "not" would otherwise be evaluated outside the negation
# and make the row silently not match.
_decide(tools, granted, reachable, intent) := _denied("unknown_tool") if {
	not _known(tools, intent)
} else := _denied("plane_mismatch") if {
	not _on_plane(tools, intent)
} else := _denied("missing_permission") if {
	not _tool_within_reach(tools, granted, intent)
} else := _denied("not_reachable") if {
	# navigate_to, the one generic navigation tool, only to a reachable surface.
	intent.name == "navigate_to"
	not _targets(reachable, intent)
} else := {"decision": "accepted"}

_known(tools, intent) if intent.name in object.keys(tools)

_on_plane(tools, intent) if tools[intent.name].plane == intent.plane

_tool_within_reach(tools, granted, intent) if _within_reach(tools[intent.name], granted)

_targets(reachable, intent) if intent.target in reachable

_denied(reason) := {"decision": "denied", "reason": reason}
