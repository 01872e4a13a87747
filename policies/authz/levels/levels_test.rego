package authz.levels_test

import data.authz.levels

_base_facts := {
	"now": "2026-11-29T12:00:00Z",
	"principals": {
		"alex": {"kind": "user", "status": "active", "is_owner": false, "groups": ["staff"], "permissions": []},
		"sam": {"kind": "user", "status": "active", "is_owner": false, "groups": [], "permissions": []},
		"robin": {"kind": "user", "status": "active", "is_owner": true, "groups": [], "permissions": []},
	},
	"channels": {
		"general": {"kind": "regular", "archived": false, "space_id": "team", "members": []},
		"random": {"kind": "regular", "archived": false, "space_id": "team", "members": []},
		"alex-sam": {"kind": "dm", "archived": false, "space_id": "team", "members": ["alex", "sam"]},
	},
	"spaces": {"team": {"archived": false}},
	"grants": [],
}

_facts(overrides) := object.union(_base_facts, overrides)

_grants(grants) := _facts({"grants": grants})

_grant(subject_kind, subject_id, target_kind, target_id, lvl) := {
	"subject": {"kind": subject_kind, "id": subject_id},
	"target": {"kind": target_kind, "id": target_id},
	"level": lvl,
}

_expiring(grant, expires_at) := object.union(grant, {"expires_at": expires_at})

_alex_manage_general := _grant("principal", "alex", "channel", "general", "manage")

test_level_constants if {
	[levels.none, levels.read, levels.write, levels.trigger, levels.manage] == [0, 1, 2, 3, 4]
	levels.grant_levels == {"read": 1, "write": 2, "trigger": 3, "manage": 4}
}

test_no_grant_is_none if levels.level(_base_facts, "alex", "general") == 0

test_grant_on_channel if {
	facts := _grants([_grant("principal", "alex", "channel", "general", "read")])
	levels.level(facts, "alex", "general") == 1
}

test_grant_on_other_channel_does_not_count if {
	facts := _grants([_grant("principal", "alex", "channel", "random", "manage")])
	levels.level(facts, "alex", "general") == 0
}

# A grant's kind says what its id names: an id that happens to equal the channel's,
# the space's, the principal's or one of its groups' counts only under its own kind.
test_space_grant_named_like_the_channel_does_not_count if {
	facts := _grants([_grant("principal", "alex", "space", "general", "manage")])
	levels.level(facts, "alex", "general") == 0
}

test_channel_grant_named_like_the_space_does_not_count if {
	facts := _grants([_grant("principal", "alex", "channel", "team", "manage")])
	levels.level(facts, "alex", "general") == 0
}

test_group_grant_named_like_the_principal_does_not_count if {
	facts := _grants([_grant("group", "alex", "channel", "general", "manage")])
	levels.level(facts, "alex", "general") == 0
}

test_principal_grant_named_like_a_group_does_not_count if {
	facts := _grants([_grant("principal", "staff", "channel", "general", "manage")])
	levels.level(facts, "alex", "general") == 0
}

test_grant_on_space if {
	facts := _grants([_grant("principal", "alex", "space", "team", "trigger")])
	levels.level(facts, "alex", "general") == 3
}

test_grant_on_other_space_does_not_count if {
	facts := _grants([_grant("principal", "alex", "space", "elsewhere", "trigger")])
	levels.level(facts, "alex", "general") == 0
}

test_grant_of_other_principal_does_not_count if {
	facts := _grants([_grant("principal", "sam", "channel", "general", "manage")])
	levels.level(facts, "alex", "general") == 0
}

test_group_grant if {
	facts := _grants([_grant("group", "staff", "channel", "general", "write")])
	levels.level(facts, "alex", "general") == 2
	levels.level(facts, "sam", "general") == 0
}

test_expired_grant_does_not_count if {
	facts := _grants([_expiring(_alex_manage_general, "2026-11-28T00:00:00Z")])
	levels.level(facts, "alex", "general") == 0
}

test_grant_expiring_now_does_not_count if {
	facts := _grants([_expiring(_alex_manage_general, "2026-11-29T12:00:00Z")])
	levels.level(facts, "alex", "general") == 0
}

test_grant_expiring_in_the_future_counts if {
	facts := _grants([_expiring(_alex_manage_general, "2026-12-01T00:00:00Z")])
	levels.level(facts, "alex", "general") == 4
}

test_grant_expiring_in_another_offset_compares_instants if {
	# 13:00 at +02:00 is 11:00Z, before now (12:00Z)
	facts := _grants([_expiring(_alex_manage_general, "2026-11-29T13:00:00+02:00")])
	levels.level(facts, "alex", "general") == 0
}

test_grant_with_null_expiry_never_expires if {
	facts := _grants([_expiring(_alex_manage_general, null)])
	levels.level(facts, "alex", "general") == 4
}

test_grant_with_unparsable_expiry_does_not_count if {
	facts := _grants([_expiring(_alex_manage_general, "tomorrow")])
	levels.level(facts, "alex", "general") == 0
}

test_grant_with_unknown_level_does_not_count if {
	facts := _grants([_grant("principal", "alex", "channel", "general", "admin")])
	levels.level(facts, "alex", "general") == 0
}

test_write_only if {
	facts := _grants([_grant("principal", "alex", "channel", "general", "write")])
	levels.level(facts, "alex", "general") == 2
}

test_member_gives_write if {
	facts := _facts({"channels": {"general": {"members": ["sam"]}}})
	levels.level(facts, "sam", "general") == 2
	levels.level(facts, "alex", "general") == 0
}

test_dm_participant_has_write_not_trigger if {
	levels.level(_base_facts, "alex", "alex-sam") == 2
	levels.level(_base_facts, "sam", "alex-sam") == 2
}

test_space_grant_does_not_reach_into_a_dm if {
	facts := _grants([_grant("principal", "robin", "space", "team", "trigger")])
	levels.level(facts, "robin", "alex-sam") == 0
	levels.level(facts, "robin", "general") == 4
}

test_space_grant_does_not_raise_a_dm_participant if {
	facts := _grants([_grant("principal", "alex", "space", "team", "trigger")])
	levels.level(facts, "alex", "alex-sam") == 2
	levels.level(facts, "alex", "general") == 3
}

test_grant_on_the_dm_itself_counts if {
	facts := _grants([_grant("principal", "alex", "channel", "alex-sam", "trigger")])
	levels.level(facts, "alex", "alex-sam") == 3
}

test_owner_gets_manage_on_regular_channel if levels.level(_base_facts, "robin", "general") == 4

test_owner_gets_nothing_on_dm if levels.level(_base_facts, "robin", "alex-sam") == 0

test_owner_participant_on_dm_gets_write if {
	facts := _facts({"channels": {"alex-sam": {"members": ["alex", "sam", "robin"]}}})
	levels.level(facts, "robin", "alex-sam") == 2
}

test_owner_on_archived_channel_capped_at_read if {
	facts := _facts({"channels": {"general": {"archived": true}}})
	levels.level(facts, "robin", "general") == 1
}

test_archived_channel_caps_at_read if {
	facts := _facts({
		"channels": {"general": {"archived": true, "members": ["sam"]}},
		"grants": [_alex_manage_general],
	})
	levels.level(facts, "alex", "general") == 1
	levels.level(facts, "sam", "general") == 1
}

test_archived_space_caps_at_read if {
	facts := _facts({
		"spaces": {"team": {"archived": true}},
		"grants": [_grant("principal", "alex", "space", "team", "trigger")],
	})
	levels.level(facts, "alex", "general") == 1
	levels.level(facts, "alex", "random") == 1
}

test_archive_does_not_raise_none if {
	facts := _facts({"channels": {"general": {"archived": true}}})
	levels.level(facts, "alex", "general") == 0
}

test_pending_principal_has_nothing if {
	facts := _facts({
		"principals": {"robin": {"status": "pending"}},
		"grants": [_grant("principal", "robin", "channel", "general", "manage")],
	})
	levels.level(facts, "robin", "general") == 0
}

test_disabled_principal_has_nothing if {
	facts := _facts({
		"principals": {"robin": {"status": "disabled"}},
		"grants": [_grant("principal", "robin", "channel", "general", "manage")],
	})
	levels.level(facts, "robin", "general") == 0
}

test_deleted_principal_has_nothing if {
	facts := _facts({"principals": {"alex": {"status": "deleted"}}, "channels": {"general": {"members": ["alex"]}}})
	levels.level(facts, "alex", "general") == 0
	levels.level(facts, "alex", "alex-sam") == 0
}

test_unknown_principal_has_nothing if {
	facts := _grants([_grant("principal", "casey", "channel", "general", "manage")])
	levels.level(facts, "casey", "general") == 0
}

test_unknown_channel_is_none if {
	facts := _grants([_grant("principal", "robin", "channel", "lobby", "manage")])
	levels.level(facts, "robin", "lobby") == 0
}

test_max_over_several_sources if {
	facts := _facts({
		"channels": {"general": {"members": ["alex"]}},
		"grants": [
			_grant("principal", "alex", "channel", "general", "read"),
			_grant("group", "staff", "space", "team", "trigger"),
			_expiring(_alex_manage_general, "2026-11-01T00:00:00Z"),
		],
	})
	levels.level(facts, "alex", "general") == 3
}

test_is_active if {
	levels.is_active(_base_facts, "alex")
	not levels.is_active(_facts({"principals": {"alex": {"status": "pending"}}}), "alex")
	not levels.is_active(_base_facts, "casey")
}

test_is_active_owner if {
	levels.is_active_owner(_base_facts, "robin")
	not levels.is_active_owner(_base_facts, "alex")
	not levels.is_active_owner(_facts({"principals": {"robin": {"status": "disabled"}}}), "robin")
}

test_is_archived if {
	not levels.is_archived(_base_facts, "general")
	levels.is_archived(_facts({"channels": {"general": {"archived": true}}}), "general")
	levels.is_archived(_facts({"spaces": {"team": {"archived": true}}}), "general")
	not levels.is_archived(_base_facts, "lobby")
}
