#!/usr/bin/env python3
"""Write passkeys into a CXF 1.0 file as another credential manager would, with keys nobody here made.

Run with the pinned virtual environment Scripts/bootstrap makes (.build-venv/webauthn): the keys
are made and serialised to PKCS#8 by pyca/cryptography (OpenSSL), and their public keys encoded as
COSE keys by python-fido2, so that what swcred imports and signs with is checked against an
encoder and a verifier it did not write.

Reads one JSON object on standard input:

  {"rp_id": STR, "user_name": STR, "passkeys": [KIND, ...]}

where KIND is "ES256", "Ed25519", "RSA" (2048 bits) or "P-384", and prints

  {"cxf": CXF-DOCUMENT, "passkeys": [{"kind": KIND, "credential_id": B64URL,
   "user_handle": B64URL, "cose_public_key": B64URL or null}, ...]}

one entry per passkey, in order. Exit status 0, or 2 for unreadable input.
"""

import base64
import json
import os
import sys
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from fido2 import cbor
from fido2.cose import ES256, EdDSA


def b64url(data):
    return base64.urlsafe_b64encode(bytes(data)).rstrip(b"=").decode()


def make_key(kind):
    """The private key of a kind, and its COSE public key when WebAuthn has one swcred signs with."""
    if kind == "ES256":
        key = ec.generate_private_key(ec.SECP256R1())
        return key, ES256.from_cryptography_key(key.public_key())
    if kind == "Ed25519":
        key = ed25519.Ed25519PrivateKey.generate()
        return key, EdDSA.from_cryptography_key(key.public_key())
    if kind == "RSA":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048), None
    if kind == "P-384":
        return ec.generate_private_key(ec.SECP384R1()), None
    raise ValueError(f"unknown kind {kind!r}")


def main():
    try:
        request = json.load(sys.stdin)
        rp_id = request["rp_id"]
        kinds = request["passkeys"]
        user_name = request.get("user_name", "carol@example.com")
    except (ValueError, KeyError, TypeError) as error:
        print(f"cxf_passkeys.py: unreadable input: {error}", file=sys.stderr)
        return 2
    now = int(time.time())
    items, passkeys = [], []
    for index, kind in enumerate(kinds):
        key, cose = make_key(kind)
        pkcs8 = key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        credential_id = os.urandom(16)
        user_handle = os.urandom(16)
        items.append(
            {
                "id": b64url(os.urandom(16)),
                "creationAt": now - 86400,
                "modifiedAt": now - 3600,
                "title": f"{rp_id} ({kind})",
                "scope": {"urls": [f"https://{rp_id}/"], "androidApps": []},
                "credentials": [
                    {
                        "type": "passkey",
                        "credentialId": b64url(credential_id),
                        "rpId": rp_id,
                        "username": f"{user_name} {index}",
                        "userDisplayName": f"Carol {index}",
                        "userHandle": b64url(user_handle),
                        "key": b64url(pkcs8),
                    }
                ],
            }
        )
        passkeys.append(
            {
                "kind": kind,
                "credential_id": b64url(credential_id),
                "user_handle": b64url(user_handle),
                "cose_public_key": b64url(cbor.encode(dict(cose))) if cose is not None else None,
            }
        )
    document = {
        "version": {"major": 1, "minor": 0},
        "exporterRpId": "cxf-passkeys.test",
        "exporterDisplayName": "Tests/Passkeys/cxf_passkeys.py",
        "timestamp": now,
        "accounts": [
            {
                "id": b64url(os.urandom(16)),
                "username": "",
                "email": "carol@example.com",
                "collections": [],
                "items": items,
            }
        ],
    }
    json.dump({"cxf": document, "passkeys": passkeys}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
