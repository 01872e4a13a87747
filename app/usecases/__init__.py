"""Use cases: gather facts through repositories, ask OPA, assemble the answer."""
