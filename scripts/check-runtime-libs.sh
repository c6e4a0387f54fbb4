#!/usr/bin/env bash
# The release binary (static Swift standard library) must need no shared
# library beyond what the Dockerfile's runtime image has: glibc, libstdc++
# and zlib (in debian:bookworm-slim) plus libsqlite3-0 and libssl3 (HTTPS). A new one must be
# added to the Dockerfile's runtime stage and to the list below.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib --product signalbox >/dev/null
binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/signalbox"
allowed='^(linux-vdso|ld-linux-x86-64|ld-linux-aarch64|libc|libm|libdl|libpthread|librt|libutil|libgcc_s|libstdc\+\+|libsqlite3|libz|libssl|libcrypto)\.so'
status=0
while read -r name _; do
    [ -z "$name" ] && continue
    base=$(basename "$name")
    if [[ ! "$base" =~ $allowed ]]; then
        echo "runtime image lacks: $base"
        status=1
    fi
done < <(ldd "$binary" | awk '{print $1}')
if [ $status -eq 0 ]; then
    echo "release binary needs only: $(ldd "$binary" | awk '{print $1}' | xargs -n1 basename | sort | tr '\n' ' ')"
fi
exit $status
