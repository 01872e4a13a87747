# METADATA
# title: Privacy ceiling scale
# description: |
#   Policy data that reviewers edit: the ordered scale of retention ceilings, the
#   global default of each ceiling kind, and what each level keeps of a run-step
#   payload and of a background answer. Every ceiling derivation in data.privacy
#   reads these rules; Python only mirrors the level names to validate answers.
# related_resources:
#   - description: level semantics
#     ref: docs/policy-guide.md
package privacy.scale

# METADATA
# title: Levels
# description: |
#   The retention levels, strictest first: the position in this array is the
#   order of the scale. A stored level that is not listed here is unreadable
#   (fail closed).
levels := ["none", "metadata", "full"]

# METADATA
# title: Global default
# description: |
#   The ceiling of each kind for a provider whose policy does not set that kind
#   (inherited, not explicit), and for a content write on a run that has no
#   ceiling yet (lazy reconciliation).
global_default := {
	"audit_content": "metadata",
	"background_answer": "metadata",
}

# METADATA
# title: Retention per level
# description: |
#   step_parts: the top-level parts of a run-step payload kept at this
#   audit-content level (every other part is removed).
#   answer: whether a background answer is kept at this background-answer level:
#   always, never, or unless_explicit (kept only when the ceiling is the global
#   default; an explicit provider or task ceiling at this level prohibits it).
retention := {
	"none": {"step_parts": {"kind"}, "answer": "never"},
	"metadata": {"step_parts": {"kind", "metadata"}, "answer": "unless_explicit"},
	"full": {"step_parts": {"kind", "metadata", "content"}, "answer": "always"},
}

# METADATA
# title: Rank
# description: The position of a level on the scale (0 is the strictest); undefined for an unknown level.
rank(level) := i if {
	some i, candidate in levels
	candidate == level
}

# METADATA
# title: Known level
# description: The level is on the scale and has a retention row.
known(level) if {
	is_string(level)
	rank(level)
	retention[level]
}
