# The setup both service benchmarks share (sourced by Benchmarks/service.sh and
# Benchmarks/service-instructions.sh, with $bin and $here set): a scratch folder ($work, the
# current directory, removed on exit with every process in $pids), an HTTPS site on loopback that
# approves the app ($net: the options that reach it), a vault of 100,001 credentials (FILLERS=N in
# the environment makes it N + 1) with the default Argon2id settings (SWCRED_VAULT,
# SWCRED_PASSPHRASE), and a request-only token in `token`.
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
"$bin/service-bench" fill "$SWCRED_VAULT" "${FILLERS:-100000}"
(umask 077 && "$bin/swcred" app token create "$app" --allow request >token 2>/dev/null)
