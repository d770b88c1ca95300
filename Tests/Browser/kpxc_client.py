"""A KeePassXC-Browser client nobody here wrote, against a browser socket.

Drives keepassxc-browser-api (PyPI, pinned in requirements.txt; its BrowserClient speaks the
protocol to KeePassXC's socket directly, with PyNaCl) through: change-public-keys, associate,
test-associate, get-logins, set-login (a new login, then an update by its uuid), generate-password
and get-totp, checking each answer against the expected values given as arguments. The same
script runs against the listener with the tests' memory vault and, later, against
`swcred serve --browser`.

    kpxc_client.py --socket PATH --url URL --login LOGIN --password PASSWORD \
        --totp-uuid UUID --totp-uri OTPAUTH [--totp-time UNIX] [--association NAME] \
        [--new-url URL --new-login LOGIN --new-password PASSWORD]

Prints one JSON object with what it saw (passwords replaced by their length) and exits 0 when
every check held; otherwise prints the failed checks on standard error and exits 1.
"""

import argparse
import json
import os
import select
import struct
import subprocess
import sys
import time

import keepassxc_browser_api.client as kpxc
import pyotp
from keepassxc_browser_api import BrowserClient, BrowserConfig


class FramedPipe:
    """The socket the library expects, over a native-messaging host run as a browser runs it:
    each message goes to the host's standard input with its 4-byte native-endian length, each
    reply is read from its standard output the same way (keepassxc-proxy, `swcred browser host`)."""

    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.timeout = 5.0

    def settimeout(self, timeout):
        self.timeout = timeout

    def gettimeout(self):
        return self.timeout

    def sendall(self, data):
        self.process.stdin.write(struct.pack("=I", len(data)) + data)
        self.process.stdin.flush()

    def _read(self, count):
        data = b""
        deadline = time.monotonic() + (self.timeout or 60)
        while len(data) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.process.stdout], [], [], remaining)[0]:
                raise OSError("timed out waiting for the host")
            chunk = os.read(self.process.stdout.fileno(), count - len(data))
            if not chunk:
                raise OSError("the host closed its output")
            data += chunk
        return data

    def recv(self, _size):
        (length,) = struct.unpack("=I", self._read(4))
        return self._read(length)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", help="the browser socket (or --via)")
    parser.add_argument(
        "--via",
        nargs="+",
        help="talk through this native-messaging host instead, started as a browser starts it"
        " (keepassxc-proxy MANIFEST EXTENSION-ID, or swcred browser host)",
    )
    parser.add_argument("--url", required=True, help="a page whose logins the vault holds")
    parser.add_argument("--login", required=True, help="the login expected for --url")
    parser.add_argument("--password", required=True, help="its password")
    parser.add_argument("--association", help="the association's expected id (the owner's name for it)")
    parser.add_argument("--totp-uuid", help="the entry with the otpauth URI")
    parser.add_argument("--totp-login", help="or: the login of --url's entry with the otpauth URI")
    parser.add_argument(
        "--then-revoked",
        action="store_true",
        help="after the checks, print 'ready', wait for a line on standard input (the association is"
        " revoked meanwhile), and check that get-logins is then refused",
    )
    parser.add_argument("--totp-uri", required=True, help="its otpauth URI, for pyotp to agree with")
    parser.add_argument("--totp-time", type=int, help="the vault's clock (default: now, one period either side)")
    parser.add_argument("--new-url", default="https://signup.example/register")
    parser.add_argument("--new-login", default="grace")
    parser.add_argument("--new-password", default="a new password 1")
    parser.add_argument("--min-generated-length", type=int, default=15)
    arguments = parser.parse_args()

    failures = []
    seen = {}

    def check(condition, what):
        if not condition:
            failures.append(what)

    # The library looks under $XDG_RUNTIME_DIR itself; the socket is given instead.
    kpxc._get_keepassxc_socket_path = lambda: arguments.socket
    client = BrowserClient(BrowserConfig())
    if arguments.via:
        client._socket = FramedPipe(arguments.via)
    else:
        client.connect()
    check(client._socket is not None, f"could not connect to {arguments.socket}")
    client.change_public_keys()
    association = client.associate()
    seen["association"] = association.id
    check(bool(client.config.associations), "associate's reply carried no database hash")
    if arguments.association:
        check(association.id == arguments.association, f"association id {association.id!r}")

    entries = client.get_logins(arguments.url)
    seen["logins"] = [{"login": e.login, "password_length": len(e.password), "uuid": e.uuid} for e in entries]
    check(
        any(e.login == arguments.login and e.password == arguments.password for e in entries),
        f"get-logins {arguments.url} did not give the expected login",
    )

    client.set_login(arguments.new_url, arguments.new_login, arguments.new_password)
    saved = [e for e in client.get_logins(arguments.new_url) if e.login == arguments.new_login]
    check(
        len(saved) == 1 and saved[0].password == arguments.new_password,
        "set-login's new login is not what get-logins gives",
    )
    if saved:
        changed = arguments.new_password + " changed"
        client.set_login(arguments.new_url, arguments.new_login, changed, uuid=saved[0].uuid)
        after = [e for e in client.get_logins(arguments.new_url) if e.login == arguments.new_login]
        check(
            [e.password for e in after] == [changed] and after[0].uuid == saved[0].uuid,
            "set-login by uuid did not update the entry in place",
        )
        seen["set_login"] = {"uuid": saved[0].uuid, "updated": [e.uuid for e in after]}

    # The library has no call of its own for generate-password; its encrypted request does it.
    generated = client._send_encrypted(
        "generate-password", {"action": "generate-password", "keys": client._get_connection_keys()}
    )
    password = generated.get("password") or ""
    seen["generated_length"] = len(password)
    check(len(password) >= arguments.min_generated_length, f"generate-password gave {len(password)} characters")

    totp_uuid = arguments.totp_uuid or next(
        (e.uuid for e in entries if e.login == arguments.totp_login), None
    )
    check(totp_uuid is not None, f"no entry of {arguments.url} has the login {arguments.totp_login!r}")
    code = client.get_totp(totp_uuid or "")
    seen["totp"] = code
    totp = pyotp.parse_uri(arguments.totp_uri)
    if arguments.totp_time is not None:
        expected = [totp.at(arguments.totp_time)]
    else:
        now = time.time()
        expected = [totp.at(now + offset * totp.interval) for offset in (-1, 0, 1)]
    seen["pyotp"] = expected
    check(code in expected, f"get-totp gave {code!r}; pyotp says {expected}")

    if arguments.then_revoked:
        print("ready", flush=True)
        sys.stdin.readline()
        try:
            refused = client.get_logins(arguments.url)
            check(False, f"get-logins after the revocation gave {len(refused)} entries")
        except Exception as error:  # the library raises on KeePassXC's error replies
            seen["after_revocation"] = str(error)[:200]

    client.disconnect()
    print(json.dumps(seen))
    if failures:
        for failure in failures:
            print(f"kpxc_client.py: {failure}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
