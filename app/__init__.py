"""Policy-engine-centric authorization and context service for AI agents in team chat.

Layers: ``handlers`` (thin Connexion endpoints) call ``usecases``, which gather facts
through ``repositories``, ask OPA through :mod:`app.opa_client` and shape responses with
pure ``domain`` code. No permission logic lives in Python; see ``policies/``.
"""
