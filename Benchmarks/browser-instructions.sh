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
# shellcheck source=Benchmarks/browser-service.sh
source "$here/browser-service.sh"
start_browser_service 120 valgrind --tool=callgrind --callgrind-out-file="$work/bridge.callgrind" \
    ./swcred-serve --socket "$work/run/swcred.sock" --browser --log-level warning "${net[@]}"
"$python" "$here/browser-bench.py" --browser-socket "$work/browser/kpxc.sock" \
    --service-socket "$work/run/swcred.sock" --token-file token --domain "$domain" --account bench@example.com \
    --pid "$service_pid" --count-instructions "$calls"
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
