# cubby as a container: a Debian 12 build stage, then a slim runtime with only the shared
# libraries the binary links (test/e2e/test_dockerfile.py checks that list against `ldd`).
#
#   docker build -t cubby .
#   docker run -p 9000:9000 -v cubby-data:/data cubby
#   docker run --rm cubby --ephemeral --s3-address 0.0.0.0:9000     # throwaway instance
#
# Configuration is by CUBBY_* variables (see `cubby --help`); the defaults below suit a
# container. The COSI driver starts when COSI_ENDPOINT is set (unix:///abs/path.sock, e.g. a
# socket on a volume shared with the COSI sidecar); it is unset by default.

FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config libboost1.81-dev libexpat1-dev libgrpc++-dev libprotobuf-dev \
      protobuf-compiler protobuf-compiler-grpc librocksdb-dev libssl-dev libgtest-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# Only the server: no tests configured (no ccache in here, so the build stays lean).
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build /build -j"$(nproc)" --target cubby \
 && strip /build/cubby

FROM debian:bookworm-slim
# Runtime shared libraries of /usr/local/bin/cubby (libc6, libstdc++6 and libgcc-s1 are in the
# base image). RocksDB is linked statically by its CMake package; its compression libraries are
# shared. ca-certificates is not needed: cubby makes no outgoing TLS connections.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libabsl20220623 libbz2-1.0 libc-ares2 libexpat1 libgrpc++1.51 libgrpc29 liblz4-1 libprotobuf32 \
      libre2-9 libsnappy1v5 libssl3 libzstd1 zlib1g \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 cubby \
 && useradd --system --uid 10001 --gid cubby --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin cubby \
 && mkdir -p /data \
 && chown cubby:cubby /data \
 && chmod 0700 /data
COPY --from=build /build/cubby /usr/local/bin/cubby

ENV CUBBY_DATA_DIR=/data \
    CUBBY_S3_ADDRESS=0.0.0.0:9000 \
    CUBBY_REGION=us-east-1 \
    CUBBY_LOG_LEVEL=info \
    CUBBY_LOG_FORMAT=logfmt \
    CUBBY_SHUTDOWN_GRACE=30s \
    CUBBY_MAX_CONNECTIONS=1024 \
    CUBBY_IDLE_TIMEOUT=60s \
    CUBBY_HEADER_TIMEOUT=60s \
    COSI_ENDPOINT=""

USER 10001:10001
VOLUME /data
EXPOSE 9000
# A probe without curl or a shell: the binary itself GETs the ready endpoint of the listener its
# configuration names, so it follows CUBBY_S3_ADDRESS and turns to https when CUBBY_TLS_* are set
# (the probe does not verify the certificate).
HEALTHCHECK --interval=15s --timeout=7s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/cubby", "--healthcheck", "/_cubby/ready"]
# SIGTERM (docker stop) shuts down gracefully; give docker stop a timeout above the grace.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/cubby"]
