#!/usr/bin/env bash
# The service benchmark (Scripts/bench service runs it with the release binaries' directory):
# sets up a vault of 100,001 credentials behind an HTTPS site on loopback that approves the app,
# starts `swcred serve` (Unix socket, and TLS on TCP for wrk) and the floor, then measures:
#   0. service-bench steps: each library call behind one request, in-process;
#   1. service-bench measure: latency and throughput through the service against the floor, the CLI's
#      per-process path, and the service's resident memory;
#   2. wrk over the TLS listener: requests/s, p50 and p99, errors;
#   3. secret-service-peer.py: the same lookup through GNOME Keyring's Secret Service.
# Needs Scripts/bootstrap --bench (wrk, gnome-keyring, python3-secretstorage, dbus).
set -euo pipefail
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=Benchmarks/service-setup.sh
source "$here/service-setup.sh"

echo "### Where a request's time goes, in-process"
"$bin/service-bench" steps "$SWCRED_VAULT" token "$app" "$domain"
echo

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$bin/swcred" serve --socket "$work/run/swcred.sock" --listen "127.0.0.1:$port" --tls-cert site.pem \
    --tls-key site.key --log-level warning "${net[@]}" >service.log 2>&1 &
service_pid=$!
pids+=("$service_pid")
"$bin/service-floor" "$work/floor.sock" >floor.log 2>&1 &
floor_pid=$!
pids+=("$floor_pid")
for _ in $(seq 300); do [ -S run/swcred.sock ] && [ -S floor.sock ] && break; sleep 0.1; done
[ -S run/swcred.sock ] || { cat service.log >&2; echo "service bench: swcred serve did not start" >&2; exit 1; }
# `swcred serve` execs swcred-serve: the process id stays the same.

echo "### Through the service, against its floor and the CLI"
"$bin/service-bench" measure "$work/run/swcred.sock" "$service_pid" "$work/floor.sock" "$floor_pid" token \
    "$bin/swcred" "$app" "$domain"

echo
echo "### A passkey assertion against a password request"
(umask 077 && "$bin/swcred" app token create "$app" --allow request,passkey-create,passkey-get >passkey-token 2>/dev/null)
challenge="$(python3 -c 'import base64, os; print(base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode())')"
printf '{"rp":{"id":"%s","name":"Bench"},"user":{"id":"YmVuY2g","name":"bench@example.com","displayName":"Bench"},"challenge":"%s","pubKeyCredParams":[{"type":"public-key","alg":-7}]}' \
    "$domain" "$challenge" >create.json
credential_id="$(SWCRED_SERVER="$work/run/swcred.sock" SWCRED_TOKEN="$(cat passkey-token)" \
    "$bin/swcred" passkey create <create.json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')"
"$bin/service-bench" passkeys "$work/run/swcred.sock" passkey-token "$SWCRED_VAULT" "$app" "$domain" "$credential_id"

echo
echo "### wrk over the TLS listener (2 threads, 32 connections, 10 s)"
cat >post.lua <<LUA
wrk.method = "POST"
wrk.body = '{"domain":"$domain"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
LUA
BENCH_TOKEN="$(cat token)" wrk -t2 -c32 -d10s --latency -s post.lua "https://127.0.0.1:$port/v1/credentials/request" \
    >wrk.out
rate=$(awk '/^Requests\/sec:/ { print $2 }' wrk.out)
p50=$(awk '$1 == "50%" { print $2 }' wrk.out)
p99=$(awk '$1 == "99%" { print $2 }' wrk.out)
non2xx=$(awk '/Non-2xx/ { print $NF }' wrk.out)
socket_errors=$(awk '/Socket errors/ { print }' wrk.out)
echo "| requests/s | p50 | p99 | non-2xx | socket errors |"
echo "|---|---|---|---|---|"
echo "| ${rate} | ${p50} | ${p99} | ${non2xx:-0} | ${socket_errors:-none} |"
echo "service resident memory after wrk: $(awk '/^VmRSS/ { print int($2 / 1024) " MiB" }' "/proc/$service_pid/status")"

echo
echo "### PostgreSQL against SQLite, and two instances on one database (issue 25)"
# The same vault, copied into a throwaway cluster's new database; two instances serve it.
pg_admin="$("$here/../Scripts/postgres" start)"
pg_database="swcred_bench_$$"
psql -X -q -d "$pg_admin" -c "CREATE DATABASE $pg_database"
pg_url="postgresql://swcred@/$pg_database?${pg_admin#*\?}"
"$bin/swcred" store copy --from "sqlite:$SWCRED_VAULT" --to "$pg_url" >/dev/null 2>store-copy.log
pg_pids=()
for name in a b; do
    SWCRED_STORE="$pg_url" "$bin/swcred" serve --socket "$work/run-$name/swcred.sock" --log-level warning "${net[@]}" \
        >"service-$name.log" 2>&1 &
    pg_pids+=($!)
    pids+=($!)
done
for _ in $(seq 300); do [ -S run-a/swcred.sock ] && [ -S run-b/swcred.sock ] && break; sleep 0.1; done
"$bin/service-bench" stores "$work/run/swcred.sock" "$service_pid" "$work/run-a/swcred.sock" "${pg_pids[0]}" \
    "$work/run-b/swcred.sock" "${pg_pids[1]}" "$work/floor.sock" "$floor_pid" token "$domain"
kill "${pg_pids[@]}" 2>/dev/null || true
wait "${pg_pids[@]}" 2>/dev/null || true
psql -X -q -d "$pg_admin" -c "DROP DATABASE $pg_database"

echo
echo "### The peer: GNOME Keyring's Secret Service, from one Python process"
mkdir -p home
HOME="$work/home" XDG_DATA_HOME="$work/home/.local/share" XDG_RUNTIME_DIR="$work/home" \
    dbus-run-session -- /usr/bin/python3 "$here/secret-service-peer.py" "$work/run/swcred.sock" token "$domain" 2000

grep -i -E "error|fatal" service.log >&2 || true
