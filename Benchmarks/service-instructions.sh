#!/usr/bin/env bash
# Instructions per request through `swcred serve` and through its floor (Scripts/bench
# service-instructions runs it with the release binaries' directory): both servers run under
# callgrind, which counts instructions, not seconds, so the ratio holds on a busy or slow machine
# as on a quiet one. Each server gets 50 requests to warm up, then its counters are zeroed, then
# REQUESTS more are sent on one keep-alive connection and the counters dumped: every thread of the
# process, the event loop's included, divided by REQUESTS.
# Usage: Benchmarks/service-instructions.sh BIN [REQUESTS]   (needs valgrind, strip, openssl)
set -euo pipefail
bin="$1"
requests="${2:-500}"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=Benchmarks/service-setup.sh
source "$here/service-setup.sh"

# Symbols stay (callgrind names functions), DWARF goes: valgrind 3.19 cannot read Swift's DWARF 5.
strip --strip-debug -o swcred-serve "$bin/swcred-serve"
strip --strip-debug -o service-floor "$bin/service-floor"

# One keep-alive client on a Unix socket: COUNT requests, each checked for a 200.
send() {
    python3 - "$1" token "$2" "$domain" <<'PYTHON'
import http.client, socket, sys
class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost")
        self.socket_path = path
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.socket_path)
path, token_file, count, domain = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
token = open(token_file).read().strip()
connection = UnixConnection(path)
headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
for _ in range(count):
    connection.request("POST", "/v1/credentials/request", body='{"domain":"%s"}' % domain, headers=headers)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"service instructions: {response.status} {body!r}")
PYTHON
}

# measure NAME SOCKET COMMAND...: starts COMMAND under callgrind, waits for SOCKET, warms up,
# counts REQUESTS requests; prints the instructions per request.
measure() {
    local name="$1" socket="$2"
    shift 2
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.callgrind" "$@" >"$name.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 1200); do [ -S "$socket" ] && break; sleep 0.1; done
    [ -S "$socket" ] || { cat "$name.log" >&2; echo "service instructions: $name did not start" >&2; exit 1; }
    send "$socket" 50
    callgrind_control --zero "$pid" >/dev/null 2>&1
    send "$socket" "$requests"
    callgrind_control --dump "$pid" >/dev/null 2>&1
    local total
    total="$(sed -n 's/^summary: \([0-9]*\)/\1/p' "$work/$name.callgrind.1")"
    kill "$pid" 2>/dev/null || true
    echo $((total / requests))
}

floor="$(measure floor "$work/floor.sock" ./service-floor "$work/floor.sock")"
service="$(measure service "$work/run/swcred.sock" ./swcred-serve --socket "$work/run/swcred.sock" \
    --log-level warning "${net[@]}")"
echo "| instructions per request ($requests requests, one keep-alive client) | floor | swcred serve | swcred serve / floor |"
echo "|---|---|---|---|"
python3 -c "import sys; f, s = int(sys.argv[1]), int(sys.argv[2]); print(f'| callgrind, every thread | {f:,} | {s:,} | {s / f:.2f}x |')" \
    "$floor" "$service"
