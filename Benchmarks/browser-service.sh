# Starts the service with its browser listener for the browser benchmarks (sourced by
# Benchmarks/browser.sh and Benchmarks/browser-instructions.sh, after service-setup.sh):
#   start_browser_service SECONDS COMMAND...
# runs COMMAND (a `swcred serve --browser` or `swcred-serve --browser` with its options) with the
# browser socket at $work/browser/kpxc.sock, sets $service_pid, waits up to SECONDS for both
# sockets, and has the owner answer the association request the client makes first, in
# `swcred consent` on a pseudo-terminal: y, then Enter for the name.
start_browser_service() {
    local seconds="$1"
    shift
    mkdir -m 700 browser
    SWCRED_BROWSER_SOCKET="$work/browser/kpxc.sock" "$@" >service.log 2>&1 &
    service_pid=$!
    pids+=("$service_pid")
    for _ in $(seq $((seconds * 10))); do [ -S run/swcred.sock ] && [ -S browser/kpxc.sock ] && break; sleep 0.1; done
    [ -S browser/kpxc.sock ] || { cat service.log >&2; echo "browser bench: the service did not start" >&2; exit 1; }
    (sleep 1 && printf 'y\n\n' | script -qec "$bin/swcred consent --once --socket $work/run/swcred.sock" /dev/null \
        >consent.log 2>&1) &
    pids+=($!)
}
