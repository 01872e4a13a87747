package system.log_test

import data.system.log

test_mask_removes_the_client_bags if log.mask == {
	"/input/context",
	"/input/intents",
	"/input/payload",
	"/input/surfaces",
	"/result/reachable",
}

test_mask_keeps_facts if not "/input/facts" in log.mask
