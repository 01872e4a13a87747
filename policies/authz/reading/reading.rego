# METADATA
# title: Reading messages
# description: |
#   The one rule for reading a message. The message.read decision
#   (package authz.messages) and the run-context filter (package runcontext)
#   both ask it, so the two can never disagree about who reads what.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package authz.reading

import data.authz.levels

# METADATA
# title: Readable message
# description: |
#   A principal reads a message when its effective level on the message's
#   channel is at least read. message is {"channel_id": ...}; further fields
#   are ignored.
can_read(facts, principal_id, message) if {
	levels.level(facts, principal_id, message.channel_id) >= levels.read
}

# METADATA
# title: Run reaches the thread
# description: |
#   A run grants its own agent every message of the run's thread, without a read
#   grant (decisions.md S0-11). run carries thread_id. The channel and the agent
#   are checked by the caller.
run_reaches_thread(run, thread_id) if thread_id == run.thread_id

# METADATA
# title: Run reach into the main thread
# description: |
#   The last position of thread_id a run grants its own agent without a read
#   grant (decisions.md S0-11): in the main thread holding the thread's parent
#   message, every message up to and including the parent (the parent itself is
#   the triggering message of an auto thread). Undefined for any other thread and
#   for a run whose thread has no parent. run carries parent {thread_id, seq}.
run_reach_limit(run, thread_id) := run.parent.seq if thread_id == run.parent.thread_id
