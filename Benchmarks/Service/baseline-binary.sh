#!/usr/bin/env bash
# Builds the `signalbox` binary of another commit (release) and prints its path, for
# before/after runs in one go: Benchmarks/Service/search-load.sh and search-instructions.sh
# take BASELINE=COMMIT. The tree is exported with `git archive` (no checkout, no worktree) to
# ${BASELINE_DIR:-${TMPDIR:-/tmp}/signalbox-baseline-COMMIT} and built there; later runs reuse it.
# Commits before f586e05 park the main thread in dispatchMain, which valgrind 3.19 does not
# survive: for them, that commit's Sources/SignalboxCLI/main.swift (which waits on a semaphore)
# replaces theirs; it changes only how the main thread waits for the service.
#
# Usage: Benchmarks/Service/baseline-binary.sh COMMIT
set -euo pipefail
cd "$(dirname "$0")/../.."
commit=$(git rev-parse --short=12 "${1:?usage: baseline-binary.sh COMMIT}")
dir=${BASELINE_DIR:-${TMPDIR:-/tmp}/signalbox-baseline-$commit}
if [ ! -d "$dir" ]; then
    mkdir -p "$dir.partial"
    git archive "$commit" | tar -x -C "$dir.partial"
    mv "$dir.partial" "$dir"
fi
if ! git merge-base --is-ancestor f586e05 "$commit"; then
    git show f586e05:Sources/SignalboxCLI/main.swift > "$dir/Sources/SignalboxCLI/main.swift"
fi
(cd "$dir" && swift build -c release --product signalbox >&2)
echo "$dir/.build/release/signalbox"
