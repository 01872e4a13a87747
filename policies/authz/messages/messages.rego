# METADATA
# title: Message decisions
# description: Listing, reading and posting messages in a channel.
package authz.messages

import data.authz.levels
import data.authz.reading
import data.authz.results

# METADATA
# title: Message actions
actions := {"message.list", "message.read", "message.post"}

# METADATA
# title: Message decision
# description: |
#   message.read follows the shared reading rule (authz.reading.can_read);
#   listing and posting need the level of the action. Posting with read only is
#   403 archived (channel or space archived) or 403 no_grant; otherwise 404.
# scope: document
default decision := {"allow": false, "reason": "not_found", "status": 404}

decision := results.allowed if {
	input.action == "message.read"
	input.resource.kind == "channel"
	reading.can_read(input.facts, input.actor, {"channel_id": input.resource.id})
} else := results.allowed if {
	_level >= _required_level[input.action]
} else := results.archived if {
	input.action == "message.post"
	_level == levels.read
	levels.is_archived(input.facts, input.resource.id)
} else := results.no_grant if {
	input.action == "message.post"
	_level == levels.read
}

_required_level := {
	"message.list": levels.read,
	"message.post": levels.write,
}

_level := levels.level(input.facts, input.actor, input.resource.id) if input.resource.kind == "channel"
