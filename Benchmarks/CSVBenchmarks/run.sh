#!/usr/bin/env bash
# Builds the benchmark (release), generates the CSV once (not committed: .build/), and runs each
# reader 3 times, each in its own process. usage: ./run.sh [LINES]   (default 1,000,000)
set -euo pipefail
cd "$(dirname "$0")"
lines=${1:-1000000}
swift build -c release >&2
binary=.build/release/CSVBenchmarks
file=.build/products-$lines.csv
[ -f "$file" ] || "$binary" generate "$file" "$lines"
echo "file: $file, $(wc -l < "$file") lines, $(wc -c < "$file") bytes"
for reader in ours ours+builder csv.swift swiftcsv; do
    for round in 1 2 3; do "$binary" "$reader" "$file"; done
done
