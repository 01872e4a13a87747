# METADATA
# title: Effective access levels
# description: |
#   The effective level of a principal on a channel, computed from the common fact
#   bundle (docs/policy-input.md, "Effective level"): 0 none, 1 read, 2 write,
#   3 trigger, 4 manage.
# related_resources:
#   - description: input contract
#     ref: docs/policy-input.md
package authz.levels

# METADATA
# title: No access
none := 0

# METADATA
# title: Read level
read := 1

# METADATA
# title: Write level
write := 2

# METADATA
# title: Trigger level
trigger := 3

# METADATA
# title: Manage level
manage := 4

# METADATA
# title: Grant levels
# description: The number of each grant level name.
grant_levels := {"read": read, "write": write, "trigger": trigger, "manage": manage}

# METADATA
# title: Effective level
# description: |
#   0 for an unknown principal or channel or a principal that is not active;
#   otherwise the maximum of its unexpired grants (own or through a group, on the
#   channel or its space), write for members, manage for owners on non-DM channels,
#   capped at read when the channel or its space is archived.
level(facts, principal_id, channel_id) := _capped(facts, channel, lvl) if {
	is_active(facts, principal_id)
	channel := facts.channels[channel_id]
	principal := facts.principals[principal_id]
	lvl := max([
		_grant_level(facts, principal, principal_id, channel, channel_id),
		_member_level(channel, principal_id),
		_owner_level(principal, channel),
	])
} else := none

# METADATA
# title: Active principal
# description: The principal is known and its status is active.
is_active(facts, principal_id) if facts.principals[principal_id].status == "active"

# METADATA
# title: Active instance owner
# description: The principal is known, active and an instance owner.
is_active_owner(facts, principal_id) if {
	is_active(facts, principal_id)
	facts.principals[principal_id].is_owner == true
}

# METADATA
# title: Archived channel
# description: The channel or its space is archived.
# scope: document
is_archived(facts, channel_id) if facts.channels[channel_id].archived == true

is_archived(facts, channel_id) if facts.spaces[facts.channels[channel_id].space_id].archived == true

# Else chains and one array comprehension rather than a union of set comprehensions:
# the level is computed for every author of a run context, so it is kept cheap.
_capped(facts, channel, lvl) := min([lvl, read]) if {
	_archived(facts, channel)
} else := lvl

_archived(_, channel) if channel.archived == true

_archived(facts, channel) if facts.spaces[channel.space_id].archived == true

_grant_level(facts, principal, principal_id, channel, channel_id) := lvl if {
	lvl := max([grant_levels[grant.level] |
		some grant in facts.grants
		_subject_matches(principal, principal_id, grant.subject)
		_target_matches(channel, channel_id, grant.target)
		_unexpired(grant, facts.now)
	])
} else := none

_member_level(channel, principal_id) := write if {
	principal_id in channel.members
} else := none

_owner_level(principal, channel) := manage if {
	principal.is_owner == true
	channel.kind != "dm"
} else := none

_subject_matches(_, principal_id, subject) if {
	subject.kind == "principal"
	subject.id == principal_id
}

_subject_matches(principal, _, subject) if {
	subject.kind == "group"
	subject.id in principal.groups
}

_target_matches(_, channel_id, target) if {
	target.kind == "channel"
	target.id == channel_id
}

# Space grants do not reach into DMs: a DM is private to its participants (and to
# grants on the DM itself).
_target_matches(channel, _, target) if {
	target.kind == "space"
	target.id == channel.space_id
	channel.kind != "dm"
}

# An absent (or null) expires_at never expires; an unparsable one does not count.
_unexpired(grant, _) if object.get(grant, "expires_at", null) == null

_unexpired(grant, now) if time.parse_rfc3339_ns(grant.expires_at) > time.parse_rfc3339_ns(now)
