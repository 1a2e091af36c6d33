# tileserver: one static binary (the viewer compiled in) on debian:bookworm-slim, run as a non-root user.
#   docker build -t tileserver .
#   docker run -p 8080:8080 -v "$PWD/photos:/images:ro" -v tileserver-cache:/cache tileserver
# Serves /images (the built-in landscape while it is empty); tiles are also kept on disk in /cache, so a restarted
# container does not decode its photos again. SIGTERM drains: requests in flight finish, then it exits 0.

FROM swift:6.3-bookworm AS build
# The C libraries, here and in the runtime stage, are those of scripts/system-libraries.txt; the test command fails,
# naming the library, when the two lists differ.
# Pinning Debian package versions would break the build at every Debian point release; the suite is pinned instead.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libjpeg-dev libpng-dev liblcms2-dev libtiff-dev libwebp-dev libopenjp2-7-dev libargon2-dev libssl-dev libcurl4-openssl-dev libheif-dev libopenslide-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# ICU's data, empty, for the runtime stage (deploy/container/empty-icu-data.c says why); ICU 72 is Debian 12's.
COPY deploy/container/empty-icu-data.c ./
RUN mkdir -p /out \
 && clang -O2 -shared -fPIC -DICU_MAJOR=72 -Wl,-soname,libicudata.so.72 -o /out/libicudata.so.72 empty-icu-data.c
# Dependencies in their own layer: resolved again only when the manifest changes.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Plugins ./Plugins
COPY public ./public
# The manifest names the test targets, so their folders must exist; nothing in them is built.
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product tileserver \
 && install -D -s .build/release/tileserver /out/tileserver

FROM debian:bookworm-slim
COPY --from=build /out/libicudata.so.72 /tmp/libicudata.so.72
# Removed after the install: the packages' downloaded archives (a base image without Docker's apt clean-up keeps
# them), what OpenSlide's dependencies bring that a server never uses, the MIME database (gdk-pixbuf is given its
# types), translations, fonts and X11's locale data (cairo draws no text, nothing opens a display), and the
# packages' documentation but their copyright files. ICU's 31 MB of data, which libxml2 (for OpenSlide) brings and
# the server never reads, is replaced by an empty package; the build fails if this Debian's ICU is not 72.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libjpeg62-turbo libpng16-16 liblcms2-2 libtiff6 libwebp7 libwebpmux3 libopenjp2-7 libargon2-1 libssl3 libcurl4 libheif1 libopenslide0 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb /var/cache/debconf/*-old \
      /var/log/apt /var/log/dpkg.log /usr/share/mime /usr/share/locale /usr/share/fonts /usr/share/X11 /var/cache/fontconfig \
 && find /usr/share/doc -type f ! -name copyright -delete \
 && icudata=$(readlink -f /usr/lib/*-linux-gnu/libicudata.so.72) \
 && { [ -f "$icudata" ] || { echo "libicudata.so.72 not found: build deploy/container/empty-icu-data.c for this ICU" >&2; exit 1; }; } \
 && mv /tmp/libicudata.so.72 "$icudata" \
 && useradd --system --uid 10001 --user-group --home-dir /nonexistent --shell /usr/sbin/nologin tileserver \
 && mkdir -p /images /cache \
 && chown tileserver:tileserver /cache
COPY --from=build /out/tileserver /usr/local/bin/tileserver
USER 10001:10001
ENV TILESERVER_HOST=0.0.0.0 \
    TILESERVER_PORT=8080 \
    TILESERVER_STORE_DIR=/cache/tiles \
    TILESERVER_RASTER_DIR=/cache
VOLUME ["/images", "/cache"]
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["tileserver", "healthcheck"]
ENTRYPOINT ["tileserver"]
CMD ["serve", "/images"]
