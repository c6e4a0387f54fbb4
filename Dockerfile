# syntax=docker/dockerfile:1
# Build in the official Swift image with the static Swift standard library;
# run on slim Debian with only the shared libraries the binary needs.
# scripts/container-test builds this same file with local stand-ins for both.
ARG BUILDER_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

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
# Stripped: the symbol table would add about 17 MB to the image.
RUN swift build -c release --product signalbox --static-swift-stdlib \
    && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)" \
    && mkdir -p /staging \
    && strip -o /staging/signalbox "$bin/signalbox" \
    && cp -R "$bin"/*.resources /staging/ \
    && cp -R Config /staging/Config

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsqlite3-0 zlib1g libssl3 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 signalbox \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin signalbox \
    && mkdir -p /data && chown signalbox:signalbox /data
COPY --from=build /staging /app
ENV SIGNALBOX_CONFIG=/app/Config/signalbox.json \
    SIGNALBOX_STORE=/data/signalbox.sqlite \
    SIGNALBOX_HOST=0.0.0.0 \
    SIGNALBOX_PORT=8080
VOLUME ["/data"]
WORKDIR /data
USER 10001:10001
EXPOSE 8080
# No curl in the image (it and its libraries would add about 10 MB): bash's
# /dev/tcp asks /healthz on whatever port SIGNALBOX_PORT sets.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["bash", "-c", "exec 3<>\"/dev/tcp/127.0.0.1/${SIGNALBOX_PORT}\" && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1\\.[01] 200 '"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/signalbox"]
