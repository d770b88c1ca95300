#!/usr/bin/env python3
"""The service benchmark's peer: one secret looked up through GNOME Keyring's Secret Service
(D-Bus, python3-secretstorage) against the same lookup through `swcred serve` (HTTP on its Unix
socket, http.client), both from this one Python process, the same number of times, in alternating
blocks so that both see the same machine load.

Run it inside a private D-Bus session with a throwaway HOME, as Benchmarks/service.sh does:
    dbus-run-session -- /usr/bin/python3 secret-service-peer.py SOCKET TOKEN_FILE DOMAIN LOOKUPS
It starts gnome-keyring-daemon in that session, stores one secret, and prints a Markdown table.
"""

import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import secretstorage


class UnixHTTPConnection(http.client.HTTPConnection):
    """http.client over a Unix socket: one keep-alive connection."""

    def __init__(self, path):
        super().__init__("localhost")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def start_keyring():
    """Starts gnome-keyring-daemon's Secret Service in this D-Bus session, unlocked."""
    started = subprocess.run(
        ["gnome-keyring-daemon", "--replace", "--unlock", "--components=secrets"],
        input=b"peer keyring passphrase\n", capture_output=True, check=True)
    for line in started.stdout.decode().splitlines():
        name, _, value = line.partition("=")
        if value:
            os.environ[name] = value
    for _ in range(50):
        try:
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            if collection.is_locked():
                collection.unlock()
            return connection, collection
        except Exception:  # the daemon is still registering on the bus
            time.sleep(0.1)
    raise SystemExit("secret-service-peer: gnome-keyring-daemon did not come up on the session bus")


def main():
    socket_path, token_file, domain, lookups = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    token = open(token_file).read().strip()
    connection, collection = start_keyring()
    attributes = {"server": domain, "account": "bench@example.com"}
    secret = b"Xq7-vL9p-Rt2w-Kd4m-Zs8b"
    collection.create_item(domain, attributes, secret, replace=True)

    def keyring_lookup():
        item = next(collection.search_items({"server": domain}))
        assert item.get_secret() == secret

    service = UnixHTTPConnection(socket_path)
    body = json.dumps({"domain": domain})
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

    def service_lookup():
        service.request("POST", "/v1/credentials/request", body=body, headers=headers)
        response = service.getresponse()
        released = json.loads(response.read())
        assert response.status == 200 and released[0]["server"] == domain, response.status

    timings = {"keyring": [], "service": []}
    for lookup in (keyring_lookup, service_lookup):
        for _ in range(50):
            lookup()  # warm up
    blocks = 10
    for _ in range(blocks):
        for name, lookup in (("keyring", keyring_lookup), ("service", service_lookup)):
            for _ in range(lookups // blocks):
                start = time.perf_counter_ns()
                lookup()
                timings[name].append(time.perf_counter_ns() - start)

    def row(label, samples):
        ordered = sorted(samples)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return f"| {label} | {len(samples)} | {statistics.median(samples) / 1000:.0f} µs | {p99 / 1000:.0f} µs |"

    print("| one secret looked up from Python | lookups | median | p99 |")
    print("|---|---|---|---|")
    print(row("GNOME Keyring, Secret Service over D-Bus (secretstorage)", timings["keyring"]))
    print(row("swcred serve, HTTP on its Unix socket (http.client)", timings["service"]))
    ratio = statistics.median(timings["keyring"]) / statistics.median(timings["service"])
    print(f"\nswcred serve answers in 1/{ratio:.1f} of GNOME Keyring's median time (ratio {ratio:.1f}x).")
    connection.close()


if __name__ == "__main__":
    main()
