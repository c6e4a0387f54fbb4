# syntax=docker/dockerfile:1
# Build in the official Swift image; run on an empty image (FROM scratch) that
# holds only what the binary needs, copied from the build stage: the dynamic
# loader, glibc, libstdc++, libgcc_s and zlib (the binary links the Swift
# standard library, OpenSSL and SQLite statically), the CA bundle, passwd and
# group entries for uid 10001, /tmp, /data, and bash for the HEALTHCHECK.
# scripts/container-test builds this same file with a local stand-in builder.
ARG BUILDER_IMAGE=swift:6.3-bookworm

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsqlite3-dev zlib1g-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
# Dependencies in their own layer: rebuilt only when Package.swift changes.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
COPY Config ./Config
COPY scripts/check-runtime-libs ./scripts/
# Size (issue 9: the image within 150 MB; half the binary is Foundation's ICU data):
# - OpenSSL and SQLite are linked from their static archives (removing the
#   dev symlinks makes -lssl, -lcrypto and -lsqlite3 find the .a files), so
#   the runtime root needs neither libssl3 nor libsqlite3-0 (3.2 MB). Their
#   security fixes, and glibc's, arrive by rebuilding the image.
# - lld with packed relative relocations (DT_RELR, glibc 2.36+): -2.2 MB;
#   one section per function, so --gc-sections drops unused code: -0.5 MB;
#   no dynamic symbol table for our code (nothing looks symbols up at run
#   time, and the stripped image has no backtracer to read it): -1.2 MB.
# - Stripped: the symbol table would add about 17 MB.
RUN rm -f /usr/lib/*-linux-gnu/libssl.so /usr/lib/*-linux-gnu/libcrypto.so /usr/lib/*-linux-gnu/libsqlite3.so \
    && set -- -c release --static-swift-stdlib \
    && swift build "$@" --product signalbox \
        -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
        -Xswiftc -Xfrontend -Xswiftc -function-sections \
    && bin="$(swift build "$@" --show-bin-path)" \
    && mkdir -p /staging \
    && strip -o /staging/signalbox "$bin/signalbox" \
    && bash scripts/check-runtime-libs /staging/signalbox \
    && cp -R "$bin"/*.resources /staging/ \
    && cp -R Config /staging/Config

# The runtime root (scripts/runtime-root) is 7.2 MB (libstdc++ 2.2, libc
# 1.9, bash 1.3, libm 0.9, the rest 0.9) instead of debian:bookworm-slim's
# 77.9 MB: the PostgreSQL store (SwiftNIO, BoringSSL, swift-crypto) grew the
# binary by 17 MB and the image to 161.2 MB on slim, 90.5 MB on this root
# (issue 9: at most 150). The price: no package manager, no coreutils, no
# shell but bash, so `docker exec … bash` has its builtins only (no ls, cat,
# ps, curl); use docker cp/export or a tool container to look around.
COPY scripts/runtime-root ./scripts/
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && bash scripts/runtime-root /rootfs /staging/signalbox

FROM scratch
COPY --from=build /rootfs /
COPY --from=build /staging /app
ENV SIGNALBOX_CONFIG=/app/Config/signalbox.json \
    SIGNALBOX_STORE=/data/signalbox.sqlite \
    SIGNALBOX_HOST=0.0.0.0 \
    SIGNALBOX_PORT=8080
VOLUME ["/data"]
WORKDIR /data
USER 10001:10001
EXPOSE 8080
# No curl in the image: bash's /dev/tcp and builtins only ask /healthz on
# whatever port SIGNALBOX_PORT sets.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["/bin/bash", "-c", "exec 3<>\"/dev/tcp/127.0.0.1/${SIGNALBOX_PORT}\" && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && IFS= read -r status <&3 && [[ $status == 'HTTP/1.'[01]' 200 '* ]]"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/signalbox"]
