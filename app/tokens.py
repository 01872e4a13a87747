"""Bearer token hashing.

Tokens are stored only hashed: ``api_tokens.token_hash`` holds the lowercase hex
SHA-256 of the token and never the token itself, so a leaked table or backup does not
hand out credentials. Every writer (world loader, token minting) and every reader
(authentication) goes through :func:`hash_token` so both sides agree on the encoding.
"""

from __future__ import annotations

import hashlib

__all__ = ["hash_token"]


def hash_token(token: str) -> str:
    """Return the lowercase hex SHA-256 of ``token`` (UTF-8 encoded), as stored at rest.

    A plain, unsalted digest is enough here because tokens are long random secrets, not
    passwords: there is nothing to brute-force, and an unsalted digest can be looked up
    by an index in one query. The result is 64 characters, matching the CHECK on
    ``api_tokens.token_hash``.
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
