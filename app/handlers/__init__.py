"""Thin Connexion handlers: validated parameters in, one use case call, JSON out.

Connexion resolves ``operationId`` (camelCase) to the snake_case function of the
module named by ``x-openapi-router-controller`` (see :mod:`app.main`).
"""
