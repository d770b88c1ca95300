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
work="$(mktemp -d -t swcred-service-bench.XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
app=ABCDE12345.com.example.bench
domain=shop.example
cd "$work"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=bench CA" \
    -keyout ca.key -out ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$domain" -keyout site.key -out site.csr \
    2>/dev/null
printf 'subjectAltName=DNS:%s,IP:127.0.0.1\n' "$domain" >san.ext
openssl x509 -req -in site.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile san.ext -out site.pem \
    2>/dev/null
mkdir -p "www/$domain/.well-known"
printf '{"webcredentials": {"apps": ["%s"]}}\n' "$app" >"www/$domain/.well-known/apple-app-site-association"
python3 "$here/../Scripts/demo-https-server.py" www site.pem site.key >site.port 2>site.log &
pids+=($!)
for _ in $(seq 50); do [ -s site.port ] && break; sleep 0.1; done
net=(--ca-file "$work/ca.pem" --connect-to "$domain:443:127.0.0.1:$(cat site.port)")

export SWCRED_VAULT="$work/vault.sqlite"
export SWCRED_PASSPHRASE="service benchmark passphrase, never a real one"
"$bin/swcred" init >/dev/null 2>&1
"$bin/swcred" app add "$app" --domain "webcredentials:$domain" >/dev/null
"$bin/swcred" verify "$app" "${net[@]}" >/dev/null
printf 'Xq7-vL9p-Rt2w-Kd4m-Zs8b' |
    "$bin/swcred" add --app "$app" --domain "$domain" --account bench@example.com --password-stdin --yes "${net[@]}" \
        2>/dev/null
"$bin/service-bench" fill "$SWCRED_VAULT" 100000
(umask 077 && "$bin/swcred" app token create "$app" --allow request >token 2>/dev/null)

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
