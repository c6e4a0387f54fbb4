#!/usr/bin/env bash
# Assembles the runtime image's whole file system in DEST, from the build
# stage's own Debian files: the image is `FROM scratch` plus this folder.
#   - the dynamic loader and the shared libraries ldd finds for each PROGRAM
#     (not copied itself) and for bash, at the same paths: the loader's
#     default search path, so no /etc/ld.so.cache is needed;
#   - /bin/bash, for the HEALTHCHECK's /dev/tcp (no other shell, no coreutils);
#   - the CA bundle (/etc/ssl/certs/ca-certificates.crt, where NIOSSL looks:
#     PostgreSQL sslmode=verify-ca/verify-full without sslrootcert);
#   - /etc/passwd and /etc/group with root and signalbox (10001), nsswitch.conf
#     (names from /etc/hosts, then DNS: glibc 2.36 has both built in);
#   - /tmp (1777) and /data owned by 10001 (a new volume on it inherits that).
# Usage: scripts/runtime-root.sh DEST PROGRAM...
set -euo pipefail
dest="${1:?usage: runtime-root.sh DEST PROGRAM...}"
shift
mkdir -p "$dest"

# ldd prints "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" and the
# loader as "/lib64/ld-linux-x86-64.so.2 (0x…)"; cp -L copies the files the
# (merged-/usr) symlinks point to, under the paths the binaries ask for.
libraries="$(ldd "$@" /bin/bash | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u)"
for file in /bin/bash $libraries; do
    cp --parents -L "$file" "$dest"
done

mkdir -p "$dest/etc/ssl/certs"
cp -L /etc/ssl/certs/ca-certificates.crt "$dest/etc/ssl/certs/"
cat >"$dest/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
signalbox:x:10001:10001:Signalbox:/data:/usr/sbin/nologin
EOF
cat >"$dest/etc/group" <<'EOF'
root:x:0:
signalbox:x:10001:
EOF
echo 'hosts: files dns' >"$dest/etc/nsswitch.conf"
install -d -m 1777 "$dest/tmp"
install -d -m 0755 -o 10001 -g 10001 "$dest/data"
echo "runtime root: $(du -sh "$dest" | cut -f1) ($(echo $libraries))"
