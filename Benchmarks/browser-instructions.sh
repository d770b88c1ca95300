#!/usr/bin/env bash
# Instructions per get-logins through the browser bridge and per password request through the
# service's HTTP API, in one `swcred-serve --browser` under callgrind (Scripts/bench
# browser-instructions runs it with the release binaries' directory): instructions, not seconds,
# so the ratio holds on a busy machine. The setup of service-setup.sh; the owner approves the
# browser's association with `swcred consent` on a pseudo-terminal; one Python client
# (keepassxc-browser-api) warms both paths up, then for each: zero the counters, CALLS calls, dump.
# Every thread of the process counts. Then where the bridge's instructions go (inclusive, the
# largest of swcred's own functions).
# Usage: Benchmarks/browser-instructions.sh BIN [CALLS]   (needs valgrind, strip, openssl, script)
set -euo pipefail
bin="$1"
calls="${2:-300}"
here="$(cd "$(dirname "$0")" && pwd)"
python="$here/../.build-venv/browser/bin/python"
[ -x "$python" ] || { echo "browser instructions: $python is missing: run Scripts/bootstrap" >&2; exit 1; }
# shellcheck source=Benchmarks/service-setup.sh
source "$here/service-setup.sh"

# Symbols stay (callgrind names functions), DWARF goes: valgrind 3.19 cannot read Swift's DWARF 5.
strip --strip-debug -o swcred-serve "$bin/swcred-serve"
mkdir -m 700 browser
SWCRED_BROWSER_SOCKET="$work/browser/kpxc.sock" valgrind --tool=callgrind --callgrind-out-file="$work/bridge.callgrind" \
    ./swcred-serve --socket "$work/run/swcred.sock" --browser --log-level warning "${net[@]}" >service.log 2>&1 &
service_pid=$!
pids+=("$service_pid")
for _ in $(seq 1200); do [ -S run/swcred.sock ] && [ -S browser/kpxc.sock ] && break; sleep 0.1; done
[ -S browser/kpxc.sock ] || { cat service.log >&2; echo "browser instructions: the service did not start" >&2; exit 1; }

(sleep 1 && printf 'y\n\n' | script -qec "$bin/swcred consent --once --socket $work/run/swcred.sock" /dev/null \
    >consent.log 2>&1) &
pids+=($!)
"$python" - "$work" "$service_pid" "$calls" "$domain" <<'PYTHON'
import http.client, json, socket, subprocess, sys
import keepassxc_browser_api.client as kpxc
from keepassxc_browser_api import BrowserClient, BrowserConfig

work, pid, calls, domain = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
kpxc._get_keepassxc_socket_path = lambda: f"{work}/browser/kpxc.sock"
browser = BrowserClient(BrowserConfig())
browser.connect()
browser.change_public_keys()
browser.associate()

class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost")
        self.socket_path = path
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.socket_path)

service = UnixConnection(f"{work}/run/swcred.sock")
token = open(f"{work}/token").read().strip()
headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}

def get_logins():
    assert len(browser.get_logins(f"https://{domain}/")) == 1

def request():
    service.request("POST", "/v1/credentials/request", body=json.dumps({"domain": domain}), headers=headers)
    response = service.getresponse()
    response.read()
    assert response.status == 200, response.status

for name, call in (("get-logins", get_logins), ("request", request)):
    for _ in range(50):
        call()
    subprocess.run(["callgrind_control", "--zero", pid], check=True, capture_output=True)
    for _ in range(calls):
        call()
    subprocess.run(["callgrind_control", "--dump", pid], check=True, capture_output=True)
browser.disconnect()
PYTHON
per_call() { echo $(($(sed -n 's/^summary: \([0-9]*\)/\1/p' "$1") / calls)); }
bridge="$(per_call "$work/bridge.callgrind.1")"
served="$(per_call "$work/bridge.callgrind.2")"
echo "| instructions per call ($calls calls, one client, callgrind, every thread) | get-logins (bridge) | request (service) | bridge / request |"
echo "|---|---|---|---|"
python3 -c "import sys; b, s = int(sys.argv[1]), int(sys.argv[2]); print(f'| | {b:,} | {s:,} | {b / s:.2f}x |')" \
    "$bridge" "$served"
# Inclusive counts: those of async functions overlap (a resumed partial function counts what
# runs after it on its thread); those of synchronous ones, such as the JSON writer, do not.
echo "get-logins, inclusive instructions per call of the largest functions:"
callgrind_annotate --inclusive=yes "$work/bridge.callgrind.1" 2>/dev/null |
    sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%) *\(.*\)$/\1 \2/p' | sed -n 1,40p |
    while read -r count function; do
        echo "  $((${count//,/} / calls)) ${function:0:150}"
    done
