#!/usr/bin/env bash
# Fails when BINARY needs a shared library beyond glibc, libstdc++, libgcc_s
# and zlib: the Dockerfile's runtime image is a minimal root that holds only
# those (with the dynamic loader), copied from the build stage. It runs this
# on the image's binary (OpenSSL and SQLite are linked statically there); a
# new library must be allowed here and is then copied into the image too.
# Usage: scripts/check-runtime-libs.sh BINARY
set -euo pipefail
binary="${1:?usage: check-runtime-libs.sh BINARY}"
allowed='^(libc|libm|libdl|libpthread|librt|libutil|libgcc_s|libstdc\+\+|libz)\.so\.[0-9]+$|^ld-linux'
needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
missing="$(grep -vE "$allowed" <<<"$needed" || true)"
if [ -n "$missing" ]; then
    echo "the runtime image lacks: $(echo $missing)" >&2
    exit 1
fi
echo "binary needs only: $(echo $needed)"
