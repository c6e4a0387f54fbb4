#!/usr/bin/env bash
# End-to-end checks of HTTPS: the release binary with certificates made at
# test time (openssl), curl, openssl s_client and an SSE client (httpx-sse).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python3 -c 'import httpx, httpx_sse, jsonschema, yaml' 2>/dev/null; then
    pip install -q httpx httpx-sse jsonschema pyyaml
fi
swift build -c release --static-swift-stdlib --product signalbox
binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/signalbox"
exec python3 scripts/e2e-tls.py "$binary"
