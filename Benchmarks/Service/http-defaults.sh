#!/usr/bin/env bash
# The `signalbox` binary as a user runs it (default settings: log.level info, one access line per
# request, written to a file) against the plain Hummingbird 2 peer of scripts/bench-http
# (Benchmarks/HTTPLoad: no middleware, no logging), in one run, rounds alternating:
#
#   unpinned: servers and wrk wherever the kernel puts them (as a user would run them)
#   pinned:   servers on CPU 0, wrk on CPU 1 (taskset), as scripts/bench-http does
#
# Endpoints: GET /healthz on both (ours answers {"status":"ok"} through a Single); and the JSON
# one through a trait: ours is /readyz (the service has no /json: {"status":"ready"} through a
# Single), the peer's /json ({"message":"Hello, World!"} through JSONEncoder).
#
# Usage: Benchmarks/Service/http-defaults.sh [seconds] [connections] [wrk-threads] [rounds] [placements]
#        SB_BIN=... HB_BIN=... (binaries already built: the peer does not change with this tree)
#        SB_BASE_BIN=... (optional: an older signalbox, e.g. built from an earlier commit, measured in
#        the same alternating rounds; its column and the ratio new / base are added)
# Defaults: 5 s, 64 connections, 1 wrk thread, 3 rounds, "unpinned pinned". Prints each round,
# the medians, the ratio (Signalbox / Hummingbird), the load average, and at the end how many
# access lines the server wrote (all of them must be in the file after SIGTERM).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SECONDS_PER_RUN=${1:-5}
CONNECTIONS=${2:-64}
THREADS=${3:-1}
ROUNDS=${4:-3}
PLACEMENTS=${5:-unpinned pinned}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }

if [ -z "${SB_BIN:-}" ]; then
    echo "building signalbox (release)..." >&2
    swift build -c release --product signalbox >&2
    SB_BIN="$(swift build -c release --show-bin-path)/signalbox"
fi
if [ -z "${HB_BIN:-}" ]; then
    echo "building the Hummingbird peer (release)..." >&2
    swift build -c release --package-path Benchmarks/HTTPLoad --product bench-hummingbird >&2
    HB_BIN="$(swift build -c release --package-path Benchmarks/HTTPLoad --show-bin-path)/bench-hummingbird"
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
work=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

wait_for() {  # URL PID
    for _ in $(seq 1 150); do
        kill -0 "$2" 2>/dev/null || { echo "server for $1 exited" >&2; exit 1; }
        curl -sf "$1" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "server for $1 did not start" >&2; exit 1
}

# start PLACEMENT: both servers, pinned to CPU 0 or not.
start() {
    local pin=()
    [ "$1" = pinned ] && pin=(taskset -c 0)
    SB_PORT=$(free_port); HB_PORT=$(free_port)
    while [ "$HB_PORT" = "$SB_PORT" ]; do HB_PORT=$(free_port); done
    # Defaults: no settings given but a port and a store of its own; the log goes to a file.
    (cd "$work" && exec "${pin[@]}" "$SB_BIN" --host 127.0.0.1 --port "$SB_PORT" --store "$work/sb.sqlite" \
        2>>"$work/signalbox.log") & SB_PID=$!; PIDS+=("$SB_PID")
    if [ -n "${SB_BASE_BIN:-}" ]; then
        BASE_PORT=$(free_port)
        (cd "$work" && exec "${pin[@]}" "$SB_BASE_BIN" --host 127.0.0.1 --port "$BASE_PORT" --store "$work/base.sqlite" \
            2>>"$work/base.log") & BASE_PID=$!; PIDS+=("$BASE_PID")
        wait_for "http://127.0.0.1:$BASE_PORT/readyz" "$BASE_PID"
    fi
    "${pin[@]}" "$HB_BIN" "$HB_PORT" >/dev/null 2>&1 & HB_PID=$!; PIDS+=("$HB_PID")
    wait_for "http://127.0.0.1:$SB_PORT/readyz" "$SB_PID"
    wait_for "http://127.0.0.1:$HB_PORT/healthz" "$HB_PID"
}

# stop: SIGTERM both; the service must exit 0 with every access line written.
SERVED=0
stop() {
    # Requests the service counted (its metrics), to compare with the access lines it wrote.
    SERVED=$((SERVED + $(curl -sf "http://127.0.0.1:$SB_PORT/metrics" \
        | awk '/^http_requests_total/ { n += $NF } END { printf "%d", n }')))
    kill -TERM "$SB_PID" "$HB_PID" ${BASE_PID:+"$BASE_PID"}
    wait "$SB_PID" || { echo "signalbox exited $?" >&2; exit 1; }
    [ -z "${BASE_PID:-}" ] || wait "$BASE_PID" 2>/dev/null || true
    wait "$HB_PID" 2>/dev/null || true
}

REQUESTS=0
run() {  # PLACEMENT URL → requests/s
    local pin=()
    [ "$1" = pinned ] && pin=(taskset -c 1)
    "${pin[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d1s "$2" >/dev/null
    local out
    out=$("${pin[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" "$2")
    echo "$out" | grep -q "Non-2xx" && echo "warning: $2 answered non-2xx" >&2
    echo "$out" | grep -q "Socket errors" && echo "warning: $2: $(echo "$out" | grep "Socket errors")" >&2
    echo "$out" | awk '/Requests\/sec/ { print $2 }'
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; wrk -t$THREADS -c$CONNECTIONS -d${SECONDS_PER_RUN}s, $ROUNDS alternating rounds"
if [ -n "${SB_BASE_BIN:-}" ]; then
    printf "%-9s %-22s %12s %12s %7s %12s %9s   %s\n" placement "endpoint (SB / HB)" "signalbox" "hummingbird" ratio "base" "new/base" "rounds SB | HB | base"
else
    printf "%-9s %-22s %12s %12s %7s   %s\n" placement "endpoint (SB / HB)" "signalbox" "hummingbird" ratio "rounds SB | HB"
fi
for placement in $PLACEMENTS; do
    start "$placement"
    for pair in "/healthz /healthz" "/readyz /json"; do
        read -r sb_path hb_path <<<"$pair"
        sb=""; hb=""; base=""
        for _ in $(seq 1 "$ROUNDS"); do
            sb+="$(run "$placement" "http://127.0.0.1:$SB_PORT$sb_path") "
            hb+="$(run "$placement" "http://127.0.0.1:$HB_PORT$hb_path") "
            [ -z "${SB_BASE_BIN:-}" ] || base+="$(run "$placement" "http://127.0.0.1:$BASE_PORT$sb_path") "
        done
        a=$(echo "$sb" | median); b=$(echo "$hb" | median)
        ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')
        if [ -n "${SB_BASE_BIN:-}" ]; then
            c=$(echo "$base" | median)
            printf "%-9s %-22s %12s %12s %7.2f %12s %9.2f   %s| %s| %s\n" "$placement" "$sb_path / $hb_path" "$a" "$b" \
                "$ratio" "$c" "$(awk -v a="$a" -v c="$c" 'BEGIN { print a / c }')" "$sb" "$hb" "$base"
        else
            printf "%-9s %-22s %12s %12s %7.2f   %s| %s\n" "$placement" "$sb_path / $hb_path" "$a" "$b" "$ratio" "$sb" "$hb"
        fi
    done
    stop
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "access lines written by signalbox after SIGTERM: $(grep -c '\] request$' "$work/signalbox.log" || true)," \
    "requests it counted before SIGTERM: $SERVED"
