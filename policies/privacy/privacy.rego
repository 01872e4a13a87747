# METADATA
# title: Provider privacy ceilings
# description: |
#   Derives a run's audit-content and background-answer ceilings before a provider
#   attempt (attempt) and before a content write (write), from the facts in input
#   and the scale in data.privacy.scale, and says what the new ceilings keep of
#   run-step payloads and of the background answer. A ceiling is a level of the
#   scale plus whether an explicit provider or task policy set it; the new ceiling
#   of each kind is the strictest of its candidates, so ceilings only tighten.
# related_resources:
#   - description: input and result contract
#     ref: docs/policy-input.md
#   - description: level semantics
#     ref: docs/policy-guide.md
package privacy

import data.authz.results
import data.privacy.scale

# METADATA
# title: Ceiling kinds
# description: The two ceilings every run carries.
kinds := {"audit_content", "background_answer"}

# METADATA
# title: Provider attempt
# description: |
#   Before a chat or tool attempt. An unknown provider (no policy) is refused with
#   403 unknown_provider; a stored level or policy that is not on the scale is
#   unreadable (the app answers 503). Otherwise "go" with the new ceilings: for
#   each kind the strictest of the run's stored ceiling, the provider's ceiling
#   (explicit, or the global default when the provider inherits it) and the
#   task's explicit ceiling.
# entrypoint: true
# scope: document
default attempt := {"outcome": "unreadable"}

attempt := {"outcome": "refused", "decision": results.unknown_provider} if {
	not _provider_known
} else := object.union({"outcome": "go"}, _outcome(_attempt_candidates)) if {
	_readable
}

# METADATA
# title: Content write
# description: |
#   Before a run-step or answer write. Unreadable as for attempt; otherwise "go"
#   with the new ceilings: for each kind the strictest of the run's stored ceiling
#   (the global default when the run has none yet) and the task's explicit
#   ceiling. No provider is involved and none is invented.
# entrypoint: true
# scope: document
default write := {"outcome": "unreadable"}

write := object.union({"outcome": "go"}, _outcome(_write_candidates)) if _readable

_provider_known if is_object(input.provider.policy)

# Every level the input mentions is on the scale, stored run ceilings are
# well formed, and no policy names a kind that does not exist.
_readable if {
	every kind, ceiling in object.get(input, ["run", "ceilings"], {}) {
		kind in kinds
		scale.known(ceiling.level)
		is_boolean(ceiling.explicit)
	}
	_policy_readable(object.get(input, ["provider", "policy"], {}))
	_policy_readable(object.get(input, ["task", "policy"], {}))
}

_policy_readable(policy) if {
	every kind, level in policy {
		kind in kinds
		scale.known(level)
	}
}

_default(kind) := {"level": scale.global_default[kind], "explicit": false}

_stored contains [kind, ceiling] if some kind, ceiling in input.run.ceilings

_task contains [kind, {"level": level, "explicit": true}] if some kind, level in input.task.policy

_provider(kind) := {"level": level, "explicit": true} if {
	level := input.provider.policy[kind]
} else := _default(kind)

# Candidates of both attempt and write: the run's stored ceilings and the task's.
_candidates := _stored | _task

_attempt_candidates := _candidates | {[kind, _provider(kind)] | some kind in kinds}

_write_candidates := _candidates | {[kind, _default(kind)] |
	some kind in kinds
	not input.run.ceilings[kind]
}

_outcome(candidates) := {
	"ceilings": ceilings,
	"changed": ceilings != object.get(input, ["run", "ceilings"], {}),
	"retention": {
		"step_parts": scale.retention[ceilings.audit_content.level].step_parts,
		"answer": _answer_kept(ceilings.background_answer),
	},
} if {
	ceilings := {kind: _strictest({c | some [k, c] in candidates; k == kind}) | some kind in kinds}
}

# The candidate no other candidate is stricter than. The order is total (level,
# then explicit before inherited), so there is exactly one.
_strictest(candidates) := ceiling if {
	some ceiling in candidates
	every other in candidates {
		not _stricter(other, ceiling)
	}
}

_stricter(a, b) if scale.rank(a.level) < scale.rank(b.level)

_stricter(a, b) if {
	scale.rank(a.level) == scale.rank(b.level)
	a.explicit
	not b.explicit
}

_answer_kept(ceiling) if {
	scale.retention[ceiling.level].answer == "always"
} else if {
	scale.retention[ceiling.level].answer == "unless_explicit"
	not ceiling.explicit
} else := false
