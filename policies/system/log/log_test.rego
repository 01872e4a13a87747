package system.log_test

import data.system.log

test_mask_removes_client_bags_and_message_id_lists if log.mask == {
	"/input/context", "/input/intents", "/input/payload",
	"/input/messages", "/result/readable", "/result/classes",
}

test_mask_keeps_facts if not "/input/facts" in log.mask
