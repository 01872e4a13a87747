"""The adapter SDK: what agent adapters, runners and chat front ends import.

Pure Python, no import of the service (``app``, ``repositories``), SQLAlchemy or
Connexion: an adapter installs it without the server. The shared wire contracts live
in :mod:`agent_sdk.contracts`; the server imports them from there, never the reverse.
"""
