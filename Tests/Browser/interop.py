"""Independent crypto_box and TOTP for SwcredBrowserTests.

Reads {"ops": [...]} as JSON on standard input and prints {"results": [...]}, one result per
operation, in order:
  {"op": "box", "message", "nonce", "public_key", "secret_key"}  -> {"box"}      (crypto_box_easy)
  {"op": "open", "box", "nonce", "public_key", "secret_key"}     -> {"message"} or {"error"}
  {"op": "increment", "nonce"}                                    -> {"nonce"}
  {"op": "totp", "uri", "time"}                                   -> {"code"}
Every byte string is standard base64. PyNaCl's Box is libsodium's crypto_box (X25519,
XSalsa20-Poly1305); pyotp parses the otpauth URI itself.
"""

import base64
import json
import sys

import nacl.exceptions
import nacl.public
import pyotp


def b64(text):
    return base64.b64decode(text, validate=True)


def run(op):
    kind = op["op"]
    if kind in ("box", "open"):
        box = nacl.public.Box(
            nacl.public.PrivateKey(b64(op["secret_key"])), nacl.public.PublicKey(b64(op["public_key"]))
        )
        if kind == "box":
            sealed = box.encrypt(b64(op["message"]), b64(op["nonce"]))
            return {"box": base64.b64encode(sealed.ciphertext).decode()}
        try:
            return {"message": base64.b64encode(box.decrypt(b64(op["box"]), b64(op["nonce"]))).decode()}
        except nacl.exceptions.CryptoError as error:
            return {"error": str(error)}
    if kind == "increment":
        value = int.from_bytes(b64(op["nonce"]), "little") + 1
        return {"nonce": base64.b64encode((value % (1 << 192)).to_bytes(24, "little")).decode()}
    if kind == "totp":
        return {"code": pyotp.parse_uri(op["uri"]).at(op["time"])}
    raise ValueError(f"unknown op {kind}")


def main():
    request = json.load(sys.stdin)
    json.dump({"results": [run(op) for op in request["ops"]]}, sys.stdout)


if __name__ == "__main__":
    main()
