"""Integration tests of getRunContext (decisions.md S0) and the authz queries beside it."""
