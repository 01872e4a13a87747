# METADATA
# title: Run context
# description: |
#   The batch of a run context read (filter the candidate messages, answer the
#   trigger holders, classify every author) and the trigger holders query.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package runcontext

import data.authz.levels
import data.authz.reading

# METADATA
# title: Run context batch
# description: |
#   Entry point of POST /v1/data/runcontext/evaluate: the readable message ids,
#   the trigger holders among the authors, and the role and trust of every
#   distinct (author, origin) pair, in the order of input.authors.
# entrypoint: true
evaluate := {
	"readable": [{"thread_id": thread.id, "seqs": _readable[thread.id]} | some thread in input.threads],
	"trigger_holders": _run_holders,
	"classes": [_classified(author) | some author in input.authors],
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

_run_holders := holders(input.facts, input.run.channel_id, {author.id | some author in input.authors})

# Every element of a run context lies in the run's channel (the thread's current
# channel): after a thread move, content of the source channel stays out even for an
# agent that could read the source (decisions.md S0-6). Candidates come grouped by
# thread, since every message of a thread lies in the thread's channel.
_readable[thread.id] := _thread_seqs(thread, input.run, _reads_run_channel, _is_run_agent) if {
	some thread in input.threads
}

_thread_seqs(thread, run, reads_channel, run_agent) := [] if {
	thread.channel_id != run.channel_id
} else := thread.seqs if {
	# The shared reading rule, as for message.read.
	reads_channel == true
} else := thread.seqs if {
	# The run grants its own, active agent its thread and the main-thread messages up
	# to the thread's parent, nothing more of the channel (decisions.md S0-11).
	run_agent == true
	reading.run_reaches_thread(run, thread.id)
} else := thread.seqs if {
	run_agent == true
	max(thread.seqs) <= reading.run_reach_limit(run, thread.id)
} else := [seq |
	run_agent == true
	last := reading.run_reach_limit(run, thread.id)
	some seq in thread.seqs
	seq <= last
]

default _reads_run_channel := false

_reads_run_channel if reading.can_read(input.facts, input.actor, {"channel_id": input.run.channel_id})

default _is_run_agent := false

_is_run_agent if {
	input.actor == input.run.agent_id
	levels.is_active(input.facts, input.actor)
}

_classified(author) := object.union(
	{"author_id": author.id, "origin": author.origin},
	_class(author, input.run, _run_holders),
)

# First matching row wins: origin before author. An unknown origin is other/unverified.
_class(author, run, run_holders) := {"role": "other", "trust": "system"} if {
	author.origin == "system"
} else := {"role": "other", "trust": "unverified"} if {
	author.origin in {"import", "app"}
} else := {"role": "assistant", "trust": "self"} if {
	author.origin == "agent"
	author.id == run.agent_id
} else := {"role": "other", "trust": "unverified"} if {
	author.origin == "agent"
} else := {"role": "user", "trust": "trigger"} if {
	author.origin == "human"
	author.id == run.triggered_by

	# Trust is computed from current rights: a triggering person who lost trigger
	# (disabled, grant revoked, channel archived) no longer instructs the agent.
	author.id in run_holders
} else := {"role": "user", "trust": "authorized"} if {
	author.origin == "human"
	author.id in run_holders
} else := {"role": "user", "trust": "unverified"} if {
	author.origin == "human"
} else := {"role": "other", "trust": "unverified"}
