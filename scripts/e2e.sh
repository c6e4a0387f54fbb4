#!/usr/bin/env bash
# End-to-end checks: start the release binary on a free port and exercise
# every endpoint with real clients (curl, an SSE client in Python), then
# HTTPS with certificates made at test time (scripts/e2e-tls.py).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python3 -c 'import httpx, httpx_sse, jsonschema, yaml' 2>/dev/null; then
    pip install -q httpx httpx-sse jsonschema pyyaml
fi
swift build -c release --static-swift-stdlib --product signalbox
binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/signalbox"
python3 scripts/e2e.py "$binary"
python3 scripts/e2e-tls.py "$binary"
