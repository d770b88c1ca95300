#!/usr/bin/env python3
"""Verify swcred's passkey responses as two relying-party libraries nobody here wrote would.

Run with the pinned virtual environment Scripts/bootstrap makes (.build-venv/webauthn):
py_webauthn (`webauthn`) and python-fido2 (`fido2`), versions in Tests/Passkeys/requirements.txt.

Reads one JSON object on standard input: {"checks": [CHECK, ...]}, each CHECK one of

  {"ceremony": "registration", "response": RegistrationResponseJSON,
   "challenge": B64URL, "origin": STR, "rp_id": STR, "require_user_verification": BOOL}
  {"ceremony": "authentication", "response": AuthenticationResponseJSON,
   "challenge": B64URL, "origin": STR, "rp_id": STR, "require_user_verification": BOOL,
   "credential_public_key": B64URL (the COSE key a registration check returned),
   "credential_id": B64URL}

and prints {"versions": {...}, "verdicts": [VERDICT, ...]}, one per check, in order:

  {"py_webauthn": {"verified": BOOL, "error": STR?, ...what it read},
   "fido2": {"verified": BOOL, "error": STR?, ...what it read}}

Each library verifies on its own; a check passes only when both say verified. Exit status 0
whenever the input was readable (verdicts say the rest), 2 otherwise.
"""

import base64
import hashlib
import json
import sys
import traceback


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(bytes(data)).rstrip(b"=").decode()


def enum_text(value):
    """An enum member's value, or the text itself (py_webauthn uses both, by version)."""
    return str(getattr(value, "value", value))


def flags_of(auth_data_bytes):
    flags = auth_data_bytes[32]
    return {
        "up": bool(flags & 0x01),
        "uv": bool(flags & 0x04),
        "be": bool(flags & 0x08),
        "bs": bool(flags & 0x10),
        "at": bool(flags & 0x40),
        "ed": bool(flags & 0x80),
        "raw": flags,
    }


# MARK: py_webauthn


def py_webauthn_registration(check):
    from webauthn import verify_registration_response

    verified = verify_registration_response(
        credential=check["response"],
        expected_challenge=b64url_decode(check["challenge"]),
        expected_rp_id=check["rp_id"],
        expected_origin=check["origin"],
        require_user_verification=check.get("require_user_verification", False),
    )
    return {
        "verified": True,
        "credential_id": b64url(verified.credential_id),
        "credential_public_key": b64url(verified.credential_public_key),
        "sign_count": verified.sign_count,
        "aaguid": verified.aaguid,
        "fmt": enum_text(verified.fmt),
        "user_verified": verified.user_verified,
        "device_type": enum_text(verified.credential_device_type),
        "backed_up": verified.credential_backed_up,
    }


def py_webauthn_authentication(check):
    from webauthn import verify_authentication_response

    verified = verify_authentication_response(
        credential=check["response"],
        expected_challenge=b64url_decode(check["challenge"]),
        expected_rp_id=check["rp_id"],
        expected_origin=check["origin"],
        credential_public_key=b64url_decode(check["credential_public_key"]),
        credential_current_sign_count=0,
        require_user_verification=check.get("require_user_verification", False),
    )
    return {
        "verified": True,
        "credential_id": b64url(verified.credential_id),
        "new_sign_count": verified.new_sign_count,
        "user_verified": verified.user_verified,
        "device_type": enum_text(verified.credential_device_type),
        "backed_up": verified.credential_backed_up,
    }


# MARK: python-fido2


def fido2_server(check):
    from fido2.server import Fido2Server
    from fido2.webauthn import PublicKeyCredentialRpEntity

    expected_origin = check["origin"]
    # An exact origin, as for py_webauthn: fido2's default accepts any https origin under the RP
    # ID and nothing else, so the Android form needs the callback anyway.
    return Fido2Server(
        PublicKeyCredentialRpEntity(id=check["rp_id"], name="swcred test RP"),
        verify_origin=lambda origin: origin == expected_origin,
    )


def fido2_state(check):
    from fido2.webauthn import UserVerificationRequirement

    return {
        "challenge": check["challenge"],
        "user_verification": (
            UserVerificationRequirement.REQUIRED if check.get("require_user_verification") else None
        ),
    }


def fido2_registration(check):
    from fido2 import cbor
    from fido2.cose import CoseKey

    auth_data = fido2_server(check).register_complete(fido2_state(check), check["response"])
    credential = auth_data.credential_data
    public_key = credential.public_key
    attestation_object = b64url_decode(check["response"]["response"]["attestationObject"])
    cose_key_bytes = bytes(credential)[18 + len(credential.credential_id) :]
    return {
        # fido2's encoder writes CTAP2 canonical CBOR: the same bytes back means ours is too.
        "attestation_object_canonical": cbor.encode(cbor.decode(attestation_object)) == attestation_object,
        "cose_key_canonical": cbor.encode(cbor.decode(cose_key_bytes)) == cose_key_bytes,
        "fmt": cbor.decode(attestation_object)["fmt"],
        "att_stmt": cbor.decode(attestation_object)["attStmt"],
        "verified": True,
        "credential_id": b64url(credential.credential_id),
        "aaguid": str(credential.aaguid),
        "counter": auth_data.counter,
        "rp_id_hash": b64url(auth_data.rp_id_hash),
        "expected_rp_id_hash": b64url(hashlib.sha256(check["rp_id"].encode()).digest()),
        "flags": flags_of(bytes(auth_data)),
        "cose_alg": public_key.ALGORITHM if isinstance(public_key, CoseKey) else None,
        "cose_key": {str(k): (b64url(v) if isinstance(v, bytes) else v) for k, v in dict(public_key).items()},
    }


def fido2_authentication(check):
    from fido2.cose import CoseKey
    from fido2.utils import websafe_decode
    from fido2.webauthn import AttestedCredentialData, AuthenticationResponse

    from fido2 import cbor

    public_key = CoseKey.parse(cbor.decode(b64url_decode(check["credential_public_key"])))
    credential = AttestedCredentialData.create(
        b"\0" * 16, websafe_decode(check["credential_id"]), public_key
    )
    fido2_server(check).authenticate_complete(fido2_state(check), [credential], check["response"])
    response = AuthenticationResponse.from_dict(check["response"])
    auth_data = response.response.authenticator_data
    return {
        "verified": True,
        "counter": auth_data.counter,
        "rp_id_hash": b64url(auth_data.rp_id_hash),
        "flags": flags_of(bytes(auth_data)),
        "user_handle": b64url(response.response.user_handle or b""),
        "client_data_origin": response.response.client_data.origin,
    }


def run(function, check):
    try:
        return function(check)
    except Exception as error:  # a verdict, not a crash: the test reads the reason
        return {
            "verified": False,
            "error": f"{type(error).__name__}: {error}",
            "trace": traceback.format_exc(limit=3),
        }


def verdict(check):
    if check.get("ceremony") == "registration":
        return {
            "py_webauthn": run(py_webauthn_registration, check),
            "fido2": run(fido2_registration, check),
        }
    if check.get("ceremony") == "authentication":
        return {
            "py_webauthn": run(py_webauthn_authentication, check),
            "fido2": run(fido2_authentication, check),
        }
    raise ValueError(f"unknown ceremony {check.get('ceremony')!r}")


def main():
    try:
        request = json.load(sys.stdin)
        checks = request["checks"]
        verdicts = [verdict(check) for check in checks]
    except Exception as error:
        print(f"verify_webauthn.py: unreadable input: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    from importlib.metadata import version

    json.dump(
        {"versions": {"webauthn": version("webauthn"), "fido2": version("fido2")}, "verdicts": verdicts},
        sys.stdout,
    )
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
