#!/usr/bin/env python3
"""Generate an RSA key pair for signing OPA policy bundles (``make bundle``).

Writes the private key (PKCS#8 PEM, unencrypted, mode 0600) and its public key
(SubjectPublicKeyInfo PEM), the pair ``opa build --signing-key`` and the sidecar's
``keys.<id>.key`` expect (RS256)::

    python scripts/bundle_keys.py --private signing.pem --public verification.pem

Used for development and test keys, generated at run time and never committed
(``make bundle`` without ``BUNDLE_SIGNING_KEY``, ``POLICY_BUNDLE=path make run``, the
tests). A release key is made the same way, or by your key management, on a machine
you trust; its private half never enters the repository, an image or a cluster.
Refuses to overwrite an existing file unless ``--force``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def generate(private: Path, public: Path, *, bits: int = 3072, force: bool = False) -> None:
    """Write a new key pair to ``private`` and ``public``.

    Raises:
        FileExistsError: a file exists and ``force`` is not set.
    """
    for path in (private, public):
        if path.exists() and not force:
            raise FileExistsError(f"{path} exists (use --force to replace it)")
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    private.parent.mkdir(parents=True, exist_ok=True)
    public.parent.mkdir(parents=True, exist_ok=True)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    # Created 0600 before any byte is written; replaced atomically.
    staging = private.with_name(private.name + ".tmp")
    descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(private_pem)
    os.replace(staging, private)
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def main(argv: list[str] | None = None) -> int:
    """Generate the pair named on the command line; 1 when a file exists."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--private", type=Path, required=True, help="private key PEM to write")
    parser.add_argument("--public", type=Path, required=True, help="public key PEM to write")
    parser.add_argument("--bits", type=int, default=3072, help="RSA modulus size (default 3072)")
    parser.add_argument("--force", action="store_true", help="replace existing files")
    args = parser.parse_args(argv)
    try:
        generate(args.private, args.public, bits=args.bits, force=args.force)
    except FileExistsError as exc:
        print(f"bundle_keys: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
