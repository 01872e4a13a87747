# METADATA
# title: Run context
# description: |
#   The batch of a run context read (filter the candidate messages, answer the
#   trigger holders, classify every message) and the trigger holders query.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package runcontext

import data.authz.levels

# METADATA
# title: Run context batch
# description: |
#   Entry point of POST /v1/data/runcontext/evaluate: the readable message ids,
#   the trigger holders among the authors, and the class of every message.
# entrypoint: true
evaluate := {
	"readable": sort(_readable),
	"trigger_holders": _run_holders,
	"classes": {message.id: _class(message, input.run, _run_holders) | some message in input.messages},
}

# METADATA
# title: Trigger holders query
# description: |
#   Entry point of POST /v1/data/runcontext/trigger_holders: the candidates that
#   are active users with level >= trigger on the channel, ascending.
# entrypoint: true
trigger_holders := holders(input.facts, input.channel_id, input.candidates)

# METADATA
# title: Trigger holders
# description: |
#   The candidates that are active users with level >= trigger on the channel,
#   ascending and without duplicates.
holders(facts, channel_id, candidates) := sort({principal_id |
	some principal_id in candidates
	facts.principals[principal_id].kind == "user"
	levels.is_active(facts, principal_id)
	levels.level(facts, principal_id, channel_id) >= levels.trigger
})

_run_holders := holders(input.facts, input.run.channel_id, _authors)

_authors contains message.author_id if some message in input.messages

# Every element of a run context lies in the run's channel (the thread's current
# channel): after a thread move, content of the source channel stays out even for an
# agent that could read the source (seed 000 note 6).
_readable contains message.id if {
	some message in input.messages
	message.channel_id == input.run.channel_id
	_reads_run_channel
}

_reads_run_channel if levels.level(input.facts, input.actor, input.run.channel_id) >= levels.read

# The run grants its own agent the messages of its channel: the thread and the
# main-thread messages before the thread's parent (seed 000 note 11).
_reads_run_channel if {
	input.actor == input.run.agent_id
	levels.is_active(input.facts, input.actor)
}

# First matching row wins: origin before author. An unknown origin is other/unverified.
_class(message, run, run_holders) := {"role": "other", "trust": "system"} if {
	message.origin == "system"
} else := {"role": "other", "trust": "unverified"} if {
	message.origin in {"import", "app"}
} else := {"role": "assistant", "trust": "self"} if {
	message.origin == "agent"
	message.author_id == run.agent_id
} else := {"role": "other", "trust": "unverified"} if {
	message.origin == "agent"
} else := {"role": "user", "trust": "trigger"} if {
	message.origin == "human"
	message.author_id == run.triggered_by

	# Trust is computed from current rights: a triggering person who lost trigger
	# (disabled, grant revoked, channel archived) no longer instructs the agent.
	message.author_id in run_holders
} else := {"role": "user", "trust": "authorized"} if {
	message.origin == "human"
	message.author_id in run_holders
} else := {"role": "user", "trust": "unverified"} if {
	message.origin == "human"
} else := {"role": "other", "trust": "unverified"}
