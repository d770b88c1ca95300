#!/usr/bin/env bash
# The browser bridge's benchmark (Scripts/bench browser runs it with the release binaries'
# directory): the vault, site, app and token of service-setup.sh, then `swcred serve --browser`
# and one client process (Benchmarks/browser-bench.py, with keepassxc-browser-api from
# .build-venv/browser) that measures, side by side in one run and interleaved:
#   - get-logins through the bridge (crypto_box both ways, the association checked, the release audited);
#   - a password request through the service's HTTP API on its Unix socket (the same credential);
#   - the floor: GET /v1/health on the same HTTP connection;
# and the service's CPU time and resident memory while a browser stays connected and idle.
# The owner approves the browser's association with `swcred consent` on a pseudo-terminal.
set -euo pipefail
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
python="$here/../.build-venv/browser/bin/python"
[ -x "$python" ] || { echo "browser bench: $python is missing: run Scripts/bootstrap" >&2; exit 1; }
# shellcheck source=Benchmarks/service-setup.sh
source "$here/service-setup.sh"

mkdir -m 700 browser
SWCRED_BROWSER_SOCKET="$work/browser/kpxc.sock" "$bin/swcred" serve --socket "$work/run/swcred.sock" --browser \
    --log-level warning "${net[@]}" >service.log 2>&1 &
service_pid=$!
pids+=("$service_pid")
for _ in $(seq 300); do [ -S run/swcred.sock ] && [ -S browser/kpxc.sock ] && break; sleep 0.1; done
[ -S browser/kpxc.sock ] || { cat service.log >&2; echo "browser bench: swcred serve --browser did not start" >&2; exit 1; }

# The owner answers the association request the client makes first: y, then Enter for the name.
(sleep 1 && printf 'y\n\n' | script -qec "$bin/swcred consent --once --socket $work/run/swcred.sock" /dev/null \
    >consent.log 2>&1) &
pids+=($!)
"$python" "$here/browser-bench.py" --browser-socket "$work/browser/kpxc.sock" \
    --service-socket "$work/run/swcred.sock" --token-file token --domain "$domain" --account bench@example.com \
    --pid "$service_pid"
