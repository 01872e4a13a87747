"""Adapter-side SDK of the agent authorization and context service.

Importable by agent adapters and runners; it never imports the service itself (no
``app``, ``repositories``, SQLAlchemy or Connexion). Modules:

* :mod:`agent_sdk.runs_client`: a small typed HTTP client for the run privacy
  endpoints (provider attempts, steps, answer, privacy read, envelope rotation).
* :mod:`agent_sdk.privacy`: the guarded dispatch helper that records every provider
  attempt before the chat or tool adapter is called.
"""
