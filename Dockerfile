# syntax=docker/dockerfile:1
# Build in the official Swift image, run on slim Debian with only what the binary needs.
ARG BUILDER_IMAGE=swift:6.2-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsqlite3-dev zlib1g-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Config ./Config
RUN swift build -c release --product signalbox --static-swift-stdlib \
    && mkdir -p /staging \
    && cp "$(swift build -c release --static-swift-stdlib --show-bin-path)/signalbox" /staging/ \
    && cp -R "$(swift build -c release --static-swift-stdlib --show-bin-path)"/*.resources /staging/ \
    && cp -R Config /staging/Config

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsqlite3-0 zlib1g libssl3 ca-certificates curl \
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
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["curl", "-fsS", "http://127.0.0.1:8080/healthz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/signalbox"]
