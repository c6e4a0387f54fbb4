#!/usr/bin/env bash
# Browser test of the search page at `/`: headless Chromium driven by Selenium
# (Tests/browser/test_page.py) against the release binary on a free port, with
# a temporary store and an API key. Screenshots go to artifacts/browser/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
# Selenium must not try to download anything: the test names the driver and the browser.
export SE_OFFLINE=true

need_apt=()
for pkg in chromium chromium-driver curl; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" </dev/null
fi
python3 -c 'import selenium, pytest' 2>/dev/null || pip install -q selenium pytest

# The same flags as scripts/e2e.sh, so CI builds the release binary once.
swift build -c release --static-swift-stdlib --product signalbox
binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/signalbox"

work="$(mktemp -d "${TMPDIR:-/tmp}/signalbox-browser-XXXXXX")"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
key="browser-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
# A short event history, so the test can miss more than is kept and see a reset.
export SIGNALBOX_EVENTS_HISTORY=4
SIGNALBOX_API_KEY="$key" SIGNALBOX_STORE="$work/store.sqlite" \
    "$binary" --host 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 </dev/null &
server=$!
stop() {
    kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap stop EXIT

base="http://127.0.0.1:$port"
# Ready once the data is loaded (a few seconds for the embedded cities).
if ! curl -sf --retry 120 --retry-delay 1 --retry-all-errors --retry-connrefused -o /dev/null "$base/readyz"; then
    echo "browser-test: the server did not become ready" >&2
    cat "$work/server.log" >&2
    exit 1
fi

mkdir -p artifacts/browser
status=0
SIGNALBOX_URL="$base" SIGNALBOX_API_KEY="$key" SIGNALBOX_ARTIFACTS="artifacts/browser" \
    python3 -m pytest -q -p no:cacheprovider --durations=5 Tests/browser </dev/null || status=$?
if [ "$status" -ne 0 ]; then
    echo "== server log (last 40 lines)" >&2
    tail -n 40 "$work/server.log" >&2
fi
exit "$status"
