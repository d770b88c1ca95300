#!/usr/bin/env python3
"""Opens an owner session on a running `swcred serve`, as `swcred consent` does, for
Scripts/api-contract: asks the service for a challenge, has VaultTestClient (a test program that
unlocks the vault with SWCRED_VAULT and SWCRED_PASSPHRASE) compute the owner proof, and sends it.

Usage: owner-session.py SOCKET BIN_DIR   prints the session's bearer text
"""
import http.client
import json
import os
import socket
import subprocess
import sys


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost")
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.unix_path)


def post(path, route, body=None):
    connection = UnixConnection(path)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request("POST", route, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    answer = json.loads(response.read())
    if response.status != 200:
        sys.exit(f"owner-session: {route} answered {response.status}: {answer}")
    return answer


socket_path, bin_dir = sys.argv[1], sys.argv[2]
challenge = post(socket_path, "/v1/owner/challenge")["challenge"]
proof = subprocess.run(
    [os.path.join(bin_dir, "VaultTestClient"), "owner-proof", os.environ["SWCRED_VAULT"], challenge],
    check=True, capture_output=True, text=True).stdout.strip()
print(post(socket_path, "/v1/owner/session", {"challenge": challenge, "proof": proof})["session"])
