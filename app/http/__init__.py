"""HTTP plumbing: JSON encoding, Problem answers, correlation ids, validation, rate limits."""
