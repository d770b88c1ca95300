#!/usr/bin/env bash
# The browser bridge's benchmark (Scripts/bench browser runs it with the release binaries'
# directory): the vault, site, app and token of service-setup.sh, then `swcred serve --browser`
# and one client process (Benchmarks/browser-bench.py, with keepassxc-browser-api from
# .build-venv/browser) that measures, side by side in one run and interleaved:
#   - get-logins through the bridge (crypto_box both ways, the association checked, the release audited);
#   - a password request through the service's HTTP API on its Unix socket (the same credential);
#   - the floor: GET /v1/health on the same HTTP connection;
#   - KeePassXC 2.7.4's own get-logins (Debian's keepassxc, headless, browser integration on) on a
#     database of the same credentials (Benchmarks/make-keepassxc-browser-db.py) that already holds
#     the client's association, so that no dialog needs answering. As root, KeePassXC runs as the
#     ordinary uid $KEEPASSXC_USER (default nobody), with its own home, runtime folder and config.
#     KEEPASSXC_BATCH=N: its calls per round (default 1: with 100,001 entries each takes seconds);
#     FILLERS=N: both stores hold N + 1 credentials instead of 100,001.
# and the service's CPU time and resident memory while a browser stays connected and idle.
# The owner approves the browser's association with `swcred consent` on a pseudo-terminal.
set -euo pipefail
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
python="$here/../.build-venv/browser/bin/python"
[ -x "$python" ] || { echo "browser bench: $python is missing: run Scripts/bootstrap" >&2; exit 1; }
# shellcheck source=Benchmarks/service-setup.sh
source "$here/service-setup.sh"

# KeePassXC: the browser's identification key pair (the client keeps it), the database with the
# association, a config with browser integration on and every entry's access allowed.
"$python" -c 'import base64, json, nacl.public
key = nacl.public.PrivateKey.generate()
encode = lambda raw: base64.b64encode(bytes(raw)).decode()
print(json.dumps({"id": "swcred-bench", "id_key": encode(key.public_key), "key": encode(key)}))' >association.json
# Short names: the socket's path, five folders under the runtime one, must fit a sockaddr_un.
kpxc="$work/kx"
mkdir -p "$kpxc/home" "$kpxc/r"
chmod 700 "$kpxc/r"
printf '%s\nXq7-vL9p-Rt2w-Kd4m-Zs8b\n' "$SWCRED_PASSPHRASE" |
    /usr/bin/python3 "$here/make-keepassxc-browser-db.py" "$kpxc/bench.kdbx" "${FILLERS:-100000}" swcred-bench \
        "$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["id_key"])' association.json)"
cat >"$kpxc/keepassxc.ini" <<'INI'
[General]
ConfigVersion=2
SingleInstance=false
RememberLastDatabases=false
UpdateCheckMessageShown=true

[GUI]
ShowTrayIcon=false
CheckForUpdates=false

[Browser]
Enabled=true
AlwaysAllowAccess=true
UpdateBinaryPath=false
INI
as_user=()
if [ "$(id -u)" -eq 0 ]; then
    chown -R "${KEEPASSXC_USER:-nobody}:" "$kpxc"
    chmod 711 "$work"
    as_user=(setpriv --reuid="${KEEPASSXC_USER:-nobody}" --regid="$(id -g "${KEEPASSXC_USER:-nobody}")" --init-groups)
fi
printf '%s\n' "$SWCRED_PASSPHRASE" | "${as_user[@]}" env -i PATH=/usr/bin:/bin HOME="$kpxc/home" \
    XDG_RUNTIME_DIR="$kpxc/r" QT_QPA_PLATFORM=offscreen \
    keepassxc --pw-stdin --config "$kpxc/keepassxc.ini" "$kpxc/bench.kdbx" >keepassxc.log 2>&1 &
keepassxc_pid=$!
# KeePassXC may take seconds to quit on SIGTERM, writing into $work meanwhile; its database is
# throwaway, so it is killed outright, and waited for, before the scratch folder goes.
trap 'kill -KILL "$keepassxc_pid" 2>/dev/null || true; wait "$keepassxc_pid" 2>/dev/null || true; cleanup' EXIT
kpxc_socket="$kpxc/r/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer"
for _ in $(seq 300); do [ -S "$kpxc_socket" ] && break; sleep 0.1; done
[ -S "$kpxc_socket" ] || { cat keepassxc.log >&2; echo "browser bench: keepassxc did not start" >&2; exit 1; }

# shellcheck source=Benchmarks/browser-service.sh
source "$here/browser-service.sh"
start_browser_service 30 "$bin/swcred" serve --socket "$work/run/swcred.sock" --browser --log-level warning "${net[@]}"
"$python" "$here/browser-bench.py" --browser-socket "$work/browser/kpxc.sock" \
    --service-socket "$work/run/swcred.sock" --token-file token --domain "$domain" --account bench@example.com \
    --pid "$service_pid" --keepassxc-socket "$kpxc_socket" --keepassxc-association association.json \
    ${KEEPASSXC_BATCH:+--keepassxc-batch "$KEEPASSXC_BATCH"}
