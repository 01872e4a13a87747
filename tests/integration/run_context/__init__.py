"""Integration tests of getRunContext (seed 000) and the authz queries beside it."""
