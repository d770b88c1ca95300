"""get-logins through the browser bridge against a password request through the service.

One process, one connection each, interleaved rounds (the order rotates every round), so that a
noisy machine weighs on both alike: read the ratios of the medians, not the times. Then the
service's CPU time and resident memory over an idle interval with the browser still connected.
Run by Benchmarks/browser.sh. With --count-instructions N (Benchmarks/browser-instructions.sh, the
service under callgrind) it times nothing: for get-logins and then the request, it warms up, zeroes
the service's counters, makes N calls and dumps them.
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import time

import keepassxc_browser_api.client as kpxc
from keepassxc_browser_api import BrowserClient, BrowserConfig
from keepassxc_browser_api.config import Association


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP/1.1 over the service's Unix socket, kept alive."""

    def __init__(self, path):
        super().__init__("localhost")
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.socket_path)


def process_figures(pid):
    """CPU seconds (user + system) and resident memory (KiB) of `pid`."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return ticks / os.sysconf("SC_CLK_TCK"), rss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--browser-socket", required=True)
    parser.add_argument("--service-socket", required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--domain", required=True)
    parser.add_argument("--account", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--keepassxc-socket")
    parser.add_argument("--keepassxc-association", help="JSON: id, id_key, key of the stored association")
    parser.add_argument("--keepassxc-batch", type=int, default=1)
    parser.add_argument("--count-instructions", type=int, metavar="CALLS")
    arguments = parser.parse_args()

    keepassxc = None
    if arguments.keepassxc_socket:
        with open(arguments.keepassxc_association) as file:
            association = Association(**json.load(file))
        kpxc._get_keepassxc_socket_path = lambda: arguments.keepassxc_socket
        keepassxc = BrowserClient(BrowserConfig(associations={"bench": association}))
        # KeePassXC listens before it has opened the database: until then the association fails.
        for _ in range(120):
            try:
                keepassxc.connect()
                keepassxc.change_public_keys()
                if keepassxc._run_test_associate(warn_on_failure=False):
                    break
            except kpxc.ConnectionError:
                pass
            keepassxc.disconnect()
            time.sleep(0.5)
        else:
            raise SystemExit("browser bench: KeePassXC did not accept the benchmark's association")

    kpxc._get_keepassxc_socket_path = lambda: arguments.browser_socket
    browser = BrowserClient(BrowserConfig())
    browser.connect()
    browser.change_public_keys()
    browser.associate()  # the owner approves it in `swcred consent`
    url = f"https://{arguments.domain}/"

    service = UnixHTTPConnection(arguments.service_socket)
    with open(arguments.token_file) as file:
        token = file.read().strip()
    body = json.dumps({"domain": arguments.domain, "account": arguments.account})
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def get_logins(client=browser):
        entries = client.get_logins(url)
        assert len(entries) == 1 and entries[0].login == arguments.account, entries

    def request():
        service.request("POST", "/v1/credentials/request", body=body, headers=headers)
        response = service.getresponse()
        response.read()
        assert response.status == 200, response.status

    def floor():
        service.request("GET", "/v1/health")
        response = service.getresponse()
        response.read()
        assert response.status == 200, response.status

    if arguments.count_instructions:
        for function in (get_logins, request):
            for _ in range(50):
                function()
            subprocess.run(["callgrind_control", "--zero", str(arguments.pid)], check=True, capture_output=True)
            for _ in range(arguments.count_instructions):
                function()
            subprocess.run(["callgrind_control", "--dump", str(arguments.pid)], check=True, capture_output=True)
        browser.disconnect()
        return

    measured = {"get-logins (bridge)": get_logins, "request (service)": request, "floor (GET /v1/health)": floor}
    batches = {name: arguments.batch for name in measured}
    if keepassxc:
        measured["get-logins (KeePassXC)"] = lambda: get_logins(keepassxc)
        batches["get-logins (KeePassXC)"] = arguments.keepassxc_batch
    for name, function in measured.items():
        for _ in range(min(20, batches[name])):
            function()
    samples = {name: [] for name in measured}
    names = list(measured)
    for round_number in range(arguments.rounds):
        order = names[round_number % len(names) :] + names[: round_number % len(names)]
        for name in order:
            start = time.perf_counter_ns()
            for _ in range(batches[name]):
                measured[name]()
            samples[name].append((time.perf_counter_ns() - start) / batches[name] / 1000)

    medians = {name: statistics.median(values) for name, values in samples.items()}
    calls = ", ".join(f"{batches[name]} {name}" for name in measured)
    print(f"{arguments.rounds} rounds of {calls}, order rotated; per-call median (µs), p10-p90 of rounds")
    for name, values in samples.items():
        deciles = statistics.quantiles(values, n=10)
        print(f"  {name:28} {medians[name]:9.1f}   ({deciles[0]:.1f}-{deciles[-1]:.1f})")
    bridge = medians["get-logins (bridge)"]
    served = medians["request (service)"]
    base = medians["floor (GET /v1/health)"]
    print(f"get-logins / request: {bridge / served:.2f}x (budget: within 1.2x)")
    if keepassxc:
        theirs = medians["get-logins (KeePassXC)"]
        print(f"get-logins, swcred's bridge / KeePassXC: {bridge / theirs:.4f}x (budget: no slower, 1x)")
        keepassxc.disconnect()
    print(f"above the floor: get-logins {bridge - base:.1f} µs, request {served - base:.1f} µs")

    cpu_before, rss_before = process_figures(arguments.pid)
    time.sleep(arguments.idle)
    cpu_after, rss_after = process_figures(arguments.pid)
    share = (cpu_after - cpu_before) / arguments.idle * 100
    print(
        f"idle with a browser connected, {arguments.idle:.0f} s: CPU {share:.2f}% of one core,"
        f" resident memory {rss_after / 1024:.1f} MiB (was {rss_before / 1024:.1f} MiB)"
    )
    browser.disconnect()


if __name__ == "__main__":
    main()
