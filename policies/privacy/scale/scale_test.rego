package privacy.scale_test

import data.privacy.scale

test_levels_strictest_first if scale.levels == ["none", "metadata", "full"]

test_every_level_has_one_retention_row if {
	object.keys(scale.retention) == {level | some level in scale.levels}
	count(scale.levels) == count({level | some level in scale.levels})
}

test_global_default_is_metadata_for_both_kinds if {
	scale.global_default == {"audit_content": "metadata", "background_answer": "metadata"}
}

test_global_default_levels_are_known if {
	every level in scale.global_default {
		scale.known(level)
	}
}

test_rank_orders_the_scale if {
	scale.rank("none") == 0
	scale.rank("metadata") == 1
	scale.rank("full") == 2
}

test_rank_of_an_unknown_level_is_undefined if not scale.rank("secret")

test_known_levels if {
	scale.known("none")
	scale.known("metadata")
	scale.known("full")
}

test_unknown_levels_are_not_known if {
	not scale.known("secret")
	not scale.known("")
	not scale.known("FULL")
	not scale.known(2)
	not scale.known(null)
}

test_none_keeps_only_the_kind if scale.retention.none == {"step_parts": {"kind"}, "answer": "never"}

test_metadata_keeps_kind_and_metadata if {
	scale.retention.metadata == {"step_parts": {"kind", "metadata"}, "answer": "unless_explicit"}
}

test_full_keeps_everything if {
	scale.retention.full == {"step_parts": {"kind", "metadata", "content"}, "answer": "always"}
}

test_stricter_levels_keep_subsets if {
	every i, level in scale.levels {
		every j, other in scale.levels {
			_subset_if_stricter(i, j, scale.retention[level].step_parts, scale.retention[other].step_parts)
		}
	}
}

_subset_if_stricter(i, j, _, _) if i >= j

_subset_if_stricter(i, j, stricter, looser) if {
	i < j
	stricter - looser == set()
}
